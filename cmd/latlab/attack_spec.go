package main

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/spec"
)

// The names of an attack run from a pod as an experiment: its spec's
// file, the experiment and its one variant, which label the pod.
const (
	podSpecFile   = "latlab-attack.yaml"
	podExperiment = "attack"
)

// podSpec returns the spec of the experiment that the attack cfg, which
// config built from the flags, is, and the one trial of it to run: one
// variant whose target is the URL (or the scheme and host that every
// request of --targets or --scenario goes to), and a load on a cluster
// with every option of the flags. The files the flags name are named
// relative to dir, the spec's folder. An agent building the trial's loads
// from the spec (Spec.WarmupFor and Spec.LoadFor) builds cfg, but for the
// warm-up, which the agent runs before the measured load on the same
// connections, as an experiment's trial does.
//
// The Poisson arrivals of an experiment's trial are seeded by its place
// in the plan: the trial is placed at --seed.
func (f *attackFlags) podSpec(cfg load.Config, args []string, dir string) ([]byte, spec.Trial, error) {
	t := spec.Trial{Variant: podExperiment, Rep: 1, Position: 1}
	if f.Arrivals == load.PoissonArrivals {
		if f.Seed > math.MaxInt {
			return nil, t, usagef("--seed: want at most %d with --kubernetes or --shards, got %d", math.MaxInt, f.Seed)
		}
		t.Position = int(f.Seed)
	}
	target, err := podTarget(cfg.Source, args, f.Targets, f.Scenario)
	if err != nil {
		return nil, t, err
	}
	// The pod's fields first: a problem of theirs is reported first.
	// Local shards run the same trial here.
	ld := &spec.Map{}
	if f.pod.on {
		ld.Add("image", f.pod.image)
		if f.pod.namespace != "" {
			ld.Add("namespace", f.pod.namespace)
		}
		if err := f.pod.place.add(ld); err != nil {
			return nil, t, err
		}
		ld.Add("on", spec.OnKubernetes)
	}
	ld.Add("mode", string(f.Mode))
	switch m := cfg.Model.(type) {
	case load.Open:
		t.Rate = level(f.Rates)
		ld.Add("rates", []float64{t.Rate})
	case load.Closed:
		t.Concurrency = m.Workers
		ld.Add("concurrency", []int{m.Workers})
	case load.Ramp:
		t.Concurrency = m.Workers
		ld.Add("concurrency", []int{m.Workers})
		ld.Add("ramp", (&spec.Map{}).Add("burst", m.Burst).Add("every", m.Every))
	case load.Sequential:
		t.Concurrency = 1
	}
	if err := spec.AddOptions(ld, &f.Settings, podWritten); err != nil {
		return nil, t, err
	}
	headers, err := f.podHeaders()
	if err != nil {
		return nil, t, err
	}
	if headers != nil {
		ld.Add("headers", headers)
	}
	if err := f.podFiles(ld, dir); err != nil {
		return nil, t, err
	}
	doc := (&spec.Map{}).Add("version", 1).Add("name", podExperiment).
		Add("variants", []*spec.Map{(&spec.Map{}).Add("name", podExperiment).Add("target", target)}).
		Add("load", ld)
	if f.Warmup > 0 {
		doc.Add("warmup", (&spec.Map{}).Add("duration", f.Warmup))
	}
	text, err := doc.Bytes()
	if err != nil {
		return nil, t, fmt.Errorf("writing the spec of the attack: %w", err)
	}
	return text, t, nil
}

// podFiles writes the files the flags name into ld, each by its path
// from dir, the spec's folder.
func (f *attackFlags) podFiles(ld *spec.Map, dir string) error {
	for _, file := range []struct {
		key   string
		paths []string
	}{
		{"body_file", []string{f.BodyFile}}, {"targets", []string{f.Targets}}, {"scenario", []string{f.Scenario}},
		{"cacert", []string{f.CACert}}, {"proto", f.Proto}, {"import_paths", f.ImportPaths},
	} {
		var rels []string
		for _, p := range file.paths {
			if p == "" {
				continue
			}
			rel, err := spec.RelPath(dir, p)
			if err != nil {
				return usagef("%s: %v", optionFlag(file.key), err)
			}
			rels = append(rels, rel)
		}
		switch {
		case len(rels) == 0:
		case file.key == "proto" || file.key == "import_paths": // lists
			ld.Add(file.key, rels)
		default:
			ld.Add(file.key, rels[0])
		}
	}
	return nil
}

