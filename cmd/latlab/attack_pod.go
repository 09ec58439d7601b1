package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/shard"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// podHelp documents --kubernetes in attack's manual.
const podHelp = `With --kubernetes --image IMG the load leaves from a pod of a Kubernetes
cluster instead, to the URL as the pod sees it (http://web.shop.svc:8080/),
and the attack prints what it prints from here, -o, --warmup, --slo, the
live line and Ctrl-C included. latlab reaches the cluster as kubectl does
(--kubeconfig, --context, $KUBECONFIG, ~/.kube/config, or in-cluster) and
through its API server only: it starts a Job of one pod running latlab
agent from IMG, an image whose entry point is latlab, in --namespace
(default the kubeconfig context's), sends it the attack as the one trial of
an experiment named attack, with the files --targets, --scenario,
--body-file and --cacert name, brings the result back exact and deletes the
Job, also after Ctrl-C. The warm-up runs as an experiment's does, in the
pod, on the connections the measured load then takes. A pod that
cannot start within 2 minutes (its image, no node for it), is evicted, runs
out of memory or dies ends the attack with exit 1, naming the pod and why.
What a pod cannot take is refused before anything is created: --unix-socket,
--cert and --key (a scenario's users may carry theirs), --cpus, --stages,
--realtime (a load pod has no capabilities), a
header given twice, and --targets or --scenario requests to more than one
scheme and host. The Job is labelled as latlab run's are: latlab ls
--kubernetes lists one a killed attack left, latlab clean --kubernetes
attack removes it.`

// podFlags are attack's flags that send its load from a pod of a
// Kubernetes cluster.
type podFlags struct {
	on        bool // --kubernetes
	image     string
	namespace string
	place     placeFlags
	kube      kubeFlags
}

// register adds the flags to fl.
func (p *podFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&p.on, "kubernetes", false, "send the load from a pod of a Kubernetes cluster, to the URL as the pod sees it")
	fl.StringVar(&p.image, "image", "", "with --kubernetes: the pod's container image, whose entry point is latlab")
	fl.StringVar(&p.namespace, "namespace", "", "with --kubernetes: the pod's namespace (default the kubeconfig context's)")
	p.place.register(fl)
	p.kube.register(fl)
}

// podOnly are the flags that only an attack from a pod takes.
var podOnly = []string{"image", "namespace", "kubeconfig", "context"}

// podRefused are the flags an attack from a pod cannot carry to it, each
// with why.
var podRefused = []struct{ flag, why string }{
	{"unix-socket", "a socket of this machine, which a pod cannot reach: drop it with --kubernetes"},
	{"cert", "a client certificate is not carried to a pod: drop --cert and --key with --kubernetes, or give a scenario's users cert: and key:"},
	{"key", "a client certificate is not carried to a pod: drop --cert and --key with --kubernetes, or give a scenario's users cert: and key:"},
	{"cpus", "pins latlab on this machine, and with --kubernetes the load runs in a pod: drop it"},
	{"stages", "a pod runs the load of an experiment's trial, which has no stages: drop it with --kubernetes and give -r"},
	{"realtime", "a load pod runs without capabilities, and real-time threads need CAP_SYS_NICE: drop it with --kubernetes"},
}

// podSet is set as check reads it: --realtime counts only when it asks
// for real-time loops, as a pod's loops never choose it themselves.
func (f *attackFlags) podSet(set func(string) bool) func(string) bool {
	return func(name string) bool {
		if name == "realtime" && f.Realtime != load.RealtimeOn {
			return false
		}
		return set(name)
	}
}

// check refuses the flags of a pod without --kubernetes, --kubernetes
// without --image, and with it the flags a pod cannot take (podRefused).
func (p *podFlags) check(set func(string) bool) error {
	if !p.on {
		for _, name := range slices.Concat(podOnly, placeOnly) {
			if set(name) {
				return usagef("--%s is for an attack from a pod: give --kubernetes too", name)
			}
		}
		return nil
	}
	if p.image == "" {
		return usagef("--kubernetes: give --image, a container image whose entry point is latlab")
	}
	for _, r := range podRefused {
		if set(r.flag) {
			return usagef("--%s: %s", r.flag, r.why)
		}
	}
	return nil
}

// podAttack is an attack to send from a load pod: the trial of a
// one-variant experiment (see podSpec), with the cluster and the pod it
// runs in.
type podAttack struct {
	c      *cluster.Cluster
	pod    cluster.LoadPod
	bundle *remote.Bundle
	total  time.Duration // the measured load's length, for the live line; 0 when it ends at a count

	namespaceFlag bool // the namespace is --namespace's, not the kubeconfig's
	warmup        time.Duration
	shards        []store.Shard // of a sharded attack, after run

	started, ended time.Time // of the agent's trial, its warm-up included
}

