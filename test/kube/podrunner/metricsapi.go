package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	"k8s.io/utils/ptr"
)

// The metrics API as metrics-server registers it: an APIService of the
// aggregator for metrics.k8s.io/v1beta1, backed by the Service
// kube-system/metrics-server.
const (
	metricsGroupVersion = "metrics.k8s.io/v1beta1"
	metricsAPIService   = "v1beta1.metrics.k8s.io"
	metricsNamespace    = "kube-system"
	metricsService      = "metrics-server"
)

var apiServiceResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// serveMetrics serves the metrics API, as metrics-server does, over
// HTTPS on 127.0.0.1 with the kubelet's certificate, and returns its
// port. It asks no client certificate: the API server authorised each
// request before proxying it, and this one answers nothing else.
func (r *runner) serveMetrics(ctx context.Context) (int, error) {
	cert, err := tls.LoadX509KeyPair(r.cfg.cert, r.cfg.key)
	if err != nil {
		return 0, fmt.Errorf("metrics API certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	base := "/apis/" + metricsGroupVersion
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+base, r.metricsResources)
	mux.HandleFunc("GET "+base+"/pods", r.listPodMetrics)
	mux.HandleFunc("GET "+base+"/namespaces/{namespace}/pods", r.listPodMetrics)
	mux.HandleFunc("GET "+base+"/namespaces/{namespace}/pods/{name}", r.getPodMetrics)
	mux.HandleFunc("GET "+base+"/nodes", r.listNodeMetrics)
	mux.HandleFunc("GET "+base+"/nodes/{name}", r.listNodeMetrics)
	r.serveTLS(ctx, "metrics API server", ln, mux, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// registerMetricsAPI makes the metrics API's Service, its endpoint and
// APIService, or updates those a previous runner made. The endpoint is
// the pods' gateway (an endpoint may not be a loopback address); the
// Service proxy sends the Service to this runner's metrics server
// whatever its endpoint says, as it does the kubernetes Service to the
// API server.
func (r *runner) registerMetricsAPI(ctx context.Context, cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: metricsService, Namespace: metricsNamespace, Labels: map[string]string{"k8s-app": metricsService}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP,
			TargetPort: intstr.FromInt32(int32(r.metricsPort))}}},
	}
	if err := createOrUpdate(ctx, r.cs.CoreV1().Services(metricsNamespace), svc, func(old *corev1.Service) *corev1.Service {
		old.Spec.Ports = svc.Spec.Ports
		return old
	}); err != nil {
		return fmt.Errorf("the %s Service: %w", metricsService, err)
	}
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: metricsService, Namespace: metricsNamespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: metricsService, discoveryv1.LabelManagedBy: "latlab-podrunner"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{r.slot.gateway().String()},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(r.metricsPort)), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if err := createOrUpdate(ctx, r.cs.DiscoveryV1().EndpointSlices(metricsNamespace), es, func(old *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
		old.Endpoints, old.Ports = es.Endpoints, es.Ports
		return old
	}); err != nil {
		return fmt.Errorf("the %s EndpointSlice: %w", metricsService, err)
	}
	as := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": metricsAPIService, "labels": map[string]any{"k8s-app": metricsService}},
		"spec": map[string]any{
			"group": "metrics.k8s.io", "version": "v1beta1",
			"service":               map[string]any{"namespace": metricsNamespace, "name": metricsService, "port": int64(443)},
			"insecureSkipTLSVerify": true,
			"groupPriorityMinimum":  int64(100),
			"versionPriority":       int64(100),
		},
	}}
	_, err = dyn.Resource(apiServiceResource).Apply(ctx, metricsAPIService, as, metav1.ApplyOptions{FieldManager: "latlab-podrunner", Force: true})
	if err != nil {
		return fmt.Errorf("the %s APIService: %w", metricsAPIService, err)
	}
	return nil
}

// objectClient is what createOrUpdate needs of a typed client.
type objectClient[T any] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
}

// createOrUpdate creates obj, or updates the existing object of its name
// with set.
func createOrUpdate[T metav1.Object](ctx context.Context, c objectClient[T], obj T, set func(T) T) error {
	_, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	old, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	_, err = c.Update(ctx, set(old), metav1.UpdateOptions{})
	return err
}

// metricsResources is the discovery document of metrics.k8s.io/v1beta1.
func (r *runner) metricsResources(w http.ResponseWriter, _ *http.Request) {
	verbs := metav1.Verbs{"get", "list"}
	writeMetricsJSON(w, http.StatusOK, &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: metricsGroupVersion,
		APIResources: []metav1.APIResource{
			{Name: "nodes", Kind: "NodeMetrics", Verbs: verbs},
			{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: verbs},
		},
	})
}

// listPodMetrics lists the metrics of the pods of a namespace (or all),
// with the labelSelector and fieldSelector metadata.name the clients use.
func (r *runner) listPodMetrics(w http.ResponseWriter, req *http.Request) {
	pods, err := r.selectPods(req, req.PathValue("namespace"))
	if err != nil {
		metricsError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	list := &metricsv1beta1.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: metricsGroupVersion}, Items: []metricsv1beta1.PodMetrics{}}
	for _, p := range pods {
		if m, ok := r.podMetrics(p); ok {
			list.Items = append(list.Items, *m)
		}
	}
	writeMetricsJSON(w, http.StatusOK, list)
}

