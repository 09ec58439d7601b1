package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/store"
)

// TestKubeShards sends a trial's load from three pods of an Indexed Job
// on three nodes, against a graph on the cluster: the merged run holds
// the schedule's requests exactly and equals the sum of its shards,
// histogram bucket by bucket; then a shard's process is killed mid-trial,
// which fails that trial with shard_lost naming the pod, and the next
// trial runs. Shards whose image nobody has never start, and their
// trials fail with shard_lost saying so. Last, the load pods go where the spec places them: all
// three on the one node it selects and whose taint it tolerates, with the
// resources it gives. Nothing is left in the cluster.
func TestKubeShards(t *testing.T) {
	tc := upCluster(t, "--nodes", "3")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	t.Run("merged", func(t *testing.T) {
		spec := experimentDir(t, "kube-shards", "mode: open, rates: [300], duration: 3s, shards: 3", "")
		db := filepath.Join(t.TempDir(), "results.db")
		out, err := tc.latlabRun(t, ctx, spec, "-o", db)
		if err != nil {
			t.Fatalf("latlab run: %v\n%s", err, out)
		}
		rs := runs(t, db)
		if len(rs) != 2 {
			t.Fatalf("%d runs, want 2:\n%s", len(rs), out)
		}
		for _, r := range rs {
			if r.Status != store.Done || r.Summary == nil || r.Summary.Sent+r.Summary.Unsent != 900 {
				t.Errorf("run %d (%s): %s, %+v; want the 900 requests due", r.ID, r.Variant, r.Status, r.Summary)
				continue
			}
			shards := readRun(t, db, r.ID, (*store.DB).Shards)
			totals := readTotals(t, db, r.ID)
			nodes := map[string]bool{}
			var sum int64
			var hists []*record.Result
			for _, s := range shards {
				if s.Result == nil || s.Error != "" || !strings.HasPrefix(s.Name, "latlab-load-") {
					t.Errorf("run %d: shard %d: %+v", r.ID, s.Index, s)
					continue
				}
				nodes[s.Node] = true
				sum += s.Result.Requests
				hists = append(hists, s.Result)
			}
			if len(shards) != 3 || sum != r.Summary.Requests || len(nodes) != 3 {
				t.Errorf("run %d: %d shards on nodes %v summing to %d requests; want 3 on 3 nodes, the run's %d", r.ID, len(shards), nodes, sum, r.Summary.Requests)
			}
			merged, err := record.Merge(hists, record.MergeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := record.CountsDiff(totals.Latency, merged.Latency); diff != "" {
				t.Errorf("run %d: the stored latency histogram is not the shards' sum: %s", r.ID, diff)
			}
		}
		tc.nothingLeft(t)
	})

	t.Run("shard lost", func(t *testing.T) {
		spec := experimentDir(t, "kube-shard-lost", "mode: open, rates: [50], duration: 40s, shards: 3", "")
		db := filepath.Join(t.TempDir(), "results.db")
		cmd, out := tc.startRun(t, ctx, spec, "-o", db)
		// Once the three agents measure, kill one.
		var agents []int
		poll(t, 3*time.Minute, "three load agents measuring", func() (bool, string) {
			agents = agentProcesses()
			n := tc.measuring(ctx)
			return len(agents) == 3 && n == 3, fmt.Sprintf("%d agents, %d measuring", len(agents), n)
		})
		if err := syscall.Kill(agents[1], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		poll(t, time.Minute, "the first trial to end", func() (bool, string) {
			d, err := store.OpenReadOnly(context.Background(), db)
			if err != nil {
				return false, err.Error()
			}
			defer d.Close()
			exps, _ := d.Experiments(context.Background())
			if len(exps) == 0 {
				return false, "no experiment yet"
			}
			rs, _ := d.Runs(context.Background(), exps[0].ID)
			return len(rs) > 0, ""
		})
		if took := time.Since(killed); took > 10*time.Second+5*time.Second {
			t.Errorf("the trial ended %s after its shard was killed; the bound is 10 s", took)
		}
		err := cmd.Wait()
		if err == nil {
			t.Errorf("latlab run succeeded with a shard lost:\n%s", out.String())
		}
		rs := runs(t, db)
		if len(rs) != 2 {
			t.Fatalf("runs %+v; want both trials tried\n%s", rs, out.String())
		}
		lost := 0
		for _, r := range rs {
			if flagged(r, "shard_lost", "latlab-load-") {
				lost++
			}
		}
		if lost != 1 || (rs[0].Status != store.Failed) == (rs[1].Status != store.Failed) {
			t.Errorf("runs %+v; want one failed with shard_lost naming its pod, the other done", rs)
		}
		tc.nothingLeft(t)
	})

	t.Run("never started", func(t *testing.T) {
		spec := experimentDir(t, "kube-shards-unstarted", "mode: open, rates: [50], duration: 2s, shards: 2, image: example.invalid/none:1", "")
		db := filepath.Join(t.TempDir(), "results.db")
		out, err := tc.latlabRun(t, ctx, spec, "-o", db)
		if err == nil {
			t.Errorf("latlab run succeeded with shards that cannot start:\n%s", out)
		}
		rs := runs(t, db)
		for _, r := range rs {
			if r.Status != store.Failed || !flagged(r, "shard_lost", "(latlab-load-", "never started: image: ") {
				t.Errorf("run %d: %s, flags %+v; want failed with shard_lost naming a pod that never started for its image", r.ID, r.Status, r.Flags)
			}
		}
		if len(rs) != 2 {
			t.Errorf("%d runs, want both trials tried:\n%s", len(rs), out)
		}
		tc.nothingLeft(t)
	})

	t.Run("placed", func(t *testing.T) {
		tc.reserve(t, ctx, "node-2")
		spec := experimentDir(t, "kube-shards-placed", "mode: open, rates: [300], duration: 3s, shards: 3, "+
			"node_selector: {pool: load}, tolerations: [{key: dedicated, value: load, effect: NoSchedule}], "+
			"resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 1, memory: 512Mi}}", "")
		db := filepath.Join(t.TempDir(), "results.db")
		cmd, out := tc.startRun(t, ctx, spec, "-o", db)
		var job *batchv1.Job
		poll(t, 3*time.Minute, "a load job", func() (bool, string) {
			jobs, err := tc.cs.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{LabelSelector: cluster.LabelRole + "=" + cluster.RoleLoad})
			if err != nil || len(jobs.Items) == 0 {
				return false, fmt.Sprint(err)
			}
			job = &jobs.Items[0]
			return true, ""
		})
		if err := cmd.Wait(); err != nil {
			t.Fatalf("latlab run: %v\n%s", err, out)
		}
		ps := job.Spec.Template.Spec
		res := ps.Containers[0].Resources
		if ps.NodeSelector["pool"] != "load" || len(ps.Tolerations) != 1 || ps.Tolerations[0].Key != "dedicated" ||
			res.Requests.Cpu().MilliValue() != 100 || res.Limits.Memory().Value() != 512<<20 {
			t.Errorf("the load pods' node selector %v, tolerations %+v, resources %+v; want the spec's", ps.NodeSelector, ps.Tolerations, res)
		}
		rs := runs(t, db)
		for _, r := range rs {
			shards := readRun(t, db, r.ID, (*store.DB).Shards)
			if r.Status != store.Done || len(shards) != 3 {
				t.Errorf("run %d: %s with %d shards; want done with 3", r.ID, r.Status, len(shards))
			}
			// The preferred spread gives way to the required node.
			for _, s := range shards {
				if s.Node != "node-2" {
					t.Errorf("run %d: shard %d ran on %q; want node-2, the only node the spec allows", r.ID, s.Index, s.Node)
				}
			}
		}
		if len(rs) != 2 {
			t.Errorf("%d runs, want 2:\n%s", len(rs), out)
		}
		tc.nothingLeft(t)
	})
}

// flagged reports whether r has the flag name with a reason holding
// every one of parts.
func flagged(r store.Run, name string, parts ...string) bool {
	return slices.ContainsFunc(r.Flags, func(f store.Flag) bool {
		return f.Name == name && !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(f.Reason, p) })
	})
}

