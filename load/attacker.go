package load

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/latlab/latlab/record"
)

// An Attacker runs the phases of one attack on one transport and one set
// of connections: warm-ups, then the measured load. The connections a
// warm-up opened carry the measured load, so that it starts as warm as
// the warm-up left them, wherever the two run (one process, a shard, a
// pod) and however long the caller waits between them. Its methods are
// called one at a time.
type Attacker struct {
	cfg   Config // split for its shard
	model Model  // the measured load's, as it runs
	tr    Transport
	eng   *engine // the open loop's event loops; nil runs it on goroutines
}

// NewAttacker checks cfg, readies its transport and, for an open loop on
// event loops, opens its pool of connections. cfg.Warmup is left to the
// caller: Warm runs a warm-up.
func NewAttacker(cfg Config) (*Attacker, error) {
	if cfg.Source == nil || len(cfg.Source.Steps()) == 0 {
		return nil, errors.New("attack: no requests to send")
	}
	if err := checkModel(cfg.Model); err != nil {
		return nil, err
	}
	cfg, err := split(cfg)
	if err != nil {
		return nil, fmt.Errorf("attack: %w", err)
	}
	if err := Check(cfg.Source, cfg.Transport, TLSFiles{}); err != nil {
		return nil, err
	}
	if cfg.Duration <= 0 && cfg.Count <= 0 {
		if o, ok := cfg.Model.(Open); !ok || !ends(o.Pacer) {
			return nil, errors.New("attack: give a duration or a request count")
		}
	}
	if cfg.Realtime == RealtimeOn {
		if err := CheckRealtime(); err != nil {
			return nil, fmt.Errorf("attack: %w", err)
		}
	}
	a := &Attacker{cfg: cfg, model: cfg.Model}
	if _, ok := a.model.(Sequential); ok {
		a.cfg.Transport.Connections = 1
		a.model = Closed{Workers: 1}
	}
	if a.tr, err = NewTransport(a.cfg.Transport); err != nil {
		return nil, err
	}
	if static, ok := cfg.Source.(Static); ok {
		// The attack prepares copies of its own: attacks that share the
		// requests, such as the shards of one load, may run at once.
		own := make(Static, len(static))
		for i, r := range static {
			c := *r
			if !isRPC(c.URL) {
				prepare(&c, a.cfg.Transport)
			}
			own[i] = &c
		}
		a.cfg.Source = own
	}
	if err := a.calls(); err != nil {
		a.tr.Close()
		return nil, err
	}
	if eventLoops(&a.cfg, a.model, a.cfg.Transport) {
		if a.eng, err = newEngine(&a.cfg, a.model, a.cfg.Transport); err != nil {
			a.tr.Close()
			return nil, err
		}
	}
	return a, nil
}

// Close closes the attacker's connections.
func (a *Attacker) Close() {
	if a.eng != nil {
		a.eng.close()
	}
	a.tr.Close()
}

// Warm runs a warm-up of m (nil: the measured load's model) for d and
// returns what it measured, which is never part of the measured result.
// An open loop's m is split for the attack's shard as the measured load
// is. started, when set, is called with the warm-up's recorder as it
// starts. The connections it opens stay for the measured load; an
// interrupted warm-up returns what it measured, and Run then measures
// nothing.
func (a *Attacker) Warm(ctx context.Context, m Model, d time.Duration, started func(*record.Recorder)) (*record.Result, error) {
	if d <= 0 {
		return nil, errors.New("warm-up: give a duration")
	}
	if m == nil {
		m = a.model
	}
	if err := checkModel(m); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	m, err := a.cfg.Shard.model(m)
	if err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	if _, ok := m.(Sequential); ok {
		m = Closed{Workers: 1}
	}
	w := a.cfg
	w.Model, w.Duration, w.Count, w.KeepRaw = m, d, 0, 0 // raw samples are of the measurement only
	eng := a.eng
	if eng != nil && !eng.runs(m) {
		eng = nil
	}
	return newRunner(ctx, &w, a.tr, eng, d, 0).run(m, started), nil
}

// Run runs the measured load and returns what it measured; the result is
// marked Interrupted when ctx ended first, and is empty when ctx had
// ended before. The load starts once ready, or at at when that is later:
// shards that agreed on an instant start on it to the microsecond,
// readied before it. started, when set, is called with its recorder as it
// starts (Attack passes Config.Started).
func (a *Attacker) Run(ctx context.Context, at time.Time, started func(*record.Recorder)) *record.Result {
	cfg := &a.cfg
	var res *record.Result
	if ctx.Err() != nil { // interrupted while warming up
		res = record.NewRecorder(time.Now(), record.Config{Interval: cfg.Interval, Steps: stepNames(cfg.Source)}).Stop()
	} else {
		if a.eng != nil {
			a.eng.settle(cfg.Source)
		}
		r := newRunner(ctx, cfg, a.tr, a.eng, cfg.Duration, cfg.Count)
		r.at = at
		res = r.run(a.model, started)
	}
	res.Interrupted = ctx.Err() != nil
	if a.eng != nil {
		res.Pool = a.eng.preopened()
		res.Threads = a.eng.threads()
	}
	res.Mode = modeName(cfg.Model)
	switch m := a.model.(type) {
	case Open:
		res.TargetRate = m.Pacer.Mean()
		res.Concurrency = m.MaxInFlight
		if res.Concurrency == 0 {
			res.Concurrency = DefaultMaxInFlight
		}
	case Closed:
		res.Concurrency = int(cfg.Shard.Share(int64(m.Workers)))
	case Ramp:
		res.Concurrency = int(cfg.Shard.Share(int64(m.Workers)))
		res.HoldFrom = m.Hold()
	}
	return res
}

// calls readies the attack's gRPC calls, when it has any: a transport that
// carries them beside HTTP, and each call's method and message, resolved
// and encoded before the load so that a wrong one is named now. A
// scenario's steps are checked as they build for the first iteration.
func (a *Attacker) calls() error {
	reqs := sample(a.cfg.Source)
	if !slices.ContainsFunc(reqs, func(r *Request) bool { return isRPC(r.URL) }) {
		return nil
	}
	rt, err := newRPC(a.cfg.Transport, a.tr)
	if err != nil {
		return err
	}
	a.tr = rt
	for _, r := range reqs {
		if !isRPC(r.URL) {
			continue
		}
		if _, static := a.cfg.Source.(Static); !static {
			c := *r // a scenario's own request, encoded again each time it is built
			r = &c
		}
		if err := rt.prepare(r); err != nil {
			return fmt.Errorf("%s: %w", r.URL.Redacted(), err)
		}
	}
	return nil
}
