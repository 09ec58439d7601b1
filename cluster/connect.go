package cluster

import (
	"fmt"
	"net/http"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Options say how to reach a cluster. The zero value is kubectl's default:
// the files of $KUBECONFIG, else ~/.kube/config, with their current
// context, else the in-cluster configuration of a pod.
type Options struct {
	Kubeconfig string // a kubeconfig file; "" means $KUBECONFIG or ~/.kube/config
	Context    string // a context of it; "" means its current one
}

// A Cluster is a connection to a Kubernetes API server.
type Cluster struct {
	Config  *rest.Config
	Dynamic dynamic.Interface
	// Where is where the configuration came from: the kubeconfig's
	// context and server, or "in-cluster".
	Where string
	// Namespace is the context's namespace, or the pod's in-cluster;
	// "default" when neither names one. Objects go there unless told
	// otherwise, as with kubectl.
	Namespace string

	typedGroups // clients of the groups read typed
	kinds       kindCache
	http        *http.Client // the API server's, with its credentials

	nodeCPUs sync.Map // node name → allocatable cores, for PodMetrics
}

// Connect returns a connection to the cluster o names. It does not talk
// to the API server yet: the first call that needs it does.
func Connect(o Options) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, fmt.Errorf("no Kubernetes configuration: give --kubeconfig, set $KUBECONFIG, write ~/.kube/config, or run in a pod")
		}
		return nil, fmt.Errorf("reading the Kubernetes configuration: %w", err)
	}
	where := "in-cluster " + cfg.Host
	if raw, err := cc.RawConfig(); err == nil && len(raw.Contexts) > 0 {
		name := o.Context
		if name == "" {
			name = raw.CurrentContext
		}
		where = fmt.Sprintf("context %s, %s", name, cfg.Host)
	}
	c, err := connect(cfg, where)
	if err != nil {
		return nil, err
	}
	if ns, _, err := cc.Namespace(); err == nil && ns != "" {
		c.Namespace = ns
	}
	return c, nil
}

// connect builds the clients of cfg.
func connect(cfg *rest.Config, where string) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	// An experiment polls a handful of objects and pods; kubectl's 5/s
	// would make a wait for many of them crawl.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "latlab"
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}
	typed, err := newTypedGroups(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", cfg.Host, err)
	}
	return &Cluster{
		Config: cfg, Dynamic: dyn, Where: where, Namespace: corev1.NamespaceDefault,
		typedGroups: typed, http: hc,
	}, nil
}
