package report

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// Machine loads above which the machine counts as busy while it measured.
const (
	busyOtherPercent = 25 // other processes' share of all the CPUs' time
	busyStealPercent = 10 // a hypervisor's other guests' share
)

// machineLoad is what the machine probe measured over some runs.
type machineLoad struct {
	runs        int     // runs with machine points
	load1       float64 // the highest 1-minute load average
	cpus        float64 // CPUs of the machine
	other       float64 // mean of other_cpu_percent
	steal       float64 // mean of steal_percent
	otherN, stN int
}

func (m machineLoad) busy() bool {
	return m.otherN > 0 && m.other >= busyOtherPercent || m.stN > 0 && m.steal >= busyStealPercent ||
		m.cpus > 0 && m.load1 > m.cpus
}

// readMachine reads the machine probe's points of runs.
func readMachine(ctx context.Context, db *store.DB, runs []analysis.Run) (machineLoad, error) {
	var m machineLoad
	for _, run := range runs {
		points, err := db.Probes(ctx, run.ID)
		if err != nil {
			return m, fmt.Errorf("reading the probes of run %d: %w", run.ID, err)
		}
		seen := false
		for _, p := range points {
			if p.Probe != "machine" || math.IsNaN(p.Value) {
				continue
			}
			seen = true
			switch p.Series {
			case "load1":
				m.load1 = max(m.load1, p.Value)
			case "cpus":
				m.cpus = p.Value
			case "other_cpu_percent":
				m.other += p.Value
				m.otherN++
			case "steal_percent":
				m.steal += p.Value
				m.stN++
			}
		}
		if seen {
			m.runs++
		}
	}
	if m.otherN > 0 {
		m.other /= float64(m.otherN)
	}
	if m.stN > 0 {
		m.steal /= float64(m.stN)
	}
	return m, nil
}

// FlaggedNote says how many of r's runs were flagged (and left out,
// unless r counts them), with what the machine probe measured during them
// (load average, other processes' CPU, steal) and what to do, or "" when
// none was flagged. db is the file at dbPath that r was read from;
// specPath is the spec's file, or "" when unknown.
func (r *Experiment) FlaggedNote(ctx context.Context, db *store.DB, dbPath, specPath string) (string, error) {
	var flagged []analysis.Run
	byName := map[string]int{}
	for _, run := range r.Exp.Runs {
		if run.Status != store.Done || run.Valid() {
			continue
		}
		flagged = append(flagged, run)
		for _, f := range run.Flags {
			if f.Name != "too_few_samples" {
				byName[f.Name]++
			}
		}
	}
	if len(flagged) == 0 {
		return "", nil
	}
	m, err := readMachine(ctx, db, flagged)
	if err != nil {
		return "", err
	}
	return flaggedText(len(flagged), r.Runs.Done, r.IncludeFlagged, byName, m, dbPath, specPath), nil
}

// flaggedText says that flagged of done runs were flagged, byName, and
// left out unless counted, what the machine probe measured during them,
// m, and what to do.
func flaggedText(flagged, done int, counted bool, byName map[string]int, m machineLoad, dbPath, specPath string) string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		names = append(names, fmt.Sprintf("%s %d", name, byName[name]))
	}
	var b strings.Builder
	fate := "left out"
	if counted {
		fate = "counted, as --include-flagged asks"
	}
	fmt.Fprintf(&b, "%d of %d runs were flagged and %s (%s).", flagged, done, fate, strings.Join(names, ", "))
	if m.runs > 0 {
		if m.busy() {
			b.WriteString(" The machine was too busy to measure well:")
		} else {
			b.WriteString(" The machine was not busy:")
		}
		fmt.Fprintf(&b, " during the flagged runs the load average reached %.1f on %g CPUs, other processes used %.0f%% of the CPU time",
			m.load1, m.cpus, m.other)
		if m.steal >= 0.5 {
			fmt.Fprintf(&b, " and other virtual machines %.0f%%", m.steal)
		}
		b.WriteString(".")
	}
	if m.busy() {
		b.WriteString(" Close other work, or give latlab CPUs of its own (the spec's cpus: field), and run the study again: ")
	} else {
		b.WriteString(" The flags' reasons are in the report's summary. To run the study again: ")
	}
	if specPath == "" {
		specPath = "SPEC"
	}
	fmt.Fprintf(&b, "latlab run %s -o again.db.", specPath)
	if !counted {
		fmt.Fprintf(&b, " latlab report %s --include-flagged counts the flagged runs.", dbPath)
	}
	return b.String()
}
