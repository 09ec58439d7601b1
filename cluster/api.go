package cluster

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// The typed objects go through REST clients of the few API groups latlab
// reads and writes, over a scheme of their types alone. client-go's
// Clientset, its typed group clients and its discovery client would each
// link the scheme of every API group Kubernetes has, which any program
// that imports them registers at start-up, whatever it runs.

// addToScheme registers the types of the groups latlab reads typed.
var addToScheme = []func(*runtime.Scheme) error{
	corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, discoveryv1.AddToScheme, metricsv1beta1.AddToScheme,
}

// codecs are the scheme of addToScheme's groups and its serializers,
// made at the first connection.
type codecs struct {
	scheme     *runtime.Scheme
	factory    serializer.CodecFactory
	serializer runtime.NegotiatedSerializer // of the REST clients
	params     runtime.ParameterCodec       // options as query parameters
}

var typedCodecs = sync.OnceValues(func() (*codecs, error) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	for _, add := range addToScheme {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	f := serializer.NewCodecFactory(s)
	return &codecs{scheme: s, factory: f, serializer: rest.CodecFactoryForGeneratedClient(s, f).WithoutConversion(),
		params: runtime.NewParameterCodec(s)}, nil
})

// A group is a REST client of one API group version.
type group struct {
	rest   rest.Interface
	params runtime.ParameterCodec
}

// newGroup returns the client of gv over hc, as client-go's generated
// client of gv makes it.
func newGroup(cfg *rest.Config, hc *http.Client, gv schema.GroupVersion) (group, error) {
	cs, err := typedCodecs()
	if err != nil {
		return group{}, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = cs.serializer
	rc, err := rest.RESTClientForConfigAndClient(cfg, hc)
	if err != nil {
		return group{}, err
	}
	return group{rest: rc, params: cs.params}, nil
}

// typedGroups are the clients of the groups latlab reads typed.
type typedGroups struct {
	coreV1, appsV1, batchV1, discoveryV1, metricsV1beta1 group
}

// newTypedGroups makes the clients of the typed groups, sharing one rate
// limit as a Clientset's do.
func newTypedGroups(cfg *rest.Config, hc *http.Client) (typedGroups, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	var g typedGroups
	var err error
	for _, c := range []struct {
		g  *group
		gv schema.GroupVersion
	}{
		{&g.coreV1, corev1.SchemeGroupVersion},
		{&g.appsV1, appsv1.SchemeGroupVersion},
		{&g.batchV1, batchv1.SchemeGroupVersion},
		{&g.discoveryV1, discoveryv1.SchemeGroupVersion},
		{&g.metricsV1beta1, metricsv1beta1.SchemeGroupVersion},
	} {
		if *c.g, err = newGroup(cfg, hc, c.gv); err != nil {
			return typedGroups{}, fmt.Errorf("client of %s: %w", c.gv, err)
		}
	}
	return g, nil
}

// object is a pointer to an API type T.
type object[T any] interface {
	*T
	runtime.Object
}

// get reads the object name of resource in namespace ("" for a resource
// that is not namespaced).
func get[T any, P object[T]](ctx context.Context, g group, resource, namespace, name string) (*T, error) {
	out := P(new(T))
	err := g.rest.Get().UseProtobufAsDefault().NamespaceIfScoped(namespace, namespace != "").
		Resource(resource).Name(name).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// list reads the objects of resource in namespace that opts select, into
// a list of type L.
func list[L any, P object[L]](ctx context.Context, g group, resource, namespace string, opts metav1.ListOptions) (*L, error) {
	out := P(new(L))
	err := g.rest.Get().UseProtobufAsDefault().NamespaceIfScoped(namespace, namespace != "").
		Resource(resource).VersionedParams(&opts, g.params).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// create creates obj, of resource in namespace, and returns it as the
// server made it.
func create[T any, P object[T]](ctx context.Context, g group, resource, namespace string, obj P, opts metav1.CreateOptions) (*T, error) {
	out := P(new(T))
	err := g.rest.Post().UseProtobufAsDefault().NamespaceIfScoped(namespace, namespace != "").
		Resource(resource).VersionedParams(&opts, g.params).Body(obj).Do(ctx).Into(out)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// remove deletes the object name of resource in namespace.
func remove(ctx context.Context, g group, resource, namespace, name string, opts metav1.DeleteOptions) error {
	return g.rest.Delete().UseProtobufAsDefault().NamespaceIfScoped(namespace, namespace != "").
		Resource(resource).Name(name).Body(&opts).Do(ctx).Error()
}
