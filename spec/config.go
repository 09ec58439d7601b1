package spec

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/yamlfile"
)

// LoadFor returns the load of trial t: its variant's load at t's rate or
// concurrency, for the spec's duration or request count, without warm-up.
// entry is the base URL of a graph variant's entry service, such as
// http://127.0.0.1:41234, known once the graph is up; target variants
// ignore it. The requests of a targets or scenario file go to the
// variant: their scheme and host become the target's or the entry's.
//
// Every call builds new requests, so that configurations of concurrent
// attacks share nothing that load.Attack writes.
func (s *Spec) LoadFor(t Trial, entry string) (load.Config, error) {
	v := s.Variant(t.Variant)
	if v == nil {
		return load.Config{}, fmt.Errorf("trial %d: no variant called %q", t.Position, t.Variant)
	}
	l := &v.Load
	base, err := v.baseURL(entry)
	if err != nil {
		return load.Config{}, err
	}
	model, err := l.model(t)
	if err != nil {
		return load.Config{}, fmt.Errorf("trial %d: %w", t.Position, err)
	}
	return l.Settings().Config(l.source(base), model)
}

// WarmupFor returns the warm-up of trial t and true, or false when the spec
// has none: the trial's load (see LoadFor) for the warm-up's duration, at
// its share of the trial's rate or concurrency, or at its rate in open
// loop whatever the trial's mode.
func (s *Spec) WarmupFor(t Trial, entry string) (load.Config, bool, error) {
	w := s.Warmup
	if w == nil {
		return load.Config{}, false, nil
	}
	cfg, err := s.LoadFor(t, entry)
	if err != nil {
		return load.Config{}, false, err
	}
	cfg.Duration, cfg.Count = w.Duration, 0
	l := &s.Variant(t.Variant).Load
	switch {
	case w.Rate > 0:
		cfg.Model = load.Open{Pacer: l.pacer(w.Rate, t), MaxInFlight: l.MaxInFlight}
	case w.Share == 1:
	case l.Mode == Open:
		cfg.Model = load.Open{Pacer: l.pacer(t.Rate*w.Share, t), MaxInFlight: l.MaxInFlight}
	case l.Mode == Closed:
		cfg.Model = load.Closed{Workers: share(t.Concurrency, w.Share)}
	case l.Mode == Ramp:
		m := cfg.Model.(load.Ramp)
		m.Workers = share(t.Concurrency, w.Share)
		cfg.Model = m
	}
	return cfg, true, nil
}

// share returns the workers that are share of n, at least 1.
func share(n int, share float64) int {
	return max(1, int(math.Round(float64(n)*share)))
}

// Config returns the load of sl for d: GET requests to its target, open
// loop at its rate.
func (sl Sideload) Config(d time.Duration) (load.Config, error) {
	u, err := url.Parse(sl.Target)
	if err != nil {
		return load.Config{}, fmt.Errorf("sideload %s: %w", sl.Target, err)
	}
	return load.Config{
		Source:   load.Static{{Method: http.MethodGet, URL: u, Header: http.Header{}}},
		Model:    load.Open{Pacer: load.Constant{Rate: sl.Rate}},
		Duration: d,
	}, nil
}

// baseURL returns the URL v's requests go to before the load's path.
func (v *Variant) baseURL(entry string) (*url.URL, error) {
	if v.Target != "" {
		return url.Parse(v.Target)
	}
	if _, msg := yamlfile.ParseTarget(entry); msg != "" {
		return nil, fmt.Errorf("variant %s runs a graph: the URL of its entry: %s", v.Name, msg)
	}
	u, _ := url.Parse(entry)
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// model returns the load model of t under l: at its rate or concurrency,
// with Poisson arrivals seeded by t's place in the plan.
func (l *Load) model(t Trial) (load.Model, error) {
	return l.seeded(t).Model(t.Rate, t.Concurrency)
}

// pacer returns the open-loop schedule of rate: constant, or Poisson
// arrivals seeded by t's place in the plan.
func (l *Load) pacer(rate float64, t Trial) load.Pacer {
	return l.seeded(t).Pacer(rate)
}

// seeded returns l's settings with the seed of t's Poisson arrivals.
func (l *Load) seeded(t Trial) *load.Settings {
	s := *l.Settings()
	s.Seed = uint64(t.Position)
	return &s
}
