package report

import "testing"

// TestFlaggedText checks what a report says of flagged runs: how many of
// how many, by flag, what the machine probe measured, and whether that
// explains them.
func TestFlaggedText(t *testing.T) {
	flags := map[string]int{"generator_saturated": 17, "trend": 2}
	tests := []struct {
		name      string
		m         machineLoad
		want, not []string
	}{
		{"busy", machineLoad{runs: 17, load1: 16.4, cpus: 2, other: 70, otherN: 30, stN: 30},
			[]string{"17 of 45 runs were flagged and left out (generator_saturated 17, trend 2).",
				"The machine was too busy to measure well: during the flagged runs the load average reached 16.4 on 2 CPUs, other processes used 70% of the CPU time.",
				"Close other work", "latlab run s.yaml -o again.db", "latlab report r.db --include-flagged"},
			[]string{"virtual machines", "not busy"}},
		{"stolen", machineLoad{runs: 17, load1: 1, cpus: 2, other: 3, otherN: 30, steal: 40, stN: 30},
			[]string{"too busy", "other processes used 3% of the CPU time and other virtual machines 40%."}, nil},
		{"loaded", machineLoad{runs: 17, load1: 4.5, cpus: 2, other: 10, otherN: 30, stN: 30},
			[]string{"too busy", "load average reached 4.5 on 2 CPUs"}, nil},
		{"quiet", machineLoad{runs: 17, load1: 0.5, cpus: 2, other: 5, otherN: 30, stN: 30},
			[]string{"The machine was not busy", "The flags' reasons are in the report's summary", "--include-flagged"},
			[]string{"Close other work"}},
		{"not measured", machineLoad{}, []string{"flagged and left out", "--include-flagged"}, []string{"load average", "busy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flaggedText(17, 45, false, flags, tt.m, "r.db", "s.yaml")
			checkText(t, got, tt.want, tt.not)
		})
	}
}

func TestFlaggedTextCounted(t *testing.T) {
	got := flaggedText(3, 9, true, map[string]int{"errors": 3}, machineLoad{}, "r.db", "")
	want := "3 of 9 runs were flagged and counted, as --include-flagged asks (errors 3). The flags' reasons are in the report's summary. To run the study again: latlab run SPEC -o again.db."
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
