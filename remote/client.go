package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
)

// Defaults of a Client's bounds.
const (
	DefaultReady   = 2 * time.Minute
	DefaultTimeout = 30 * time.Second
	DefaultPoll    = time.Second
	DefaultLost    = time.Minute
)

// Bounds of the steps a Client takes whatever its settings: the transfer
// of a bundle (with the agent's reading of it) or of a result, and the
// drain of a trial told to stop.
const (
	remoteTransfer = 10 * time.Minute
	remoteDrain    = 3 * time.Minute
)

// A Client runs trials on an Agent over HTTP, directly or through a
// Kubernetes API server's pod proxy, Client carrying the credentials:
// only the controller makes requests, and nothing connects to it. Every
// step is bounded in time. The zero value of each bound is its default.
type Client struct {
	// URL is the agent's base URL, such as http://127.0.0.1:7070 or
	// https://API-SERVER/api/v1/namespaces/NS/pods/NAME:7070/proxy.
	URL   string
	HTTP  *http.Client // nil means http.DefaultClient
	Token string       // the agent's (see TokenHeader)

	Ready   time.Duration // how long the agent may take to answer /healthz (DefaultReady)
	Timeout time.Duration // bound of each request but the transfers of the bundle and the result (DefaultTimeout)
	Poll    time.Duration // how often to ask for progress (DefaultPoll)
	Lost    time.Duration // how long progress may go unanswered before the agent counts as lost (DefaultLost)

	Progress func(AgentStatus) // given every status polled; nil ignores them
	Keep     bool              // leave the agent running after Run, for another trial; else Run tells it to exit
}

// Run is what a trial run by an agent brought back.
type Run struct {
	Warm   *record.Result // the warm-up's result; nil without one
	Result *record.Result // the measured result
	Points []probe.Point  // spans' hops received by the agent, offsets from Result.Start
}

// Run runs the trial of b on the agent: it waits for the agent to be
// ready, posts b, polls its progress, fetches the results and, unless
// Keep is set, tells the agent to exit. It returns the warm-up's result
// (nil without one), the measured result and, when b's spec asks for
// traces, the hops of the spans the agent received during the measured
// load (nil without any), exactly as the agent measured them, which is
// as Runner.trial measures them here. err is why the trial failed on the
// agent, or the step between here and there that failed, naming the
// agent's URL.
//
// When ctx ends the agent is told to stop, and what it measured comes
// back marked Interrupted, as load.Attack's does, with a nil error; an
// interrupted warm-up comes back with the agent's error, "interrupted".
// When nothing can be fetched, err says why, wrapping ctx's error.
func (r *Client) Run(ctx context.Context, b *Bundle) (Run, error) {
	if err := r.WaitReady(ctx); err != nil {
		return Run{}, err
	}
	bg := context.WithoutCancel(ctx) // for what must be done even after ctx ends
	if code, err := r.start(ctx, b); err != nil {
		if code != http.StatusConflict && !r.Keep {
			_ = r.Exit(bg) // the agent is ours, and idle
		}
		return Run{}, err
	}
	if !r.Keep {
		defer func() { _ = r.Exit(bg) }()
	}
	if err := r.wait(ctx); err != nil {
		return Run{}, err
	}
	run, err := r.result(bg)
	if ctx.Err() != nil && run.Warm == nil && run.Result == nil && err != nil {
		err = fmt.Errorf("%w; %w", ctx.Err(), err)
	}
	return run, err
}

func (r *Client) client() *http.Client {
	if r.HTTP != nil {
		return r.HTTP
	}
	return http.DefaultClient
}

// call makes one request to the agent, within timeout, and returns the
// response of a 2xx status, whose body the caller closes, or an error
// naming the request, with the agent's message for other statuses.
func (r *Client) call(ctx context.Context, method, path string, body []byte, timeout time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(r.URL, "/")+path, rd)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("agent %s: %s %s: %w", r.URL, method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		req.Header.Set(TokenHeader, r.Token)
	}
	resp, err := r.client().Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("agent %s: %s %s: %w", r.URL, method, path, err)
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, &AgentError{URL: r.URL, Request: method + " " + path, Status: resp.Status, Code: resp.StatusCode, Msg: strings.TrimSpace(string(msg))}
	}
	return resp, nil
}

// cancelOnClose ends a request's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// An AgentError is an agent's answer to a request it refused.
type AgentError struct {
	URL     string // the agent's base URL
	Request string // such as POST /trial
	Status  string // such as 400 Bad Request
	Code    int    // the status code, such as 400
	Msg     string // what the agent said
}

func (e *AgentError) Error() string {
	return fmt.Sprintf("agent %s: %s: %s: %s", e.URL, e.Request, e.Status, e.Msg)
}

func (r *Client) timeout() time.Duration { return cmpOr(r.Timeout, DefaultTimeout) }

