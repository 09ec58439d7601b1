package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"sync"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
)

// AgentState is where an agent's trial is.
type AgentState string

// The states of an agent's trial, in order.
const (
	AgentIdle      AgentState = "idle"      // no trial posted yet
	AgentWarming   AgentState = "warming"   // the warm-up runs
	AgentWaiting   AgentState = "waiting"   // for the bundle's start_at
	AgentMeasuring AgentState = "measuring" // the measured load runs
	AgentDone      AgentState = "done"      // the result is ready, or the error
)

// AgentStatus is what an agent says of its latest trial (GET /trial).
type AgentStatus struct {
	State          AgentState     `json:"state"`
	Variant        string         `json:"variant,omitempty"`
	Level          string         `json:"level,omitempty"` // such as 100/s or c=8
	Rep            int            `json:"rep,omitempty"`
	Position       int            `json:"position,omitempty"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`        // since the trial was posted, until it was done
	Stopping       bool           `json:"stopping,omitempty"`     // told to stop, it drains
	Progress       *AgentProgress `json:"progress,omitempty"`     // of the warm-up or measured load under way
	Error          string         `json:"error,omitempty"`        // why a done trial failed
	ResultMedia    string         `json:"result_media,omitempty"` // the media type of GET /result's parts warmup and measure, once done
	PointsMedia    string         `json:"points_media,omitempty"` // the media type of GET /result's part points, once done
}

// AgentProgress is how far the load under way is: its recorder's live
// figures (record.Progress), counted from its start.
type AgentProgress struct {
	Phase          string   `json:"phase"` // warmup or measure
	ElapsedSeconds float64  `json:"elapsed_seconds"`
	Sent           int64    `json:"sent"`
	Completed      int64    `json:"completed"` // in closed intervals
	Errors         int64    `json:"errors"`
	Failed         int64    `json:"failed"` // errors and unsuccessful responses
	InFlight       int64    `json:"in_flight"`
	RatePerSecond  float64  `json:"rate_per_second"`       // sent in the last interval
	P99Seconds     *float64 `json:"p99_seconds,omitempty"` // latency; absent with too few samples
}

// Measuring returns the figures of the measured load under way, as its
// recorder gave them, or false when there is none: before it, during the
// warm-up, and once the trial is done.
func (st AgentStatus) Measuring() (record.Progress, bool) {
	ap := st.Progress
	if ap == nil || ap.Phase != partMeasure {
		return record.Progress{}, false
	}
	p := record.Progress{Elapsed: time.Duration(ap.ElapsedSeconds * float64(time.Second)), Sent: ap.Sent, Completed: ap.Completed,
		Errors: ap.Errors, Failed: ap.Failed, InFlight: ap.InFlight, Rate: ap.RatePerSecond}
	if ap.P99Seconds != nil {
		p.P99, p.P99OK = time.Duration(*ap.P99Seconds*float64(time.Second)), true
	}
	return p, true
}

// ResultMedia is the media type of a result's encoding (see
// record.EncodeResult).
const ResultMedia = "application/vnd.latlab.result"

// The names of GET /result's parts.
const (
	partWarmup  = "warmup"
	partMeasure = "measure"
	partPoints  = "points"
	partError   = "error"
)

// agentTrial is a trial an agent runs.
type agentTrial struct {
	t       spec.Trial
	startAt time.Time
	posted  time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed once warm, res, points and err are final

	receiver   *probe.TraceReceiver // the agent's, nil without one
	wantTraces bool                 // the spec asks for traces

	mu       sync.Mutex
	state    AgentState
	stopping bool
	phase    string           // of rec
	rec      *record.Recorder // of the load under way
	ended    time.Time
	warm     *record.Result
	res      *record.Result
	points   []probe.Point // offsets from res.Start
	err      error
}

// startTrial opens b in a folder of its own, builds its loads and starts
// them under ctx, with rcv, nil or the agent's trace receiver, for its
// trace points. The folder is gone when it returns: the loads have read
// errStopped ends a trial stopped by its context: the controller asked,
// or the agent is shutting down.
var errStopped = errors.New("interrupted")

