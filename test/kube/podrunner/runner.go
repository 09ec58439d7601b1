package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
)

// runner is the pod runner of one cluster.
type runner struct {
	cfg         config
	slot        slot
	self        string // this binary, which the shim is
	log         *slog.Logger
	cs          kubernetes.Interface
	apiHost     string // the API server's host:port, behind the kubernetes Service
	nodes       []string
	port        int                             // the kubelet server's
	metricsPort int                             // the metrics API server's
	recs        map[string]record.EventRecorder // by node, and "" for the scheduler

	pods     corelisters.PodLister
	nodeObjs corelisters.NodeLister
	services corelisters.ServiceLister
	slices   discoverylisters.EndpointSliceLister

	ips    ipam
	mounts *mountPoints
	logs   logBook
	usage  *usageBook
	proxy  *serviceProxy
	sched  *scheduler

	mu        sync.Mutex
	workers   map[types.UID]*podWorker
	sandboxes map[*sandbox]bool
	wg        sync.WaitGroup // the workers
}

// run is the runner's main: exit status 0 after a clean stop, 1 when it
// could not start, 2 on a usage error.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if cfg.cleanup {
		if err := cleanupDir(cfg.dir, log); err != nil {
			log.Error("cleanup", "err", err)
			return 1
		}
		return 0
	}
	if err := serve(ctx, cfg, log); err != nil && ctx.Err() == nil {
		log.Error("podrunner", "err", err)
		return 1
	}
	return 0
}

// serve runs the runner until ctx ends, then stops every pod and removes
// all it made.
func serve(ctx context.Context, cfg config, log *slog.Logger) error {
	if err := os.MkdirAll(cfg.dir, 0o755); err != nil {
		return err
	}
	s, lock, err := claimSlot(cfg.dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	log = log.With("slot", int(s))
	log.Info("claimed the slot", "pods", s.podNet(), "services", s.serviceNet())
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &runner{
		cfg: cfg, slot: s, self: self, log: log,
		mounts:    loadMountPoints(filepath.Join(cfg.dir, "mountpoints")),
		workers:   map[types.UID]*podWorker{},
		sandboxes: map[*sandbox]bool{},
		usage:     &usageBook{resolution: cfg.resolution},
	}
	// Whatever a runner of this slot left is this one's to remove.
	if err := cleanSlot(s, r.mounts); err != nil {
		log.Warn("removing leftovers", "err", err)
	}
	defer func() {
		if err := cleanSlot(s, r.mounts); err != nil {
			log.Warn("cleaning up", "err", err)
		}
		log.Info("stopped")
	}()
	if err := setupSlotRouting(ctx, s); err != nil {
		return err
	}
	if err := r.connect(ctx); err != nil {
		return err
	}
	defer r.recordEvents(ctx)()
	factory, err := r.watch(ctx)
	if err != nil {
		return err
	}
	defer factory.Shutdown()
	if err := r.registerNodes(ctx); err != nil {
		return err
	}
	var loops sync.WaitGroup
	for _, loop := range []func(context.Context){r.heartbeat, r.sched.run, r.proxy.run, r.usage.run} {
		loops.Go(func() { loop(ctx) })
	}
	log.Info("running", "nodes", r.nodes, "kubelet", fmt.Sprintf("https://127.0.0.1:%d", r.port))
	<-ctx.Done()
	log.Info("stopping every pod")
	r.wg.Wait()
	loops.Wait()
	return nil
}

// connect waits for the API server, makes r's clients, and serves the
// kubelet and metrics APIs of r's nodes.
func (r *runner) connect(ctx context.Context) error {
	restCfg, err := waitForAPI(ctx, r.cfg.kubeconfig, r.log)
	if err != nil {
		return err
	}
	u, err := url.Parse(restCfg.Host)
	if err != nil {
		return err
	}
	r.apiHost = u.Host
	restCfg.QPS, restCfg.Burst = 100, 200
	if r.cs, err = kubernetes.NewForConfig(restCfg); err != nil {
		return err
	}
	for i := range r.cfg.nodes {
		r.nodes = append(r.nodes, fmt.Sprintf("node-%d", i))
	}
	if r.port, err = r.serveKubelet(ctx); err != nil {
		return err
	}
	if r.metricsPort, err = r.serveMetrics(ctx); err != nil {
		return err
	}
	return r.registerMetricsAPI(ctx, restCfg)
}

// recordEvents makes the event recorders of the scheduler and of each
// node, and returns what stops them.
func (r *runner) recordEvents(ctx context.Context) (stop func()) {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.cs.CoreV1().Events("")})
	r.recs = map[string]record.EventRecorder{
		"": broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "default-scheduler"}),
	}
	for _, n := range r.nodes {
		r.recs[n] = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet", Host: n})
	}
	return broadcaster.Shutdown
}

