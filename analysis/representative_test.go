package analysis

import (
	"testing"
	"time"
)

// TestRepresentative picks the counted run with the median p50 (the lower
// middle one of an even count), else the median of all the runs at the
// level, with an n/a p50 sorting last.
func TestRepresentative(t *testing.T) {
	l := Level{Rate: 100}
	var runs []RunDetail
	for i, p50 := range []time.Duration{5, 1, 4, 0, 2, 3} { // 0: n/a
		r := RunDetail{Run: fakeRun("a", l, i+1, p50*time.Millisecond)}
		if p50 == 0 {
			r.Latency[0].OK = false
		}
		runs = append(runs, r)
	}
	runs = append(runs, RunDetail{Run: fakeRun("b", l, 7, time.Millisecond)}, RunDetail{Run: fakeRun("a", Level{Rate: 200}, 8, time.Millisecond)})
	for _, tt := range []struct {
		name    string
		counted []int64
		want    int64
	}{
		{"odd count", []int64{1, 3, 5}, 3},     // p50s 5, 4, 2 ms: 4 ms
		{"even count", []int64{1, 2, 3, 5}, 5}, // 1, 2, 4, 5 ms: the lower middle, 2 ms
		{"n/a last", []int64{2, 4, 5}, 5},      // 1, 2 ms, n/a: 2 ms
		{"none counted", nil, 6},               // 1, 2, 3, 4, 5 ms, n/a: the lower middle, 3 ms
		{"others' ids", []int64{7, 8}, 6},      // not a's at 100/s: as none counted
	} {
		got := Representative(runs, "a", l, tt.counted)
		if got == nil || got.ID != tt.want {
			t.Errorf("%s: run %+v; want run %d", tt.name, got, tt.want)
		}
	}
	if got := Representative(runs, "c", l, nil); got != nil {
		t.Errorf("a variant without runs: run %d; want none", got.ID)
	}
}