// getPodMetrics is one pod's metrics, NotFound until it has a window.
func (r *runner) getPodMetrics(w http.ResponseWriter, req *http.Request) {
	ns, name := req.PathValue("namespace"), req.PathValue("name")
	gr := schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}
	p, err := r.pods.Pods(ns).Get(name)
	if err != nil {
		metricsError(w, apierrors.NewNotFound(gr, ns+"/"+name))
		return
	}
	m, ok := r.podMetrics(p)
	if !ok {
		metricsError(w, apierrors.NewNotFound(gr, ns+"/"+name))
		return
	}
	writeMetricsJSON(w, http.StatusOK, m)
}

// listNodeMetrics lists the nodes' metrics, or one node's: each node's
// usage is the sum of its pods', as the nodes share one machine.
func (r *runner) listNodeMetrics(w http.ResponseWriter, req *http.Request) {
	pods, err := r.selectPods(req, "")
	if err != nil {
		metricsError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	type sum struct {
		cores  float64
		memory int64
		at     time.Time
	}
	nodes := map[string]*sum{}
	for _, n := range r.nodes {
		nodes[n] = &sum{}
	}
	for _, p := range pods {
		s := nodes[p.Spec.NodeName]
		m, ok := r.podMetrics(p)
		if s == nil || !ok {
			continue
		}
		for _, c := range m.Containers {
			s.cores += c.Usage.Cpu().AsApproximateFloat64()
			s.memory += c.Usage.Memory().Value()
		}
		s.at = maxTime(s.at, m.Timestamp.Time)
	}
	window := metav1.Duration{Duration: r.usage.resolution}
	item := func(name string) metricsv1beta1.NodeMetrics {
		s := nodes[name]
		at := s.at
		if at.IsZero() {
			at = time.Now()
		}
		return metricsv1beta1.NodeMetrics{
			TypeMeta:   metav1.TypeMeta{Kind: "NodeMetrics", APIVersion: metricsGroupVersion},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: nodeLabels(name)},
			Timestamp:  metav1.NewTime(at), Window: window,
			Usage: corev1.ResourceList{corev1.ResourceCPU: cpuQuantity(s.cores),
				corev1.ResourceMemory: *resource.NewQuantity(s.memory, resource.BinarySI)},
		}
	}
	if name := req.PathValue("name"); name != "" {
		if nodes[name] == nil {
			metricsError(w, apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io", Resource: "nodes"}, name))
			return
		}
		writeMetricsJSON(w, http.StatusOK, ptr.To(item(name)))
		return
	}
	list := &metricsv1beta1.NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: metricsGroupVersion}}
	for _, n := range r.nodes {
		list.Items = append(list.Items, item(n))
	}
	writeMetricsJSON(w, http.StatusOK, list)
}

// selectPods returns the pods of namespace ns ("" for all) that the
// request's labelSelector and fieldSelector (metadata.name and
// metadata.namespace only) select, by namespace and name.
func (r *runner) selectPods(req *http.Request, ns string) ([]*corev1.Pod, error) {
	sel := labels.Everything()
	if s := req.URL.Query().Get("labelSelector"); s != "" {
		var err error
		if sel, err = labels.Parse(s); err != nil {
			return nil, fmt.Errorf("labelSelector: %w", err)
		}
	}
	pods, err := r.pods.Pods(ns).List(sel)
	if err != nil {
		return nil, err
	}
	if fs := req.URL.Query().Get("fieldSelector"); fs != "" {
		for term := range strings.SplitSeq(fs, ",") {
			field, value, ok := strings.Cut(strings.ReplaceAll(term, "==", "="), "=")
			if !ok || (field != "metadata.name" && field != "metadata.namespace") {
				return nil, fmt.Errorf("fieldSelector %q: only metadata.name= and metadata.namespace= are supported", term)
			}
			pods = slices.DeleteFunc(pods, func(p *corev1.Pod) bool {
				return field == "metadata.name" && p.Name != value || field == "metadata.namespace" && p.Namespace != value
			})
		}
	}
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return pods, nil
}

// podMetrics is pod p's usage over its last window, false while it has
// none: not running here, or not sampled twice.
func (r *runner) podMetrics(p *corev1.Pod) (*metricsv1beta1.PodMetrics, bool) {
	cs, ok := r.usage.pod(p.UID)
	if !ok {
		return nil, false
	}
	slices.SortFunc(cs, func(a, b containerMetrics) int { return strings.Compare(a.name, b.name) })
	m := &metricsv1beta1.PodMetrics{
		TypeMeta:   metav1.TypeMeta{Kind: "PodMetrics", APIVersion: metricsGroupVersion},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, CreationTimestamp: metav1.Now()},
	}
	for _, c := range cs {
		if c.at.After(m.Timestamp.Time) {
			m.Timestamp, m.Window = metav1.NewTime(c.at), metav1.Duration{Duration: c.window}
		}
		m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: c.name, Usage: corev1.ResourceList{
			corev1.ResourceCPU:    cpuQuantity(c.cores),
			corev1.ResourceMemory: *resource.NewQuantity(c.memory, resource.BinarySI),
		}})
	}
	return m, true
}

// cpuQuantity is cores in nanocores, as metrics-server reports them.
func cpuQuantity(cores float64) resource.Quantity {
	return *resource.NewScaledQuantity(int64(cores*1e9+0.5), resource.Nano)
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func writeMetricsJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// metricsError answers with err as the API's Status.
func metricsError(w http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	writeMetricsJSON(w, int(st.Code), &st)
}
