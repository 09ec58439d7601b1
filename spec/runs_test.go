package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseRuns reads each form of runs: and what it fills in.
func TestParseRuns(t *testing.T) {
	for _, tt := range []struct {
		name, runs string
		want       int
		auto       *AutoRuns
	}{
		{"a number", "8", 8, nil},
		{"auto", "auto", 100, &AutoRuns{Min: 6, Max: 100, Precision: 0.1, Relative: 0.5, Quantiles: []string{"p50"}}},
		{"a mapping", "{min: 4, max: 12, precision: 5%, relative: 25%, quantiles: [p50, p99.9], budget: 1h}", 12,
			&AutoRuns{Min: 4, Max: 12, Precision: 0.05, Relative: 0.25, Quantiles: []string{"p50", "p99.9"}, Budget: time.Hour}},
		{"a width", "{precision: 20us}", 100, &AutoRuns{Min: 6, Max: 100, Width: 20 * time.Microsecond, Relative: 0.5, Quantiles: []string{"p50"}}},
		{"a ratio", "{precision: 0.2}", 100, &AutoRuns{Min: 6, Max: 100, Precision: 0.2, Relative: 0.5, Quantiles: []string{"p50"}}},
		{"relative off", "{relative: off}", 100, &AutoRuns{Min: 6, Max: 100, Precision: 0.1, Quantiles: []string{"p50"}}},
		{"max below the default min", "{max: 4}", 4, &AutoRuns{Min: 4, Max: 4, Precision: 0.1, Relative: 0.5, Quantiles: []string{"p50"}}},
		{"min above the default max", "{min: 140}", 140, &AutoRuns{Min: 140, Max: 140, Precision: 0.1, Relative: 0.5, Quantiles: []string{"p50"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, loadBase+"runs: "+tt.runs+"\n")
			if s.Runs != tt.want || !cmp.Equal(s.Auto, tt.auto) {
				t.Errorf("runs %d, auto %+v; want %d, %+v", s.Runs, s.Auto, tt.want, tt.auto)
			}
		})
	}
}

// TestParseRunsErrors names the file, line and field of each bad runs:.
func TestParseRunsErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{"another word", loadBase + "runs: many\n", `spec.yaml:8: runs: expected a whole number, auto, or {min, max, precision, quantiles, budget}, got "many"`},
		{"a list", loadBase + "runs: [6]\n", `spec.yaml:8: runs: expected a whole number, got a sequence`},
		{"min above max", loadBase + "runs:\n  max: 6\n  min: 8\n", "spec.yaml:10: runs.min: min 8 is more than max 6"},
		{"min zero", loadBase + "runs: {min: 0}\n", "spec.yaml:8: runs.min: 0 is less than 1"},
		{"max past the bound", loadBase + "runs: {max: 1000000}\n", "spec.yaml:8: runs.max: 1000000 is more than 100000"},
		{"precision zero", loadBase + "runs: {precision: 0%}\n", "spec.yaml:8: runs.precision: 0% is not above 0%"},
		{"precision negative", loadBase + "runs: {precision: -0.1}\n", "spec.yaml:8: runs.precision: -0.1 is not above 0%"},
		{"precision no duration", loadBase + "runs: {precision: 0s}\n", "spec.yaml:8: runs.precision: 0s is not positive"},
		{"precision a word", loadBase + "runs: {precision: tight}\n", `spec.yaml:8: runs.precision: expected a share of the baseline such as 10% or a duration such as 20us, got "tight"`},
		{"quantile not compared", loadBase + "runs: {quantiles: [p95]}\n", `spec.yaml:8: runs.quantiles[0]: "p95": expected one of the overhead table's percentiles, [p50 p90 p99 p99.9]`},
		{"quantile twice", loadBase + "runs: {quantiles: [p99, p99]}\n", "spec.yaml:8: runs.quantiles[1]: p99 is given twice"},
		{"no quantiles", loadBase + "runs: {quantiles: []}\n", "spec.yaml:8: runs.quantiles: expected at least one percentile"},
		{"budget zero", loadBase + "runs: {budget: 0s}\n", "spec.yaml:8: runs.budget: 0s is not positive"},
		{"relative past the bound", loadBase + "runs: {relative: 300%}\n", "spec.yaml:8: runs.relative: 300% is more than 200%"},
		{"relative negative", loadBase + "runs: {relative: -10%}\n", "spec.yaml:8: runs.relative: -10% is not above 0%"},
		{"relative a word", loadBase + "runs: {relative: loose}\n", `spec.yaml:8: runs.relative: expected a share of the overhead such as 50%, or off, got "loose"`},
		{"unknown field", loadBase + "runs: {precison: 5%}\n", "spec.yaml:8: runs.precison: unknown field; did you mean precision?"},
		{"grouped", loadBase + "runs: auto\norder: grouped\n", "spec.yaml:9: order: grouped runs a cell's repetitions together, and runs: auto decides after each repetition of every cell still open: use order: interleaved, or a number of runs"},
	})
}

// TestCanonicalRuns writes runs: auto as its parts, without a runs line
// of its own, and changes the hash with any part.
func TestCanonicalRuns(t *testing.T) {
	auto := mustParse(t, loadBase+"runs: auto\n")
	written := mustParse(t, loadBase+"runs: {min: 6, max: 100, precision: 10%, relative: 50%, quantiles: [p50]}\n")
	if auto.Hash() != written.Hash() {
		t.Errorf("runs: auto and its defaults written out differ:\n%s", Diff(auto, written))
	}
	c := auto.Canonical()
	for _, want := range []string{"runs.min: 6\n", "runs.max: 100\n", "runs.precision: 10%\n", "runs.relative: 50%\n", "runs.quantiles: [p50]\n"} {
		if !strings.Contains(c, want) {
			t.Errorf("canonical form lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "\nruns: ") {
		t.Errorf("canonical form of runs: auto has a runs line:\n%s", c)
	}
	if off := mustParse(t, loadBase+"runs: {relative: off}\n"); off.Hash() == auto.Hash() || strings.Contains(off.Canonical(), "runs.relative") {
		t.Errorf("relative: off: canonical form\n%s", off.Canonical())
	}
	width := mustParse(t, loadBase+"runs: {precision: 20us}\n")
	if !strings.Contains(width.Canonical(), "runs.precision: 20µs\n") || width.Hash() == auto.Hash() {
		t.Errorf("a width: canonical form\n%s", width.Canonical())
	}
	if got := WithoutRuns(auto.Canonical()); got != WithoutRuns(mustParse(t, loadBase+"runs: 3\n").Canonical()) {
		t.Errorf("without runs, runs: auto and runs: 3 differ:\n%s", got)
	}
}