// watch starts the informers of pods, Services and EndpointSlices, with
// r's handlers, and returns their factory once they synced; the caller
// shuts it down.
func (r *runner) watch(ctx context.Context) (informers.SharedInformerFactory, error) {
	factory := informers.NewSharedInformerFactory(r.cs, 0)
	podInf := factory.Core().V1().Pods()
	svcInf := factory.Core().V1().Services()
	sliceInf := factory.Discovery().V1().EndpointSlices()
	r.pods, r.services, r.slices = podInf.Lister(), svcInf.Lister(), sliceInf.Lister()
	r.nodeObjs = factory.Core().V1().Nodes().Lister()
	r.proxy = newServiceProxy(r)
	r.sched = newScheduler(r)
	if _, err := podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.onPod(ctx, o, false) },
		UpdateFunc: func(_, o any) { r.onPod(ctx, o, false) },
		DeleteFunc: func(o any) { r.onPod(ctx, o, true) },
	}); err != nil {
		return nil, err
	}
	changed := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { r.proxy.changed() },
		UpdateFunc: func(any, any) { r.proxy.changed() },
		DeleteFunc: func(any) { r.proxy.changed() },
	}
	for _, inf := range []cache.SharedIndexInformer{svcInf.Informer(), sliceInf.Informer()} {
		if _, err := inf.AddEventHandler(changed); err != nil {
			return nil, err
		}
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			factory.Shutdown()
			return nil, fmt.Errorf("the %v informer did not sync", typ)
		}
	}
	return factory, nil
}

// waitForAPI waits until the kubeconfig exists and the API server it
// names is ready.
func waitForAPI(ctx context.Context, kubeconfig string, log *slog.Logger) (*rest.Config, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last error
	for n := 0; ; n++ {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err == nil {
			var cs *kubernetes.Clientset
			if cs, err = kubernetes.NewForConfig(cfg); err == nil {
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				_, err = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(rctx)
				cancel()
				if err == nil {
					return cfg, nil
				}
			}
		}
		last = err
		if n%40 == 39 {
			log.Info("waiting for the API server", "err", last)
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// onPod takes an informer's news of a pod: one not bound yet goes to the
// scheduler, one bound to the runner's nodes to its worker.
func (r *runner) onPod(ctx context.Context, o any, gone bool) {
	if t, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	pod, ok := o.(*corev1.Pod)
	if !ok {
		return
	}
	r.sched.changed()
	if pod.Spec.NodeName == "" || !r.isNode(pod.Spec.NodeName) {
		return
	}
	r.mu.Lock()
	w := r.workers[pod.UID]
	if w == nil && !gone {
		w = newPodWorker(r, pod)
		r.workers[pod.UID] = w
		w.update(pod, false)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			w.run(ctx)
			r.mu.Lock()
			delete(r.workers, pod.UID)
			r.mu.Unlock()
		}()
	}
	r.mu.Unlock()
	if w != nil {
		w.update(pod, gone)
	}
}

func (r *runner) isNode(name string) bool {
	for _, n := range r.nodes {
		if n == name {
			return true
		}
	}
	return false
}

// event records an event of pod as its node's kubelet, or as the
// scheduler when the pod has no node.
func (r *runner) event(pod *corev1.Pod, typ, reason, msg string) {
	if rec, ok := r.recs[pod.Spec.NodeName]; ok {
		rec.Event(pod, typ, reason, msg)
	}
}
