package report

import (
	"testing"

	"github.com/latlab/latlab/analysis"
)

// TestFlaggedText checks what a report says of flagged runs: how many of
// how many, by flag, what the machine probe measured, and whether that
// explains them; the machine's verdict is analysis.SummarizeMachine's.
func TestFlaggedText(t *testing.T) {
	flags := map[string]int{"generator_saturated": 17, "trend": 2}
	tests := []struct {
		name      string
		m         analysis.MachineLoad
		want, not []string
	}{
		{"busy", analysis.MachineLoad{Runs: 17, Load1: 16.4, CPUs: 2, Other: 70, Busy: true},
			[]string{"19 of 45 runs were flagged and left out (generator_saturated 17, trend 2).",
				"The machine was too busy to measure well: during the flagged runs the load average reached 16.4 on 2 CPUs, other processes used 70% of the CPU time.",
				"Most were flagged generator_saturated: latlab fell behind its schedule", "max_lag_p99",
				"Close other work, or give latlab CPUs of its own", "latlab run s.yaml -o r-again.db.", "latlab report r.db --include-flagged"},
			[]string{"virtual machines", "not busy", "SPEC"}},
		{"stolen", analysis.MachineLoad{Runs: 17, Load1: 1, CPUs: 2, Other: 3, Steal: 40, Busy: true},
			[]string{"too busy", "other processes used 3% of the CPU time and other virtual machines 40%."}, nil},
		{"loaded", analysis.MachineLoad{Runs: 17, Load1: 4.5, CPUs: 2, Other: 10, Busy: true},
			[]string{"too busy", "load average reached 4.5 on 2 CPUs"}, nil},
		{"quiet", analysis.MachineLoad{Runs: 17, Load1: 0.5, CPUs: 2, Other: 5},
			[]string{"The machine was not busy", "The flags' reasons are in the report's summary", "--include-flagged"},
			[]string{"Close other work"}},
		{"the target's own load", analysis.MachineLoad{Runs: 8, Load1: 4.9, CPUs: 2, Other: 0.4},
			[]string{"Other work did not disturb them: during the flagged runs other processes used 0% of the CPU time;" +
				" the load average reached 4.9 on 2 CPUs from the target and latlab themselves.",
				"The flags' reasons are in the report's summary"},
			[]string{"too busy", "not busy", "Close other work"}},
		{"not measured", analysis.MachineLoad{}, []string{"flagged and left out", "--include-flagged"}, []string{"load average", "busy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flaggedText(flaggedFacts{flagged: 19, done: 45, byName: flags, m: tt.m, dbPath: "r.db", specPath: "s.yaml"})
			checkText(t, got, tt.want, tt.not)
		})
	}
}

// TestFlaggedTextFits checks that the advice fits the spec: latlab
// already pinned is not told to pin itself, a flag that most runs carry
// names the bound that decides it, and none is named when no flag does.
func TestFlaggedTextFits(t *testing.T) {
	busy := analysis.MachineLoad{Runs: 6, Load1: 4.5, CPUs: 2, Other: 60, Busy: true}
	for _, tc := range []struct {
		name      string
		f         flaggedFacts
		want, not []string
	}{
		{"pinned", flaggedFacts{flagged: 6, done: 36, byName: map[string]int{"trend": 6}, m: busy, dbPath: "aa.db", specPath: "study/aa.yaml", loadCPUs: "0"},
			[]string{"latlab ran on CPU 0 (cpus: {load: 0}), but other work still ran there", "taskset",
				"Most were flagged trend", "validity: {max_trend: ...} (default 10%)", "latlab run study/aa.yaml -o aa-again.db."},
			[]string{"give latlab CPUs of its own"}},
		{"no flag dominates", flaggedFacts{flagged: 5, done: 36, byName: map[string]int{"trend": 2, "errors": 2, "target_cpu_high": 1}, dbPath: "x.sqlite"},
			[]string{"latlab run SPEC -o x-again.sqlite."}, []string{"Most were flagged"}},
		{"half of them", flaggedFacts{flagged: 4, done: 36, byName: map[string]int{"errors": 2, "trend": 2}, dbPath: "r.db"},
			[]string{"Most were flagged errors", "max_error_ratio"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkText(t, flaggedText(tc.f), tc.want, tc.not)
		})
	}
}

func TestFlaggedTextCounted(t *testing.T) {
	got := flaggedText(flaggedFacts{flagged: 3, done: 9, counted: true, byName: map[string]int{"errors": 3}, dbPath: "r.db"})
	want := "3 of 9 runs were flagged and counted, as --include-flagged asks (errors 3)." +
		" Most were flagged errors: too many requests failed: if failures are part of what you measure, raise validity: {max_error_ratio: ...} (default 1%)." +
		" The flags' reasons are in the report's summary. To run the study again: latlab run SPEC -o r-again.db."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
