package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
)

// TestExpectations checks the fixture's expect: against its levels: a row
// per level and percentile, the measured side the level's own cell, the
// verdict what the interval says, and a percentile latlab does not read
// n/a with a reason.
func TestExpectations(t *testing.T) {
	r := newFixture(t, fixture(t), ExperimentOptions{})
	want := map[string][]string{"proxy": {"p50"}, "filter": {"p50", "p75", "p99"}}
	var got []string
	seen := map[string]bool{}
	for _, e := range r.Expectations {
		got = append(got, e.Variant+" "+e.Level.String()+" "+e.Name)
		var level analysis.LevelResult
		for _, l := range r.Levels {
			if l.Variant == e.Variant && l.Level == e.Level {
				level = l
			}
		}
		c, read := level.Cell(e.Name)
		if !read {
			if e.Verdict != analysis.VerdictNA || !strings.Contains(e.Note, e.Name) || !math.IsNaN(e.Measured) {
				t.Errorf("%s %s %s: verdict %s, note %q, measured %g; want n/a naming it", e.Variant, e.Level, e.Name, e.Verdict, e.Note, e.Measured)
			}
			continue
		}
		if e.Measured != c.Median || e.Runs != len(c.Values) || e.CIOK != c.CIOK || e.CIOK != (len(level.RunIDs) >= 6) {
			t.Errorf("%s %s %s: measured %g of %d runs (CI %v); want the cell's %g of %d (CI %v)", e.Variant, e.Level, e.Name,
				e.Measured, e.Runs, e.CIOK, c.Median, len(c.Values), c.CIOK)
		}
		verdict := analysis.VerdictWithin
		switch {
		case e.Lo > e.Expected:
			verdict = analysis.VerdictAbove
		case e.Hi < e.Expected:
			verdict = analysis.VerdictBelow
		}
		if e.Verdict != verdict || !(e.Lo <= e.Measured && e.Measured <= e.Hi) {
			t.Errorf("%s %s %s: %s with %g in [%g, %g] against %g; want %s", e.Variant, e.Level, e.Name, e.Verdict, e.Measured, e.Lo, e.Hi, e.Expected, verdict)
		}
		seen[e.Verdict] = true
	}
	var wantRows []string
	for _, l := range r.Levels {
		for _, name := range want[l.Variant] {
			wantRows = append(wantRows, l.Variant+" "+l.Level.String()+" "+name)
		}
	}
	if diff := cmp.Diff(wantRows, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	for _, v := range []string{analysis.VerdictWithin, analysis.VerdictAbove, analysis.VerdictBelow} {
		if !seen[v] {
			t.Errorf("no row judged %s: the fixture should cover every verdict", v)
		}
	}
}

// TestExpectationsAbsent checks that a spec without expect: adds nothing:
// the text report is the one with expect: less its table, the JSON the
// same less its rows, and the HTML page has no such section nor markers.
func TestExpectationsAbsent(t *testing.T) {
	with := fixture(t)
	without := *with
	without.Spec = withoutExpectSpec
	without.Design = fixtureDesigns[withoutExpectSpec]
	a, b := newFixture(t, with, ExperimentOptions{}), newFixture(t, &without, ExperimentOptions{})
	if len(a.Expectations) == 0 || len(b.Expectations) != 0 {
		t.Fatalf("%d and %d expectations; want some with expect:, none without", len(a.Expectations), len(b.Expectations))
	}
	var ta, tb, block strings.Builder
	if err := a.WriteText(&ta); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteText(&tb); err != nil {
		t.Fatal(err)
	}
	a.expectText(&block)
	if diff := cmp.Diff(strings.Replace(ta.String(), block.String(), "", 1), tb.String()); diff != "" || block.Len() == 0 {
		t.Errorf("text without expect: is not the text with it less its table (-with +without):\n%s", diff)
	}
	ja, jb := a.JSON(), b.JSON()
	if jb.Expectations == nil || len(jb.Expectations) != 0 {
		t.Errorf("JSON expectations %v; want []", jb.Expectations)
	}
	ja.Expectations = jb.Expectations
	if diff := cmp.Diff(ja, jb); diff != "" {
		t.Errorf("JSON without expect: differs beyond its expectations (-with +without):\n%s", diff)
	}
	var raw bytes.Buffer
	if err := b.WriteJSON(&raw); err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw.Bytes(), &keys); err != nil {
		t.Fatal(err)
	}
	if got := string(keys["expectations"]); got != "[]" {
		t.Errorf(`"expectations": %s; want []`, got)
	}
	for _, tt := range []struct {
		r       *Experiment
		section bool
		series  string
	}{{a, true, "9"}, {b, false, "6"}} {
		var page bytes.Buffer
		if err := tt.r.WriteHTML(&page, nil); err != nil {
			t.Fatal(err)
		}
		s := page.String()
		if got := strings.Contains(s, `<section id="expect">`); got != tt.section {
			t.Errorf("expect section shown: %v; want %v", got, tt.section)
		}
		// p50 and p99 per variant, and a marker per expected p50 or p99.
		if got := plotAttrs(s)["latency-vs-rate"]["data-series"]; got != tt.series {
			t.Errorf("latency-vs-rate: %s series; want %s", got, tt.series)
		}
	}
}
