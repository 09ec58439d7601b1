package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/cluster"
)

// Where a load pod's agent listens, and its trace receiver.
const (
	agentPort    = 7070
	OTLPHTTPPort = 4318
)

// Bounds of a trial in a load pod.
var (
	// LoadPodReady bounds how long a load pod may take to be ready: to
	// be scheduled, pull its image and start.
	LoadPodReady = 2 * time.Minute
	// loadPodLost is how long its agent may go unanswered before the
	// trial ends: a pod that died answers nothing.
	loadPodLost = 15 * time.Second
)

// Bounds of a trial in a load pod, beside loadPodReady and loadPodLost.
const (
	// LoadPodPoll is how often a load pod's agent is asked for progress.
	LoadPodPoll = 250 * time.Millisecond
	// loadPodCleanup bounds the deletion of a load pod's Job, also
	// after the run was interrupted.
	loadPodCleanup = 3 * time.Minute
	// loadPodCheck bounds the look at a load pod whose trial failed.
	loadPodCheck = 30 * time.Second
)

// PodOptions are what RunInPod tells its caller as the trial goes. The
// zero value tells nothing.
type PodOptions struct {
	// Progress is given every status the agent answers, as Client's.
	Progress func(AgentStatus)
	// Ran, if set, is called once the agent's trial is over, done or
	// failed, before the pod is checked and its Job deleted, so that
	// what runs beside the trial stops with it rather than with the
	// deletion. It is not called when the pod never got ready.
	Ran func()
	// Log is told what went wrong deleting the Job, which fails no
	// trial; nil drops it.
	Log func(error)
}

// RunInPod runs b's trial in lp, a load pod on c running latlab agent
// (see Spec.AgentPod), reached through the API server's pod proxy: it
// creates lp's Job, waits 2 minutes at most for its pod to be ready, and
// runs the trial there as Client.Run does, asking for progress every
// 250 ms and giving up on an agent that has not answered for 15 s. The
// Job is deleted whatever happens, after ctx ended too, within 3 minutes.
//
// When the pod fails — its image cannot be pulled, no node takes it, it
// is evicted, runs out of memory or exits — the error is its
// *cluster.PodFailure, which names the pod and the reason. When ctx ends,
// the agent stops the trial and what it measured comes back marked
// Interrupted, with a nil error, as Client.Run says.
func RunInPod(ctx context.Context, c *cluster.Cluster, lp cluster.LoadPod, b *Bundle, o PodOptions) (Run, error) {
	run, stop, err := StartLoad(ctx, c, lp, o.Log)
	if err != nil {
		return Run{}, err
	}
	defer stop()
	if err := run.WaitReady(ctx, LoadPodReady); err != nil {
		return Run{}, err
	}
	u, err := c.PodURL(lp.Namespace, run.Pod, lp.Port, "http")
	if err != nil {
		return Run{}, err
	}
	rm := &Client{URL: u.String(), HTTP: c.HTTPClient(), Token: lp.Token, Lost: loadPodLost, Poll: LoadPodPoll, Progress: o.Progress}
	rr, err := rm.Run(ctx, b)
	if o.Ran != nil {
		o.Ran()
	}
	if err != nil {
		// An agent that stopped answering is most often a pod that died:
		// say why it did.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadPodCheck)
		defer cancel()
		var pf *cluster.PodFailure
		if ferr := run.Check(cctx); errors.As(ferr, &pf) {
			return rr, ferr
		}
		return rr, err
	}
	return rr, nil
}

// AgentPod returns the load pod of trial t, in namespace: a Job running
// latlab agent, named after the experiment and the trial, unique, so that
// one a killed latlab left behind is in nobody's way, labelled with the
// experiment and t's variant, and image, node selector, tolerations and
// resources the spec's load pod's. Its agent's token is fresh. It lives
// as long as the trial's warm-up and load and 10 minutes more, or an hour
// and 10 minutes for a trial that ends at a request count. s must run its
// load on a cluster (LoadPod set).
func AgentPod(s *spec.Spec, t spec.Trial, namespace string) cluster.LoadPod {
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	name := fmt.Sprintf("latlab-load-%s-%d-%s", cluster.DNSName(s.Name, 24), t.Position, hex.EncodeToString(suffix[:]))
	span := time.Hour // a trial of so many requests
	if v := s.Variant(t.Variant); v != nil && v.Load.Duration > 0 {
		span = v.Load.Duration
		if w := s.Warmup; w != nil {
			span += w.Duration
		}
	}
	lifetime := span + 10*time.Minute
	args := []string{"agent", "--listen", ":" + strconv.Itoa(agentPort), "--token-file", cluster.TokenPath,
		"--idle", "10m", "--lifetime", lifetime.String()}
	if s.Probes.Traces {
		args = append(args, "--otlp-http", ":"+strconv.Itoa(OTLPHTTPPort))
	}
	token, _ := NewToken() // crypto/rand does not fail
	lp := cluster.LoadPod{Namespace: namespace, Name: name, Image: s.LoadPod.Image, Args: args, Token: token,
		Port: agentPort, ReadyPath: "/healthz", Labels: cluster.Labels(s.Name, t.Variant), Lifetime: lifetime}
	s.LoadPod.Place(&lp)
	return lp
}

// StartLoad creates lp's Job and returns it with stop, which deletes it
// within loadPodCleanup, after ctx ended too, telling log what went wrong.
func StartLoad(ctx context.Context, c *cluster.Cluster, lp cluster.LoadPod, log func(error)) (*cluster.Running, func(), error) {
	run, err := c.StartLoad(ctx, lp)
	if err != nil {
		return nil, nil, err
	}
	return run, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadPodCleanup)
		defer cancel()
		if err := run.Stop(sctx); err != nil && log != nil {
			log(err)
		}
	}, nil
}