// reserve labels node pool=load and taints it dedicated=load:NoSchedule,
// as a cluster keeps nodes for load generators, until t ends.
func (c *testCluster) reserve(t *testing.T, ctx context.Context, node string) {
	t.Helper()
	set := func(reserved bool) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := c.cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			if err != nil {
				return err
			}
			n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == "dedicated" })
			delete(n.Labels, "pool")
			if reserved {
				n.Labels["pool"] = "load"
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "load", Effect: corev1.TaintEffectNoSchedule})
			}
			_, err = c.cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		})
	}
	if err := set(true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := set(false); err != nil {
			t.Errorf("freeing %s: %v", node, err)
		}
	})
}

// agentProcesses returns the pids of the load agents running on this
// machine: latlab agent listening on the load pods' port.
func agentProcesses() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 2 && args[1] == "agent" && strings.Contains(string(b), "--listen\x00:7070") {
			out = append(out, pid)
		}
	}
	return out
}

// measuring counts the load pods whose agent measures now, asked
// through the API server's pod proxy with the token of the pod's Job
// (the admin reads Secrets).
func (c *testCluster) measuring(ctx context.Context) int {
	pods, err := c.cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: cluster.LabelRole + "=" + cluster.RoleLoad})
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range pods.Items {
		sec, err := c.cs.CoreV1().Secrets("default").Get(ctx, p.Labels["job-name"], metav1.GetOptions{})
		if err != nil {
			continue
		}
		b, err := c.cs.CoreV1().RESTClient().Get().Namespace("default").Resource("pods").Name(p.Name+":7070").
			SubResource("proxy").Suffix("trial").SetHeader(remote.TokenHeader, string(sec.Data["token"])).DoRaw(ctx)
		if err == nil && strings.Contains(string(b), `"state":"measuring"`) {
			n++
		}
	}
	return n
}

// readTotals returns run id's measured histograms.
func readTotals(t *testing.T, db string, id int64) store.Totals {
	t.Helper()
	ctx := context.Background()
	d, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tot, err := d.Totals(ctx, id, store.Measure)
	if err != nil {
		t.Fatal(err)
	}
	return tot
}