// WaitReady waits for the agent to answer GET /healthz, for at most the
// Ready bound.
func (r *Client) WaitReady(ctx context.Context) error {
	wait := cmpOr(r.Ready, DefaultReady)
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	delay := 50 * time.Millisecond
	for {
		resp, err := r.call(rctx, http.MethodGet, "/healthz", nil, r.timeout())
		if err == nil {
			resp.Body.Close()
			return nil
		}
		t := time.NewTimer(delay)
		select {
		case <-rctx.Done():
			t.Stop()
			if ctx.Err() != nil {
				return fmt.Errorf("agent %s: waiting for it to be ready: %w", r.URL, ctx.Err())
			}
			return fmt.Errorf("agent %s: not ready after %s: %w", r.URL, wait, err)
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}

// Clock makes one exchange with the agent's clock: GET /clock, timed on
// this machine's.
func (r *Client) Clock(ctx context.Context) (ClockSample, error) {
	sent := time.Now()
	resp, err := r.call(ctx, http.MethodGet, "/clock", nil, r.timeout())
	if err != nil {
		return ClockSample{}, err
	}
	defer resp.Body.Close()
	var c agentClock
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&c)
	received := time.Now()
	if err != nil || c.Now <= 0 {
		return ClockSample{}, fmt.Errorf("agent %s: GET /clock: not a clock reading (%v)", r.URL, err)
	}
	return ClockSample{Sent: sent, Received: received, Shard: time.Unix(0, c.Now)}, nil
}

// start posts b, and returns the status code of a refusal with its error.
func (r *Client) start(ctx context.Context, b *Bundle) (int, error) {
	body, err := json.Marshal(b)
	if err != nil {
		return 0, fmt.Errorf("agent %s: encoding the bundle: %w", r.URL, err)
	}
	resp, err := r.call(ctx, http.MethodPost, "/trial", body, remoteTransfer)
	if err != nil {
		var ae *AgentError
		if errors.As(err, &ae) {
			return ae.Code, err
		}
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Status asks how the trial is going.
func (r *Client) Status(ctx context.Context) (AgentStatus, error) {
	var st AgentStatus
	resp, err := r.call(ctx, http.MethodGet, "/trial", nil, r.timeout())
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&st); err != nil {
		return st, fmt.Errorf("agent %s: GET /trial: %w", r.URL, err)
	}
	return st, nil
}

// wait polls the trial until it is done. When ctx ends it tells the
// agent to stop and waits for the trial to drain.
func (r *Client) wait(ctx context.Context) error {
	bg := context.WithoutCancel(ctx)
	lost := cmpOr(r.Lost, DefaultLost)
	tick := time.NewTicker(cmpOr(r.Poll, DefaultPoll))
	defer tick.Stop()
	lastOK := time.Now()
	var drainBy time.Time // set once told to stop
	for {
		st, err := r.Status(bg)
		switch {
		case err == nil:
			lastOK = time.Now()
			if r.Progress != nil {
				r.Progress(st)
			}
			switch st.State {
			case AgentDone:
				return nil
			case AgentIdle:
				return fmt.Errorf("agent %s: it has no trial any more: restarted?", r.URL)
			}
		case time.Since(lastOK) > lost:
			return fmt.Errorf("agent %s: lost: no status for %s: %w", r.URL, lost, err)
		}
		done := ctx.Done()
		if !drainBy.IsZero() {
			done = nil
			if time.Now().After(drainBy) {
				return fmt.Errorf("agent %s: %w, and the trial is still draining after %s", r.URL, ctx.Err(), remoteDrain)
			}
		} else if ctx.Err() != nil {
			drainBy = time.Now().Add(remoteDrain)
			resp, err := r.call(bg, http.MethodPost, "/trial/stop", nil, r.timeout())
			if err != nil {
				return fmt.Errorf("%w; telling the agent to stop: %w", ctx.Err(), err)
			}
			resp.Body.Close()
			continue
		}
		select {
		case <-tick.C:
		case <-done:
		}
	}
}

// result fetches the done trial's results, points and error.
func (r *Client) result(ctx context.Context) (Run, error) {
	var run Run
	resp, err := r.call(ctx, http.MethodGet, "/result", nil, remoteTransfer)
	if err != nil {
		return run, err
	}
	defer resp.Body.Close()
	fail := func(format string, args ...any) (Run, error) {
		return Run{}, fmt.Errorf("agent %s: GET /result: %s", r.URL, fmt.Sprintf(format, args...))
	}
	media, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || media != "multipart/form-data" || params["boundary"] == "" {
		return fail("answered %q, not multipart/form-data", resp.Header.Get("Content-Type"))
	}
	var trialErr error
	mr := multipart.NewReader(resp.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail("%v", err)
		}
		switch name := p.FormName(); name {
		case partWarmup, partMeasure:
			got, err := record.DecodeResult(p)
			if err != nil {
				return fail("%s: %v", name, err)
			}
			if name == partWarmup {
				run.Warm = got
			} else {
				run.Result = got
			}
		case partPoints:
			if media := p.Header.Get("Content-Type"); media != PointsMedia {
				return fail("%s: of type %q, not %q: run the same latlab on both sides", name, media, PointsMedia)
			}
			if run.Points, err = decodePoints(p, maxPointsBytes); err != nil {
				return fail("%s: %v", name, err)
			}
		case partError:
			msg, err := io.ReadAll(io.LimitReader(p, 64<<10))
			if err != nil {
				return fail("%s: %v", name, err)
			}
			trialErr = fmt.Errorf("agent %s: trial failed: %s", r.URL, msg)
		default:
			return fail("unknown part %q", name)
		}
	}
	if run.Result == nil && trialErr == nil {
		return fail("neither a measured result nor an error")
	}
	return run, trialErr
}

// Exit tells the agent to exit, within the Timeout.
func (r *Client) Exit(ctx context.Context) error {
	resp, err := r.call(ctx, http.MethodPost, "/exit", nil, r.timeout())
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