// podWritten are the options of load.Settings that podSpec writes itself
// rather than as spec.AddOptions does: the mode and its levels, what a spec
// says otherwise than the flags (the headers, the files by their path
// from the spec), and the path, which the URL holds.
var podWritten = []string{"mode", "rates", "concurrency", "ramp", "headers", "body_file", "targets", "scenario", "cacert", "path", "proto", "import_paths"}

// podHeaders returns the -H headers as a spec's headers: by name, in
// the order given, with Host among them. A spec holds one value per
// name, so a name given twice is refused.
func (f *attackFlags) podHeaders() (*spec.Map, error) {
	if len(f.headers) == 0 {
		return nil, nil
	}
	h := &spec.Map{}
	seen := map[string]bool{}
	for _, line := range f.headers {
		k, v, _ := strings.Cut(line, ":") // checked by source
		k, v = http.CanonicalHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v)
		if seen[k] {
			return nil, usagef("-H %q: %s is given twice, and a pod's requests carry one value per header: join the values with a comma", line, k)
		}
		seen[k] = true
		if k == "Host" && v == "" {
			continue // the URL's host, as without it
		}
		h.Add(k, v)
	}
	return h, nil
}

// podTarget returns the URL of the variant a pod sends the requests of
// src to: the URL given, or the scheme and host that every request of the
// targets or scenario file goes to, since a spec sends those to its
// variant's scheme and host. A file whose requests go to more than one,
// or carry user information, is refused.
func podTarget(src load.Source, args []string, targets, scenario string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	flag, file := "--targets", targets
	if scenario != "" {
		flag, file = "--scenario", scenario
	}
	var reqs []*load.Request
	if static, ok := src.(load.Static); ok {
		reqs = static
	} else {
		for i := range src.Steps() {
			r, err := src.Request(i, load.Vars{})
			if err != nil {
				return "", usagef("%s %s: %v", flag, file, err)
			}
			reqs = append(reqs, r)
		}
	}
	base := ""
	for _, r := range reqs {
		if r.URL.User != nil {
			return "", usagef("%s %s: %s has user information, which an attack from a pod does not send: give an Authorization header", flag, file, r.URL.Redacted())
		}
		u := (&url.URL{Scheme: r.URL.Scheme, Host: r.URL.Host, Path: "/"}).String()
		switch {
		case base == "":
			base = u
		case u != base:
			return "", usagef("%s %s: its requests go to %s and to %s; with --kubernetes they must all go to one scheme and host", flag, file, base, u)
		}
	}
	return base, nil
}

// podSpecError returns err, an error of the spec podSpec wrote, its
// bundle or the loads built from it, as a usage error naming the flag
// behind the field of the spec it names. A problem of a file the spec
// names (a targets or scenario file) names that file.
func podSpecError(err error) error {
	var se *spec.SyntaxError
	if errors.As(err, &se) && se.File == podSpecFile {
		return usagef("%s: %s", specFlag(se.Field), se.Msg)
	}
	if errors.As(err, &se) {
		return usageError{se}
	}
	return usagef("--kubernetes: %v", err)
}

// specFlag returns the flag behind a field of the spec podSpec wrote,
// such as load.headers.X-Id.
func specFlag(field string) string {
	switch {
	case strings.HasPrefix(field, "variants"):
		return "the URL"
	case strings.HasPrefix(field, "warmup"):
		return "--warmup"
	case !strings.HasPrefix(field, "load."):
		return "--kubernetes"
	}
	key := strings.TrimPrefix(field, "load.")
	switch {
	case strings.HasPrefix(key, "tolerations"):
		return "--toleration"
	case strings.HasPrefix(key, "resources.limits"):
		return "--pod-limits"
	case strings.HasPrefix(key, "resources"):
		return "--pod-requests"
	}
	if i := strings.IndexAny(key, ".["); i >= 0 {
		key = key[:i]
	}
	if fl := requestFlag(key); fl != "" {
		return flagName(fl)
	}
	return optionFlag(key)
}
