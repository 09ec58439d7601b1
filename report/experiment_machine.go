package report

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/internal/textsafe"
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
	if specPath == "" {
		specPath = r.Exp.Provenance.Extra[specPathKey]
	}
	return flaggedText(flaggedFacts{
		flagged: len(flagged), done: r.Runs.Done, counted: r.IncludeFlagged, byName: byName,
		m: analysis.SummarizeMachine(points), dbPath: dbPath, specPath: specPath, loadCPUs: r.Exp.Design.LoadCPUs,
	}), nil
}

// specPathKey is the provenance extra that latlab run stores the spec's
// file in (experiment.SpecPathKey; report does not import experiment).
const specPathKey = "spec_path"

// flaggedFacts is what flaggedText says of an experiment's flagged runs.
type flaggedFacts struct {
	flagged, done int
	counted       bool           // flagged runs counted (--include-flagged), not left out
	byName        map[string]int // flagged runs by flag
	m             analysis.MachineLoad
	dbPath        string // the results database
	specPath      string // the spec's file; "" when unknown
	loadCPUs      string // the spec's cpus: {load: ...}; "" when latlab was not pinned
}

// boundAdvice says, for a flag that most flagged runs carry, what would
// avoid it and which of the spec's bounds decides it.
var boundAdvice = map[string]string{
	"generator_saturated": "latlab fell behind its schedule: lower the rate, give latlab more CPUs, or, where a later send is part of what you measure, raise validity: {max_lag_p99: ...} (default 5ms) or lower validity: {min_achieved: ...} (default 99%)",
	"trend":               "the target's service time rose over the run: if a drift that large is part of what you measure, raise validity: {max_trend: ...} (default 10%)",
	"target_cpu_high":     "the target used more than its CPU budget: give it more CPUs (cpus: {targets: ...}) or raise validity: {cpu_budget: ...} (default 75%)",
	"errors":              "too many requests failed: if failures are part of what you measure, raise validity: {max_error_ratio: ...} (default 1%)",
	"too_few_samples":     "too few requests for the highest percentile: run longer (load: {duration: ...}) or judge a lower one (validity: {samples_for: ...})",
}

// flaggedText says that f.flagged of f.done runs were flagged, by flag,
// and left out unless counted, what the machine probe measured during
// them, and what to do: the advice of the flag most of them carry, if
// one does, and the commands that run the study again and count them.
func flaggedText(f flaggedFacts) string {
	var names []string
	most, top := "", 0
	for _, name := range slices.Sorted(maps.Keys(f.byName)) {
		names = append(names, fmt.Sprintf("%s %d", name, f.byName[name]))
		if f.byName[name] > top {
			most, top = name, f.byName[name]
		}
	}
	var b strings.Builder
	fate := "left out"
	if f.counted {
		fate = "counted, as --include-flagged asks"
	}
	fmt.Fprintf(&b, "%d of %d runs were flagged and %s (%s).", f.flagged, f.done, fate, strings.Join(names, ", "))
	m := f.m
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
	if advice, ok := boundAdvice[most]; ok && 2*top >= f.flagged {
		fmt.Fprintf(&b, " Most were flagged %s: %s.", most, advice)
	}
	switch {
	case m.Busy && f.loadCPUs == "":
		b.WriteString(" Close other work, or give latlab CPUs of its own (the spec's cpus: {load: ...}), and run the study again: ")
	case m.Busy:
		fmt.Fprintf(&b, " latlab ran on CPU %s (cpus: {load: %s}), but other work still ran there: close it, or keep it off those CPUs (taskset, a cpuset), and run the study again: ", f.loadCPUs, f.loadCPUs)
	default:
		b.WriteString(" The flags' reasons are in the report's summary. To run the study again: ")
	}
	spec := f.specPath
	if spec == "" {
		spec = "SPEC" // a database from before latlab run stored its spec's file
	}
	fmt.Fprintf(&b, "latlab run %s -o %s.", textsafe.Escape(spec), textsafe.Escape(againPath(f.dbPath)))
	if !f.counted {
		fmt.Fprintf(&b, " latlab report %s --include-flagged counts the flagged runs.", f.dbPath)
	}
	return b.String()
}

// againPath names a database beside dbPath for a study run again:
// results.db gives results-again.db.
func againPath(dbPath string) string {
	if dbPath == "" {
		return "again.db"
	}
	ext := filepath.Ext(dbPath)
	return strings.TrimSuffix(dbPath, ext) + "-again" + cmp.Or(ext, ".db")
}
