package report

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

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
			if analysis.LeavesOut(f.Name) {
				byName[f.Name]++
			}
		}
	}
	if len(flagged) == 0 {
		return "", nil
	}
	var ids []int64
	for _, run := range flagged {
		ids = append(ids, run.ID)
	}
	points, err := readProbes(ctx, db, ids, r.warnDamaged)
	if err != nil {
		return "", err
	}
	m := analysis.SummarizeMachine(points)
	return flaggedText(len(flagged), r.Runs.Done, r.IncludeFlagged, byName, m, dbPath, specPath), nil
}

// flaggedText says that flagged of done runs were flagged, byName, and
// left out unless counted, what the machine probe measured during them,
// m, and what to do.
func flaggedText(flagged, done int, counted bool, byName map[string]int, m analysis.MachineLoad, dbPath, specPath string) string {
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
	stolen := ""
	if m.Steal >= 0.5 {
		stolen = fmt.Sprintf(" and other virtual machines %.0f%%", m.Steal)
	}
	switch {
	case m.Runs == 0:
	case !m.Busy && m.CPUs > 0 && m.Load1 > m.CPUs:
		// The load average counts the target and latlab: say whose it was.
		fmt.Fprintf(&b, " Other work did not disturb them: during the flagged runs other processes used %.0f%% of the CPU time%s;"+
			" the load average reached %.1f on %g CPUs from the target and latlab themselves.", m.Other, stolen, m.Load1, m.CPUs)
	default:
		if m.Busy {
			b.WriteString(" The machine was too busy to measure well:")
		} else {
			b.WriteString(" The machine was not busy:")
		}
		fmt.Fprintf(&b, " during the flagged runs the load average reached %.1f on %g CPUs, other processes used %.0f%% of the CPU time%s.",
			m.Load1, m.CPUs, m.Other, stolen)
	}
	if m.Busy {
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