// podAttack prepares the attack cfg, which config built from the flags,
// to run from a pod: it writes the spec of the experiment it is, bundles
// it with the files it names, builds the loads from the bundle as the
// pod's agent will, and connects to the cluster. Nothing is created in
// the cluster yet. Errors of the flags are usage errors naming the flag.
func (f *attackFlags) podAttack(ctx context.Context, args []string, cfg load.Config) (*podAttack, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	s, b, err := f.podBundle(cfg, args, dir)
	if err != nil {
		return nil, err
	}
	c, err := f.pod.kube.connect()
	if err != nil {
		return nil, err
	}
	if _, err := c.ServerVersion(ctx); err != nil {
		return nil, fmt.Errorf("kubernetes (%s): %w", c.Where, err)
	}
	pa := &podAttack{c: c, pod: remote.AgentPod(s, b.Trial, cmp.Or(f.pod.namespace, c.Namespace)), bundle: b, total: cfg.Duration,
		namespaceFlag: f.pod.namespace != "", warmup: cfg.Warmup}
	pa.pod.Shards = f.shards.n
	return pa, nil
}

// podBundle returns the spec of the attack cfg (see podSpec), in dir,
// and its bundle for a pod's agent, checked by building its loads as the
// agent will.
func (f *attackFlags) podBundle(cfg load.Config, args []string, dir string) (*spec.Spec, *remote.Bundle, error) {
	text, t, err := f.podSpec(cfg, args, dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := spec.ParseSpec(podSpecFile, text, dir)
	if err != nil {
		return nil, nil, podSpecError(err)
	}
	b, err := remote.NewBundle(s, t, "", cfg.KeepRaw)
	if err != nil {
		return nil, nil, podSpecError(err)
	}
	tmp, err := os.MkdirTemp("", "latlab-attack-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	if _, _, err := b.Loads(tmp); err != nil {
		return nil, nil, podSpecError(err)
	}
	return s, b, nil
}

// run runs the attack in its pod, showing the agent's progress on line
// (nil shows none). A pod that fails is an error naming it and the
// reason; Ctrl-C stops the load and the result comes back interrupted,
// or, before the measured load started, errInterrupted with nothing
// measured. The pod is gone when run returns, unless deleting it failed,
// which stderr is told.
func (p *podAttack) run(ctx context.Context, line *report.Line[report.AttackStatus], stderr io.Writer) (*record.Result, error) {
	if line != nil {
		fmt.Fprintf(stderr, "latlab: attacking from a load pod of job %s in namespace %s (%s)\n", p.pod.Name, p.pod.Namespace, p.c.Where)
	}
	if p.pod.Shards > 1 {
		return p.runShards(ctx, stderr)
	}
	var shown time.Time
	rr, err := remote.RunInPod(ctx, p.c, p.pod, p.bundle, remote.PodOptions{
		Progress: func(st remote.AgentStatus) {
			if p.started.IsZero() {
				p.started = time.Now()
			}
			// About once a second, as for an attack from here: polls come
			// every 250 ms.
			if pr, ok := st.Measuring(); ok && line != nil && time.Since(shown) >= 900*time.Millisecond {
				line.Show(report.AttackStatus{Progress: pr, Total: p.total})
				shown = time.Now()
			}
		},
		Ran: func() {
			p.ended = time.Now()
			if line != nil {
				line.Clear()
			}
		},
		Log: func(err error) {
			fmt.Fprintf(stderr, "latlab: %v; latlab clean --kubernetes %s removes it\n", err, podExperiment)
		},
	})
	if p.started.IsZero() {
		p.started = p.ended
	}
	var pf *cluster.PodFailure
	switch {
	case err == nil && rr.Result != nil:
		return rr.Result, nil
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "latlab: interrupted before the measured load started: nothing was measured\n")
		return nil, errInterrupted
	case errors.As(err, &pf) && pf.Reason == cluster.FailImage:
		return nil, fmt.Errorf("--image %s: %w", p.pod.Image, err)
	case p.namespaceFlag && apierrors.IsNotFound(err):
		return nil, usagef("--namespace %s: %v", p.pod.Namespace, err)
	case err == nil:
		return nil, fmt.Errorf("load pod %s: no result came back", p.pod.Name)
	}
	return nil, err
}

// runShards runs the attack on p.pod.Shards pods of an Indexed Job
// together (shard.RunInPods), and returns the merged result.
func (p *podAttack) runShards(ctx context.Context, stderr io.Writer) (*record.Result, error) {
	p.started = time.Now()
	run, err := shard.RunInPods(ctx, p.c, p.pod, p.bundle, shard.Options{Warmup: p.warmup},
		func(err error) {
			fmt.Fprintf(stderr, "latlab: %v; latlab clean --kubernetes %s removes it\n", err, podExperiment)
		})
	p.ended = time.Now()
	p.shards = run.StoreShards()
	for _, s := range run.Skewed(0) {
		fmt.Fprintf(stderr, "latlab: shard %d (%s): its clock is %s off this one's, ± %s\n", s.Index, s.Name, s.Offset, s.OffsetBound)
	}
	var pf *cluster.PodFailure
	switch {
	case err == nil:
		return run.Result, nil
	case errors.As(err, &pf) && pf.Reason == cluster.FailImage:
		return nil, fmt.Errorf("--image %s: %w", p.pod.Image, err)
	case ctx.Err() != nil && run.Result == nil:
		fmt.Fprintf(stderr, "latlab: interrupted before the measured load started: nothing was measured\n")
		return nil, errInterrupted
	}
	return nil, err
}
