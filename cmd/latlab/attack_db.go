package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/experiment"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// isDBOutput reports whether -o names a results database.
func isDBOutput(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".db")
}

// attackDB is the results database an attack is stored in: an experiment
// named "attack" of one run. It is opened before the run, so that a file
// that cannot be written fails before any request is sent, and written
// after it, off the load generator's hot path.
type attackDB struct {
	db     *store.DB
	path   string
	exp    store.Experiment // to create, with the provenance at the start
	shards []store.Shard    // of a sharded attack
	done   bool             // closed
}

// openDB opens the database -o names, if it names one, and collects the
// provenance (config keeps --samples raw samples for it). It returns nil
// when -o is not a database, and a usage error when --samples is wrong or
// given without one, or the file cannot be opened for writing.
func (f *attackFlags) openDB(ctx context.Context, cmd *cobra.Command, args []string) (*attackDB, error) {
	if err := f.Validate(); isOption(err, "samples") {
		return nil, optionError(err)
	}
	if !isDBOutput(f.output) {
		if cmd.Flags().Changed("samples") {
			return nil, usagef("--samples keeps raw samples in a results database: give -o FILE.db too")
		}
		return nil, nil
	}
	db, err := store.Open(ctx, f.output)
	if err != nil {
		return nil, usagef("-o: %v", err)
	}
	imported, err := db.ImportPending(ctx)
	for _, im := range imported {
		fmt.Fprintf(cmd.ErrOrStderr(), "latlab: imported %d runs into %s from %s\n", len(im.Runs), f.output, im.File)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	spec := commandLine(cmd, args)
	return &attackDB{
		db:   db,
		path: f.output,
		exp: store.Experiment{
			Name:       "attack",
			Spec:       spec,
			SpecHash:   store.SpecHash(spec),
			Provenance: experiment.CollectProvenance(ctx, ".", latlabVersion(), 0),
		},
	}, nil
}

// write stores res as the experiment's one run, which started and ended
// at the given times (the warm-up included).
func (a *attackDB) write(ctx context.Context, res *record.Result, started, ended time.Time) error {
	// Stored even after Ctrl-C, as the partial result it is.
	ctx = context.WithoutCancel(ctx)
	info := store.RunInfo{
		Trial:     store.Trial{Variant: "attack", Level: record.Level{Rate: res.TargetRate, Concurrency: res.Concurrency}, Rep: 1},
		Position:  1,
		Status:    store.Done,
		StartedAt: started,
		EndedAt:   ended,
		Shards:    a.shards,
	}
	if res.Interrupted {
		info.Status, info.Error = store.Interrupted, "stopped before its end by a signal"
	}
	a.exp.CreatedAt = started
	exp, err := a.db.CreateExperiment(ctx, a.exp)
	if err == nil {
		_, err = a.db.WriteRun(ctx, exp.ID, info, res, nil, nil, nil)
	}
	if err != nil {
		// The load is spent: keep what it measured.
		side, serr := a.db.SavePending(ctx, a.exp, info, res, nil, nil, nil)
		if serr != nil {
			return fmt.Errorf("%w; keeping the run in a side file failed too: %w", err, serr)
		}
		return fmt.Errorf("%w; the run is kept in %s: the next latlab run or attack -o into %s imports it", err, side, a.path)
	}
	return nil
}

// close closes the database; its error matters only once the run is
// written. Closing again does nothing.
func (a *attackDB) close() error {
	if a.done {
		return nil
	}
	a.done = true
	return a.db.Close()
}

// commandLine returns the attack's command line, which is the
// experiment's spec: the URL and then every flag given, in the order
// given, each as --name value and quoted for a POSIX shell.
func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{"latlab", "attack"}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		name := "--" + fl.Name
		if fl.Value.Type() == "bool" {
			if fl.Value.String() == "true" {
				parts = append(parts, name)
			} else {
				parts = append(parts, name+"=false")
			}
			return
		}
		values := []string{fl.Value.String()}
		if s, ok := fl.Value.(pflag.SliceValue); ok {
			values = s.GetSlice()
		}
		for _, v := range values {
			parts = append(parts, name, shellQuote(v))
		}
	})
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell, unless it needs none.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// samplesHelp documents --samples beside -o FILE.db in attack's manual.
const samplesHelp = `With -o FILE.db the attack is stored in a results database (see latlab
ls), in the schema latlab run writes: an experiment named "attack" whose
spec is the command line, holding one run with its provenance, time series,
histograms and the first --samples requests raw (default 1000000, 40 MB of
memory during the run; 0 keeps none). Attacks into the same file add
experiments. The file is opened before the run and written after it; a run
that cannot be written is kept in a side file beside it (FILE.db.pending-*.db),
which the next attack -o or latlab run into the file imports.`