// every file they need.
func startTrial(ctx context.Context, b *Bundle, rcv *probe.TraceReceiver) (*agentTrial, error) {
	dir, err := os.MkdirTemp("", "latlab-agent-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	s, err := b.open(dir)
	if err != nil {
		return nil, err
	}
	warm, cfg, err := b.loads(s)
	if err != nil {
		return nil, err
	}
	cfg.Realtime = agentRealtime(cfg.Realtime)
	ctx, cancel := context.WithCancel(ctx)
	tr := &agentTrial{t: b.Trial, startAt: b.StartAt, posted: time.Now(), cancel: cancel, done: make(chan struct{}), state: AgentMeasuring,
		receiver: rcv, wantTraces: s.Probes.Traces}
	if warm != nil {
		tr.state = AgentWarming
	}
	go tr.run(ctx, warm, cfg)
	return tr, nil
}

// agentRealtime returns when an agent's loops run real-time: always
// when the spec asks realtime: true, else never, realtime: auto (the
// default) included. An agent is one of several
// generators, on one machine (local shards) or on a node beside others:
// each loop bounds what it takes as a real-time thread (load.RealtimeAuto),
// but nothing bounds what several processes' loops take together, and in
// bursts they would keep the target and their own runtimes from a CPU:
// beside stress-ng --cpu 2, four local shards with real-time loops read
// latency p99 at 2.3 and 9.6 times the target's in two runs of three, on the
// fair scheduler within 6%.
func agentRealtime(asked load.Realtime) load.Realtime {
	if asked == load.RealtimeOn {
		return asked
	}
	return load.RealtimeOff
}

// run runs the trial and keeps its outcome.
func (tr *agentTrial) run(ctx context.Context, warm *load.Config, cfg load.Config) {
	defer close(tr.done)
	defer tr.cancel()
	w, res, points, err := tr.attack(ctx, warm, cfg)
	tr.mu.Lock()
	tr.warm, tr.res, tr.points, tr.err = w, res, points, err
	tr.state, tr.rec, tr.ended = AgentDone, nil, time.Now()
	tr.mu.Unlock()
}

// readyBefore is how long before a shard's common start its agent
// readies the measured load: the recorder, whose raw samples alone take
// tens of milliseconds to allocate, and the loops.
const readyBefore = 100 * time.Millisecond

// attack runs the warm-up, waits for the start, runs the measured load
// and collects its trace points, as Runner.trial does.
func (tr *agentTrial) attack(ctx context.Context, warm *load.Config, cfg load.Config) (w, res *record.Result, points []probe.Point, err error) {
	a, err := load.NewAttacker(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	defer a.Close()
	if warm != nil {
		// The warm-up runs on the connections the measured load then
		// takes, as one process's attack does.
		tr.enter(AgentWarming)
		if w, err = a.Warm(ctx, warm.Model, warm.Duration, tr.started("warmup")); err != nil {
			return nil, nil, nil, err
		}
		if ctx.Err() != nil {
			return w, nil, nil, errStopped
		}
	}
	if !tr.startAt.IsZero() {
		// Wait for the common start, less the time to ready the measured
		// load: Run readies it and starts it on the instant.
		tr.enter(AgentWaiting)
		t := time.NewTimer(time.Until(tr.startAt) - readyBefore)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return w, nil, nil, errStopped
		}
	}
	tr.enter(AgentMeasuring)
	res = a.Run(ctx, tr.startAt, tr.started("measure"))
	end := time.Now()
	tr.t.Stamp(res, w, cfg.Shard)
	return w, res, tr.tracePoints(ctx, res.Start, end), nil
}

// tracePoints returns the hops of the spans received from start to end,
// the measured load's, if the spec asks for traces, timed from start. The
// spans that started before end go either way: no later trial reads them.
func (tr *agentTrial) tracePoints(ctx context.Context, start, end time.Time) []probe.Point {
	switch {
	case tr.receiver == nil:
		return nil
	case !tr.wantTraces:
		tr.receiver.Forget(end)
		return nil
	}
	points, _ := tr.receiver.Take(ctx, start, end, probe.TraceFlush) // cut short by ctx, it keeps the spans already in
	return points
}

// enter moves the trial to state.
func (tr *agentTrial) enter(state AgentState) {
	tr.mu.Lock()
	tr.state, tr.rec = state, nil
	tr.mu.Unlock()
}

// started returns the load's Started hook: its recorder gives progress.
func (tr *agentTrial) started(phase string) func(*record.Recorder) {
	return func(rec *record.Recorder) {
		tr.mu.Lock()
		tr.phase, tr.rec = phase, rec
		tr.mu.Unlock()
	}
}

// stop stops the trial; what it measured so far is kept, marked
// interrupted.
func (tr *agentTrial) stop() {
	tr.mu.Lock()
	tr.stopping = tr.state != AgentDone
	tr.mu.Unlock()
	tr.cancel()
}

// finished reports whether the trial is done.
func (tr *agentTrial) finished() bool {
	select {
	case <-tr.done:
		return true
	default:
		return false
	}
}

// status says where the trial is.
func (tr *agentTrial) status() AgentStatus {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	st := AgentStatus{State: tr.state, Variant: tr.t.Variant, Level: tr.t.Level.String(), Rep: tr.t.Rep, Position: tr.t.Position, Stopping: tr.stopping && tr.state != AgentDone}
	end := time.Now()
	if tr.state == AgentDone {
		end = tr.ended
		st.ResultMedia, st.PointsMedia = ResultMedia, PointsMedia
		if tr.err != nil {
			st.Error = tr.err.Error()
		}
	}
	st.ElapsedSeconds = end.Sub(tr.posted).Seconds()
	if tr.rec != nil {
		p := tr.rec.Snapshot()
		st.Progress = &AgentProgress{Phase: tr.phase, ElapsedSeconds: p.Elapsed.Seconds(), Sent: p.Sent, Completed: p.Completed,
			Errors: p.Errors, Failed: p.Failed, InFlight: p.InFlight, RatePerSecond: p.Rate}
		if p.P99OK {
			s := p.P99.Seconds()
			st.Progress.P99Seconds = &s
		}
	}
	return st
}

// writeResult answers the done trial's outcome as multipart/form-data:
// a part warmup and a part measure, each a result's encoding (ResultMedia)
// when there is one, a part points, their encoding (PointsMedia), when
// there are trace points, and a part error, text, when the trial failed.
func (tr *agentTrial) writeResult(w http.ResponseWriter) error {
	tr.mu.Lock()
	warm, res, points, err := tr.warm, tr.res, tr.points, tr.err
	tr.mu.Unlock()
	mw := multipart.NewWriter(w)
	w.Header().Set("Content-Type", mw.FormDataContentType())
	w.WriteHeader(http.StatusOK)
	part := func(name, media string) (io.Writer, error) {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, name))
		h.Set("Content-Type", media)
		return mw.CreatePart(h)
	}
	for _, p := range []struct {
		name string
		r    *record.Result
	}{{partWarmup, warm}, {partMeasure, res}} {
		if p.r == nil {
			continue
		}
		pw, perr := part(p.name, ResultMedia)
		if perr != nil {
			return perr
		}
		if perr := record.EncodeResult(pw, p.r); perr != nil {
			return fmt.Errorf("%s: %w", p.name, perr)
		}
	}
	if len(points) > 0 {
		pw, perr := part(partPoints, PointsMedia)
		if perr != nil {
			return perr
		}
		if perr := encodePoints(pw, points); perr != nil {
			return fmt.Errorf("%s: %w", partPoints, perr)
		}
	}
	if err != nil {
		pw, perr := part(partError, "text/plain; charset=utf-8")
		if perr != nil {
			return perr
		}
		if _, perr := pw.Write([]byte(err.Error())); perr != nil {
			return perr
		}
	}
	return mw.Close()
}
