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
			[]string{"17 of 45 runs were flagged and left out (generator_saturated 17, trend 2).",
				"The machine was too busy to measure well: during the flagged runs the load average reached 16.4 on 2 CPUs, other processes used 70% of the CPU time.",
				"Close other work", "latlab run s.yaml -o again.db", "latlab report r.db --include-flagged"},
			[]string{"virtual machines", "not busy"}},
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
			got := flaggedText(17, 45, false, flags, tt.m, "r.db", "s.yaml")
			checkText(t, got, tt.want, tt.not)
		})
	}
}

func TestFlaggedTextCounted(t *testing.T) {
	got := flaggedText(3, 9, true, map[string]int{"errors": 3}, analysis.MachineLoad{}, "r.db", "")
	want := "3 of 9 runs were flagged and counted, as --include-flagged asks (errors 3). The flags' reasons are in the report's summary. To run the study again: latlab run SPEC -o again.db."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
