package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/yamlfile"
)

// config turns the flags into an attack and a description of its target.
// Every error is a usage error naming the flag.
func (f *attackFlags) config(cmd *cobra.Command, args []string) (load.Config, string, error) {
	set := func(name string) bool { return cmd.Flags().Changed(name) }
	src, target, err := f.source(args)
	if err != nil {
		return load.Config{}, "", err
	}
	// -c and --arrivals are judged before how the flags combine; the
	// rates wait for --stages, under which a start of 0 is fine.
	if err := load.First(f.Validate()); isOption(err, "concurrency", "arrivals") {
		return load.Config{}, "", optionError(err)
	}
	if err := f.mode(set); err != nil {
		return load.Config{}, "", err
	}
	var given []string
	for _, name := range []string{"duration", "pool"} {
		if set(name) {
			given = append(given, name)
		}
	}
	err = load.First(f.Validate(given...))
	if err != nil && !isOption(err, "samples") { // --samples is judged with -o (see openDB)
		return load.Config{}, "", optionError(err)
	}
	f.Limit()
	rate, workers := level(f.Rates), level(f.Concurrency)
	switch f.Mode {
	case load.ModeOpen:
		f.MaxInFlight = workers // -c caps requests in flight
	case load.ModeClosed:
		workers = cmp.Or(workers, load.DefaultWorkers)
	}
	model, err := f.Model(rate, workers)
	if err != nil {
		return load.Config{}, "", usageError{err}
	}
	cfg, err := f.Config(src, model)
	if err != nil {
		return load.Config{}, "", usageError{err}
	}
	if !isDBOutput(f.output) {
		cfg.KeepRaw = 0 // raw samples are kept in a results database only
	}
	if err := f.conflicts(set, cfg); err != nil {
		return cfg, "", err
	}
	switch f.format {
	case "text", "json":
	default:
		return cfg, "", usagef("--format: want text or json, got %q", f.format)
	}
	if f.output != "" {
		switch strings.ToLower(filepath.Ext(f.output)) {
		case ".json", ".hlog", ".db":
		default:
			return cfg, "", usagef("-o: want a file ending in .json, .hlog or .db, got %q", f.output)
		}
	}
	return cfg, target, nil
}

// isOption reports whether err is a *load.OptionError about one of options.
func isOption(err error, options ...string) bool {
	var oe *load.OptionError
	return errors.As(err, &oe) && slices.Contains(options, oe.Option)
}

// optionError returns err, an error of load.Settings.Validate, as a usage
// error naming the flag.
func optionError(err error) error {
	var oe *load.OptionError
	switch {
	case errors.As(err, &oe) && oe.Option == "h2c":
		return usagef("give --http2 (over TLS) or --h2c (cleartext), not both")
	case errors.As(err, &oe):
		return usagef("%s: %s", optionFlag(oe.Option), oe.Text(refFlag))
	}
	return usageError{err}
}

// refFlag spells the flag of an option a load.OptionError refers to:
// --sequential for sequential mode, and the flag and its value for
// another option's value.
func refFlag(r load.Ref) string {
	switch {
	case r.Option == "mode":
		return "--" + r.Value
	case r.Value != "":
		return optionFlag(r.Option) + " " + r.Value
	}
	return optionFlag(r.Option)
}

// optionFlag spells the flag of a load.Settings option, named by its spec
// key.
func optionFlag(option string) string {
	switch option {
	case "rates":
		return "-r"
	case "concurrency":
		return "-c"
	case "requests":
		return "-n"
	case "duration":
		return "-d"
	case "method":
		return "-m"
	case "import_paths":
		return "--import-path"
	}
	return "--" + strings.ReplaceAll(option, "_", "-")
}

// source builds the requests from the URL, --targets or --scenario.
func (f *attackFlags) source(args []string) (load.Source, string, error) {
	given := 0
	for _, b := range []bool{len(args) == 1, f.Targets != "", f.Scenario != ""} {
		if b {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, "", usagef("give a URL, --targets FILE or --scenario FILE")
	case given > 1:
		return nil, "", usagef("give only one of a URL, --targets and --scenario")
	case f.Targets != "":
		reqs, err := load.ReadTargets(f.Targets)
		if err != nil {
			return nil, "", usageError{err}
		}
		return load.Static(reqs), fmt.Sprintf("%d targets from %s", len(reqs), f.Targets), nil
	case f.Scenario != "":
		sc, err := load.ReadScenario(f.Scenario)
		if err != nil {
			return nil, "", usageError{err}
		}
		return sc, fmt.Sprintf("scenario %s (%s)", f.Scenario, strings.Join(sc.Names(), ", ")), nil
	}
	u, msg := yamlfile.ParseTarget(args[0])
	if msg != "" {
		return nil, "", usagef("URL: %s", msg)
	}
	for _, p := range load.Problems(f.Validate()) {
		if p.Option == "method" {
			return nil, "", optionError(p)
		}
	}
	f.Method = strings.ToUpper(f.Method)
	req := f.Request(u)
	for _, h := range f.headers { // repeatable, unlike a spec's headers
		k, v, ok := strings.Cut(h, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
			return nil, "", usagef("-H %q: want 'Name: value'", h)
		}
		if strings.EqualFold(k, "Host") {
			req.Host = strings.TrimSpace(v)
			continue
		}
		req.Header.Add(k, strings.TrimSpace(v))
	}
	switch {
	case f.Body != "" && f.BodyFile != "":
		return nil, "", usagef("give -b or --body-file, not both")
	case f.BodyFile != "":
		b, err := os.ReadFile(f.BodyFile)
		if err != nil {
			return nil, "", usagef("--body-file: %v", err)
		}
		req.Body = b
	}
	if u.Scheme == "grpc" || u.Scheme == "grpcs" {
		return load.Static{req}, "gRPC " + u.String(), nil
	}
	return load.Static{req}, req.Method + " " + u.String(), nil
}

// mode picks the load model from -r, --stages, -c, --ramp and
// --sequential, and reads --stages and --ramp.
func (f *attackFlags) mode(set func(string) bool) error {
	open := set("rate") || f.stages != ""
	if set("pool") && !open {
		return usagef("--pool opens the connections of an open loop: give -r or --stages too")
	}
	if set("realtime") && !open {
		return usagef("--realtime runs an open loop's event loops: give -r or --stages too")
	}
	if set("arrivals") && !open {
		switch f.Arrivals {
		case load.ConstantArrivals, load.PoissonArrivals:
			return usagef("--arrivals shapes an open loop: give -r or --stages too")
		}
	}
	switch {
	case f.sequential && (open || f.ramp != "" || set("concurrency")):
		return usagef("--sequential sends one request at a time: drop -r, --stages, --ramp and -c")
	case f.ramp != "" && open:
		return usagef("--ramp is a closed loop: drop -r and --stages")
	case f.sequential:
		f.Mode = load.ModeSequential
	case f.ramp != "":
		if !set("concurrency") {
			return usagef("--ramp needs -c, the number of workers to ramp up to")
		}
		burst, every, err := load.ParseRamp(f.ramp)
		if err != nil {
			return usagef("--ramp %q: %v", f.ramp, err)
		}
		f.Mode, f.Ramp = load.ModeRamp, &load.RampStep{Burst: burst, Every: every}
	case open:
		f.Mode = load.ModeOpen
		if f.stages != "" {
			st, err := load.ParseStages(f.stages)
			if err != nil {
				return usagef("--stages: %v", err)
			}
			f.Stages = st
		}
	default:
		f.Mode = load.ModeClosed
	}
	return nil
}
