package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/load"
)

// TestMap writes a spec key by key, in order, with nested maps, a list and
// a duration, and reads it back.
func TestMap(t *testing.T) {
	ld := (&Map{}).Add("rates", []float64{100}).Add("duration", 90*time.Second)
	doc := (&Map{}).Add("version", 1).Add("name", "w").
		Add("variants", []*Map{(&Map{}).Add("name", "v").Add("target", "http://127.0.0.1:9000/")}).
		Add("load", ld)
	text, err := doc.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := "version: 1\nname: w\nvariants:\n  - name: v\n    target: http://127.0.0.1:9000/\nload:\n  rates:\n    - 100\n  duration: 1m30s\n"
	if string(text) != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
	s, err := ParseSpec("w.yaml", text, "")
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Variant("v"); v == nil || v.Load.Duration != 90*time.Second || len(v.Load.Rates) != 1 {
		t.Errorf("read back: %+v", v)
	}
}

// TestAddOptions writes the options that differ from the defaults, but
// those skipped and those the mode does not take.
func TestAddOptions(t *testing.T) {
	s := load.Defaults()
	s.Mode, s.Rates, s.Pool, s.Timeout, s.Concurrency = load.ModeOpen, []float64{10}, 7, 3*time.Second, []int{4}
	ld := &Map{}
	if err := AddOptions(ld, &s, []string{"mode", "rates"}); err != nil {
		t.Fatal(err)
	}
	text, err := ld.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	got := string(text)
	for _, want := range []string{"pool: 7\n", "timeout: 3s\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("options %q lack %q", got, want)
		}
	}
	for _, not := range []string{"mode", "rates", "concurrency", "method"} {
		if strings.Contains(got, not) {
			t.Errorf("options %q hold %s", got, not)
		}
	}
}
