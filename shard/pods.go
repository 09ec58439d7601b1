package shard

import (
	"context"
	"errors"
	"slices"

	"github.com/latlab/latlab/remote"

	corev1 "k8s.io/api/core/v1"

	"github.com/latlab/latlab/cluster"
)

// RunInPods runs b's trial on lp.Shards load pods of c together (see
// Run): an Indexed Job of latlab agents, each reached through the
// API server's pod proxy, shard i on the pod of completion index i. It
// waits 2 minutes at most for every pod to be ready: a pod that fails
// then, or is not ready by then, is a lost shard that never started (a
// *Error naming the pod and why), and one that fails once the trial
// runs ends the trial as a lost shard within o.Lost. The Job is deleted
// whatever happens, after ctx ended too, within 3 minutes; log is told
// what went wrong deleting it.
func RunInPods(ctx context.Context, c *cluster.Cluster, lp cluster.LoadPod, b *remote.Bundle, o Options, log func(error)) (Result, error) {
	run, stop, err := remote.StartLoad(ctx, c, lp, log)
	if err != nil {
		return Result{}, err
	}
	defer stop()
	pods, err := run.WaitShards(ctx, remote.LoadPodReady)
	if pf := (*cluster.PodFailure)(nil); errors.As(err, &pf) {
		// The shard of the pod that failed, else the first without one.
		i := slices.IndexFunc(pods, func(p *corev1.Pod) bool { return p != nil && p.Name == pf.Pod })
		i = max(i, slices.Index(pods, nil), 0)
		return Result{}, &Error{Index: i, Name: pf.Pod, Reason: "never started: " + pf.Reason + ": " + pf.Detail, Err: pf}
	}
	if err != nil {
		return Result{}, err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	members := make([]Member, len(pods))
	for i, p := range pods {
		u, err := c.PodURL(lp.Namespace, p.Name, lp.Port, "http")
		if err != nil {
			return Result{}, err
		}
		members[i] = Member{Remote: &remote.Client{URL: u.String(), HTTP: c.HTTPClient(), Token: lp.Token, Poll: remote.LoadPodPoll},
			Name: p.Name, Node: p.Spec.NodeName, Gone: run.Watch(wctx, p.Name)}
	}
	return Run(ctx, members, b, o)
}
