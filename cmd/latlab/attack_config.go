package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
)

// config turns the flags into an attack and a description of its target.
// Every error is a usage error naming the flag.
func (f *attackFlags) config(cmd *cobra.Command, args []string) (load.Config, string, error) {
	var cfg load.Config
	set := func(name string) bool { return cmd.Flags().Changed(name) }

	src, target, err := f.source(args)
	if err != nil {
		return cfg, "", err
	}
	cfg.Source = src

	model, err := f.model(set)
	if err != nil {
		return cfg, "", err
	}
	cfg.Model = model

	if f.requests < 0 {
		return cfg, "", usagef("-n: want a positive number of requests, got %d", f.requests)
	}
	if set("duration") && f.duration <= 0 {
		return cfg, "", usagef("-d: want a positive duration, got %s", f.duration)
	}
	cfg.Count, cfg.Duration = f.requests, f.duration
	if !set("duration") && f.requests == 0 && f.stages == "" { // stages end the run by themselves
		cfg.Duration = 10 * time.Second
	}
	if f.warmup < 0 {
		return cfg, "", usagef("--warmup: want a positive duration, got %s", f.warmup)
	}
	cfg.Warmup = f.warmup
	if f.interval <= 0 {
		return cfg, "", usagef("--interval: want a positive duration, got %s", f.interval)
	}
	cfg.Interval = f.interval
	if f.success != "" {
		codes, err := record.ParseCodeSet(f.success)
		if err != nil {
			return cfg, "", usagef("--success: %v", err)
		}
		cfg.Success = &codes
	}
	if cfg.Transport, err = f.transport(model); err != nil {
		return cfg, "", err
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

// source builds the requests from the URL, --targets or --scenario.
func (f *attackFlags) source(args []string) (load.Source, string, error) {
	given := 0
	for _, b := range []bool{len(args) == 1, f.targets != "", f.scenario != ""} {
		if b {
			given++
		}
	}
	switch {
	case given == 0:
		return nil, "", usagef("give a URL, --targets FILE or --scenario FILE")
	case given > 1:
		return nil, "", usagef("give only one of a URL, --targets and --scenario")
	case f.targets != "":
		reqs, err := load.ReadTargets(f.targets)
		if err != nil {
			return nil, "", usageError{err}
		}
		return load.Static(reqs), fmt.Sprintf("%d targets from %s", len(reqs), f.targets), nil
	case f.scenario != "":
		sc, err := load.ReadScenario(f.scenario)
		if err != nil {
			return nil, "", usageError{err}
		}
		return sc, fmt.Sprintf("scenario %s (%s)", f.scenario, strings.Join(sc.Names(), ", ")), nil
	}
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", usagef("URL %q: want an absolute http:// or https:// URL", args[0])
	}
	req := &load.Request{Method: strings.ToUpper(f.method), URL: u, Header: http.Header{}}
	if req.Method == "" || strings.ContainsAny(req.Method, " \t\r\n:/") {
		return nil, "", usagef("-m: %q is not an HTTP method", f.method)
	}
	for _, h := range f.headers {
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
	case f.body != "" && f.bodyFile != "":
		return nil, "", usagef("give -b or --body-file, not both")
	case f.body != "":
		req.Body = []byte(f.body)
	case f.bodyFile != "":
		b, err := os.ReadFile(f.bodyFile)
		if err != nil {
			return nil, "", usagef("--body-file: %v", err)
		}
		req.Body = b
	}
	return load.Static{req}, req.Method + " " + u.String(), nil
}

// model picks the load model from -r, --stages, -c, --ramp, --sequential.
func (f *attackFlags) model(set func(string) bool) (load.Model, error) {
	if f.rate < 0 {
		return nil, usagef("-r: want a positive rate, got %g", f.rate)
	}
	if set("concurrency") && f.concurrency < 1 {
		return nil, usagef("-c: want at least 1, got %d", f.concurrency)
	}
	open := set("rate") || f.stages != ""
	switch f.arrivals {
	case "constant", "poisson":
	default:
		return nil, usagef("--arrivals: want constant or poisson, got %q", f.arrivals)
	}
	if set("arrivals") && !open {
		return nil, usagef("--arrivals shapes an open loop: give -r or --stages too")
	}
	switch {
	case f.sequential && (open || f.ramp != "" || set("concurrency")):
		return nil, usagef("--sequential sends one request at a time: drop -r, --stages, --ramp and -c")
	case f.ramp != "" && open:
		return nil, usagef("--ramp is a closed loop: drop -r and --stages")
	case f.sequential:
		return load.Sequential{}, nil
	case f.ramp != "":
		if !set("concurrency") {
			return nil, usagef("--ramp needs -c, the number of workers to ramp up to")
		}
		burst, every, err := load.ParseRamp(f.ramp)
		if err != nil {
			return nil, usagef("--ramp %q: %v", f.ramp, err)
		}
		return load.Ramp{Workers: f.concurrency, Burst: burst, Every: every}, nil
	case open:
		var p load.Pacer = load.Constant{Rate: f.rate}
		if f.stages != "" {
			st, err := load.ParseStages(f.stages)
			if err != nil {
				return nil, usagef("--stages: %v", err)
			}
			p = load.Stages{Start: f.rate, Steps: st}
		} else if f.rate == 0 {
			return nil, usagef("-r: want a positive rate, got 0")
		}
		if f.arrivals == "poisson" {
			p = &load.Poisson{Of: p, Seed: f.seed}
		}
		return load.Open{Pacer: p, MaxInFlight: f.concurrency}, nil
	}
	c := f.concurrency
	if c == 0 {
		c = 50
	}
	return load.Closed{Workers: c}, nil
}

// transport builds the transport options.
func (f *attackFlags) transport(model load.Model) (load.Options, error) {
	o := load.Options{
		Timeout:     f.timeout,
		NoKeepAlive: f.noKeepAlive,
		Connections: f.connections,
		HTTP2:       f.http2,
		H2C:         f.h2c,
		Streams:     f.streams,
		UnixSocket:  f.unixSocket,
	}
	if f.timeout <= 0 {
		return o, usagef("--timeout: want a positive duration, got %s", f.timeout)
	}
	if f.connections < 0 {
		return o, usagef("--connections: want at least 1, got %d", f.connections)
	}
	if f.streams < 1 {
		return o, usagef("--streams: want at least 1, got %d", f.streams)
	}
	if f.http2 && f.h2c {
		return o, usagef("give --http2 (over TLS) or --h2c (cleartext), not both")
	}
	switch f.client {
	case "lean":
	case "nethttp":
		o.NetHTTP = true
	default:
		return o, usagef("--client: want lean or nethttp, got %q", f.client)
	}
	cfg, err := f.tls.Config()
	if err != nil {
		return o, usageError{err}
	}
	o.TLS = cfg
	return o, nil
}
