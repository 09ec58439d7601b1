package record

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLevelText(t *testing.T) {
	for _, tt := range []struct {
		l    Level
		want string
	}{
		{Level{Rate: 100}, "100/s"},
		{Level{Concurrency: 8}, "c=8"},
		{Level{Rate: 100, Concurrency: 8}, "100/s c=8"},
		{Level{Rate: 3}, "3/s"},
		{Level{Rate: 0.1}, "0.1/s"},
		{Level{Rate: 1234567}, "1.234567e+06/s"},
		{Level{Rate: 1234568}, "1.234568e+06/s"},
		{Level{Rate: 1e6}, "1e+06/s"},
		{Level{Rate: 1.0000000000000002}, "1.0000000000000002/s"},
	} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("%#v: %q; want %q", tt.l, got, tt.want)
		}
	}
}

// TestLevelRoundTrip checks that a level's text reads back as its rate,
// so that text and value are one identity.
func TestLevelRoundTrip(t *testing.T) {
	for _, spec := range []string{"1", "3", "7", "0.1", "0.3", "1234567", "1234568", "1e-7", "123456789.123", "9007199254740993"} {
		r, err := strconv.ParseFloat(spec, 64)
		if err != nil {
			t.Fatal(err)
		}
		l := Level{Rate: r, Concurrency: 2}
		text, _ := strings.CutSuffix(l.String(), "/s c=2")
		if back, err := strconv.ParseFloat(text, 64); err != nil || back != r {
			t.Errorf("rate %s: text %q reads back as %v, %v", spec, l.String(), back, err)
		}
	}
}

func TestLevelCompare(t *testing.T) {
	ls := []Level{{Rate: 1234568}, {Concurrency: 2}, {Rate: 1234567, Concurrency: 4}, {Rate: 1234567}, {Concurrency: 1}}
	slices.SortFunc(ls, Level.Compare)
	want := []Level{{Concurrency: 1}, {Concurrency: 2}, {Rate: 1234567}, {Rate: 1234567, Concurrency: 4}, {Rate: 1234568}}
	if !slices.Equal(ls, want) {
		t.Errorf("sorted %v; want %v", ls, want)
	}
}
