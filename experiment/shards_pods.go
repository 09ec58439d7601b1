package experiment

import (
	"context"
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/latlab/latlab/cluster"
)

// RunShardsInPods runs b's trial on lp.Shards load pods of c together (see
// RunShards): an Indexed Job of latlab agents, each reached through the
// API server's pod proxy, shard i on the pod of completion index i. It
// waits 2 minutes at most for every pod to be ready: a pod that fails
// then, or is not ready by then, is a lost shard that never started (a
// *ShardError naming the pod and why), and one that fails once the trial
// runs ends the trial as a lost shard within o.Lost. The Job is deleted
// whatever happens, after ctx ended too, within 3 minutes; log is told
// what went wrong deleting it.
func RunShardsInPods(ctx context.Context, c *cluster.Cluster, lp cluster.LoadPod, b *Bundle, o ShardOptions, log func(error)) (ShardRun, error) {
	run, stop, err := startLoad(ctx, c, lp, log)
	if err != nil {
		return ShardRun{}, err
	}
	defer stop()
	pods, err := run.WaitShards(ctx, loadPodReady)
	if pf := (*cluster.PodFailure)(nil); errors.As(err, &pf) {
		// The shard of the pod that failed, else the first without one.
		i := slices.IndexFunc(pods, func(p *corev1.Pod) bool { return p != nil && p.Name == pf.Pod })
		i = max(i, slices.Index(pods, nil), 0)
		return ShardRun{}, &ShardError{Index: i, Name: pf.Pod, Reason: "never started: " + pf.Reason + ": " + pf.Detail, Err: pf}
	}
	if err != nil {
		return ShardRun{}, err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	members := make([]ShardMember, len(pods))
	for i, p := range pods {
		u, err := c.PodURL(lp.Namespace, p.Name, lp.Port, "http")
		if err != nil {
			return ShardRun{}, err
		}
		members[i] = ShardMember{Remote: &Remote{URL: u.String(), Client: c.HTTPClient(), Token: lp.Token, Poll: loadPodPoll},
			Name: p.Name, Node: p.Spec.NodeName, Gone: run.Watch(wctx, p.Name)}
	}
	return RunShards(ctx, members, b, o)
}
