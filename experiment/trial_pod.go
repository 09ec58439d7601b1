package experiment

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/spec"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// FlagLoadPod begins the flag of a trial whose load pod failed: the flag
// is FlagLoadPod + one of the cluster.Fail reasons, such as
// load_pod_oomkilled.
const FlagLoadPod = "load_pod_"

// inPod runs the trial's warm-up and measured load in a load pod: a Job
// running latlab agent, reached through the API server's pod proxy. The
// probes, side-loads and profiles run here, from when the agent says its
// measured load has started until it is done. A pod that fails ends the
// trial within loadPodReady or loadPodLost, failed with the flag
// load_pod_REASON.
func (tr *trialRun) inPod(ctx context.Context) (*record.Result, error) {
	r, t := tr.r, tr.t
	b, err := tr.bundle()
	if err != nil {
		return nil, err
	}
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()
	var measuring sync.Once
	begin := func() {
		tr.start = time.Now()
		tr.startProbes(pctx)
		if err := tr.startSideloads(pctx); err != nil {
			r.logf("trial %d: %v", t.Position, err)
		}
		tr.startPprof(pctx)
	}
	rr, err := remote.RunInPod(ctx, r.kube, r.loadPod(t), b, remote.PodOptions{
		Progress: func(st remote.AgentStatus) {
			if st.State == remote.AgentMeasuring || st.State == remote.AgentDone {
				measuring.Do(begin)
			}
			tr.showRemote(st)
		},
		Ran: func() {
			measuring.Do(func() { tr.start = time.Now() })
			stopProbes()
			tr.wg.Wait()
			tr.end = time.Now()
			r.clearProgress()
		},
		Log: func(err error) { r.logf("trial %d: %v", t.Position, err) },
	})
	if err != nil {
		return nil, tr.podFailed(err)
	}
	tr.f.warm = rr.Warm
	if rr.Result != nil {
		// The agent's points are offsets from its result's start; the
		// trial's, from when it was seen measuring.
		shift := rr.Result.Start.Sub(tr.start)
		for _, p := range rr.Points {
			p.T += shift
			tr.points = append(tr.points, p)
		}
	}
	return rr.Result, nil
}

// podFailed returns err, flagging the trial with the load pod's failure
// when err is one.
func (tr *trialRun) podFailed(err error) error {
	var pf *cluster.PodFailure
	if errors.As(err, &pf) {
		tr.f.info.Flags = append(tr.f.info.Flags, store.Flag{Name: FlagLoadPod + pf.Reason, Reason: pf.Detail})
	}
	return err
}

// loadPod returns the load pod of trial t, in the load's namespace.
func (r *Runner) loadPod(t spec.Trial) cluster.LoadPod {
	return remote.AgentPod(r.Spec, t, r.loadNamespace())
}

// tracesService returns the name of the Service through which a graph's
// nodes on the cluster export their spans to the load pod of the trial
// under way: there is one at a time.
func tracesService(experiment string) string {
	return "latlab-traces-" + cluster.DNSName(experiment, 40)
}

// tracesObject returns the Service of tracesService, in the load pods'
// namespace, selecting the experiment's load pods.
func (r *Runner) tracesObject() *corev1.Service {
	sel := cluster.Labels(r.Spec.Name, "")
	delete(sel, cluster.LabelVariant)
	sel[cluster.LabelRole] = cluster.RoleLoad
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: tracesService(r.Spec.Name)},
		Spec: corev1.ServiceSpec{
			Selector: sel,
			Ports: []corev1.ServicePort{{Name: "otlp-http", Port: remote.OTLPHTTPPort, TargetPort: intstr.FromInt32(remote.OTLPHTTPPort),
				Protocol: corev1.ProtocolTCP}},
		},
	}
}

// kubeScraper returns the probe scraping the pods of l, a variant on the
// cluster, that ask for it (see cluster.ScrapeTargets) through the API
// server's pod proxy, as m says.
func (r *Runner) kubeScraper(l *live, m *spec.Metrics) probeFunc {
	return func(ctx context.Context, start time.Time, emit func([]probe.Point)) error {
		targets, err := r.kube.ScrapeTargets(ctx, l.namespace, l.selector)
		if err != nil {
			emit([]probe.Point{{Probe: "metrics", Series: "up", Labels: map[string]string{"instance": l.namespace, "error": err.Error()}}})
			return nil
		}
		if len(targets) == 0 {
			return nil
		}
		s := &probe.Scraper{Interval: m.Interval, Window: m.Window, Client: r.kube.HTTPClient()}
		for _, tg := range targets {
			s.URLs = append(s.URLs, tg.URL)
		}
		return s.Run(ctx, start, emit)
	}
}

// showRemote shows an agent's progress on the live status line.
func (tr *trialRun) showRemote(st remote.AgentStatus) {
	r := tr.r
	p, ok := st.Measuring()
	if r.Progress == nil || !ok {
		return
	}
	r.showLine(p, tr.t, tr.k, tr.n, tr.cfg.Duration)
}
