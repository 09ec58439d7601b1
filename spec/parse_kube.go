package spec

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/latlab/latlab/cluster"
	"github.com/latlab/latlab/yamlfile"
)

// kubeKeys are the fields of the spec's kubernetes mapping.
var kubeKeys = []string{"namespace", "image"}

// podKeys are the fields of the spec's load that say where it runs: they
// are the spec's, for every variant alike.
var podKeys = []string{"on", "image", "namespace", "node_selector", "tolerations", "resources"}

// kubernetes decodes the spec's kubernetes mapping.
func (d *decoder) kubernetes(n *yaml.Node) *Kubernetes {
	k := &Kubernetes{}
	d.Fields(n, "kubernetes", nil, func(key, f string, kn, v *yaml.Node) bool {
		ok := false
		switch key {
		case "namespace":
			k.Namespace, ok = d.namespace(v, f)
		case "image":
			k.Image, ok = d.image(v, f)
		default:
			d.errorf(kn, f, "%s", yamlfile.UnknownField(key, kubeKeys...))
		}
		return ok
	})
	return k
}

// namespace decodes the scalar n as a namespace's name.
func (d *decoder) namespace(n *yaml.Node, field string) (string, bool) {
	s, ok := d.text(n, field)
	if !d.valid(n, field, s, ok, "a namespace's name", validation.IsDNS1123Label) {
		return "", false
	}
	return s, true
}

// image decodes the scalar n as a container image reference.
func (d *decoder) image(n *yaml.Node, field string) (string, bool) {
	s, ok := d.text(n, field)
	if ok && strings.ContainsAny(s, " \t\n") {
		d.errorf(n, field, "%q is not a container image: it holds white space", s)
		return "", false
	}
	return s, ok
}

// loadPod takes the fields of podKeys out of the spec's load mapping n,
// decoding them, so that the rest decodes as load.Settings.
func (d *decoder) loadPod(n *yaml.Node) (*LoadPod, *yaml.Node) {
	n = yamlfile.Deref(n)
	if !yamlfile.IsMapping(n) {
		return nil, nil
	}
	given := map[string]*yaml.Node{}
	kept := n.Content[:0:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if slices.Contains(podKeys, k.Value) {
			given[k.Value] = v
			continue
		}
		kept = append(kept, k, v)
	}
	n.Content = kept
	on := given["on"]
	where, ok := "local", true
	if on != nil {
		where, ok = d.oneOf(on, "load.on", "local", OnKubernetes)
	}
	if !ok || where == "local" {
		for _, key := range podKeys[1:] {
			if v := given[key]; ok && v != nil {
				d.errorf(v, "load."+key, "is for load in a cluster: give on: kubernetes too")
			}
		}
		return nil, nil
	}
	for i := 0; i+1 < len(kept); i += 2 {
		if kept[i].Value == "realtime" && yamlfile.Deref(kept[i+1]).Value == "true" {
			d.errorf(kept[i+1], "load.realtime", "a load pod runs without capabilities, and real-time threads need CAP_SYS_NICE: drop it, or run the load here")
		}
	}
	lp := &LoadPod{}
	if v := given["image"]; v != nil {
		lp.Image, _ = d.image(v, "load.image")
	}
	if v := given["namespace"]; v != nil {
		lp.Namespace, _ = d.namespace(v, "load.namespace")
	}
	if v := given["node_selector"]; v != nil {
		lp.NodeSelector = d.nodeSelector(v, "load.node_selector")
	}
	if v := given["tolerations"]; v != nil {
		lp.Tolerations = d.tolerations(v, "load.tolerations")
	}
	if v := given["resources"]; v != nil {
		lp.Resources = d.podResources(v, "load.resources")
	}
	return lp, on
}

// variantKubernetes decodes a variant's kubernetes mapping.
// It returns the node of manifests too, nil when not given.
func (d *decoder) variantKubernetes(n *yaml.Node, path string) (*VariantKubernetes, *yaml.Node, bool) {
	k := &VariantKubernetes{}
	var manifests *yaml.Node
	ok := true
	d.Fields(n, path, nil, func(key, f string, kn, v *yaml.Node) bool {
		var good bool
		switch key {
		case "manifests":
			k.Manifests, good = d.text(v, f)
			manifests = v
		case "namespace":
			k.Namespace, good = d.namespace(v, f)
		default:
			d.errorf(kn, f, "%s", yamlfile.UnknownField(key, "manifests", "namespace"))
		}
		ok = ok && good
		return good
	})
	return k, manifests, ok && yamlfile.IsMapping(n)
}

// manifests reads the objects of a variant's kubernetes.manifests, written
// at n: a file or a folder of them, each hashed like the spec's other
// files. An agent, which deploys nothing, does not read them.
func (d *decoder) manifests(n *yaml.Node, field, written string) []*unstructured.Unstructured {
	if d.unrun {
		return nil
	}
	path := d.out.Path(written)
	files, err := cluster.ManifestFiles(path)
	if err != nil {
		d.errorf(n, field, "%v", err)
		return nil
	}
	var out []*unstructured.Unstructured
	for _, file := range files {
		f := d.read(file)
		if f.err != nil {
			d.errorf(n, field, "%v", f.err)
			return nil
		}
		key := written
		if file != path {
			key = written + " " + filepath.Base(file)
		}
		d.sums[key] = Sum(f.data)
		objs, err := cluster.ParseManifests(file, f.data)
		if err != nil {
			d.add(n.Line, err)
			return nil
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		d.errorf(n, field, "%s holds no Kubernetes object", written)
	}
	return out
}

// kubeNodes are the nodes of a variant's fields that place it on a
// cluster, for the checks of checkKube.
type kubeNodes struct {
	on, kube, manifests, graph, ready *yaml.Node
	path                              string
}

// checkVariantKube reports the fields of v that cannot stand together on a
// cluster.
func (d *decoder) checkVariantKube(v *Variant, kn kubeNodes) {
	switch {
	case kn.on != nil && v.On == OnKubernetes && kn.graph == nil:
		d.errorf(kn.on, join(kn.path, "on"), "is for graphs: deploy a target with kubernetes: {manifests: FILE}")
	case kn.manifests != nil && kn.graph != nil:
		d.errorf(kn.manifests, join(kn.path, "kubernetes.manifests"), "is for targets: a graph goes to the cluster with on: kubernetes")
	case kn.kube != nil && v.Kubernetes != nil && v.Kubernetes.Manifests == "" && v.On != OnKubernetes:
		d.errorf(kn.kube, join(kn.path, "kubernetes"), "places a variant on the cluster: give manifests (a target) or on: kubernetes (a graph)")
	case v.InCluster() && kn.ready != nil:
		d.errorf(kn.ready, join(kn.path, "ready"), "a variant on a cluster is ready once its workloads have rolled out and its Services have ready endpoints; ready is for targets here")
	}
}

// checkKube reports what the spec's variants and load on a cluster lack:
// an image, a load where the variants' services answer, namespaces of
// their own.
func (d *decoder) checkKube(s *Spec, kubeNode, loadOn *yaml.Node, vnodes map[string]kubeNodes) {
	image := ""
	if s.Kubernetes != nil {
		image = s.Kubernetes.Image
	}
	if s.LoadPod != nil && s.LoadPod.Image == "" {
		if image == "" {
			d.errorf(loadOn, "load.on", "load in a cluster runs a latlab image: give load.image or kubernetes.image")
		}
		s.LoadPod.Image = image
	}
	seen := map[string]string{} // kind/namespace/name → variant
	for i := range s.Variants {
		v := &s.Variants[i]
		kn := vnodes[v.Name]
		switch {
		case v.On == OnKubernetes && image == "":
			d.errorf(kn.on, join(kn.path, "on"), "a graph on a cluster runs a latlab image: give kubernetes.image")
		case v.On == OnKubernetes && s.LoadPod == nil:
			d.errorf(kn.on, join(kn.path, "on"), "its services answer inside the cluster only: run the load there too, with load: {on: kubernetes}")
		case v.Graph != "" && v.On != OnKubernetes && s.LoadPod != nil:
			d.errorf(kn.graph, join(kn.path, "graph"), "a graph started here answers on 127.0.0.1, which a load pod cannot reach: give on: kubernetes to deploy it to the cluster")
		}
		if v.Topology != nil && v.On == OnKubernetes {
			prefix := GraphPrefix(v.Name)
			for _, svc := range v.Topology.Services {
				if name := prefix + strings.ToLower(svc.Name); len(name) > validation.DNS1035LabelMaxLength {
					d.errorf(kn.graph, join(kn.path, "graph"), "service %s on the cluster is the Service %s, longer than %d characters: shorten the variant's or the service's name",
						svc.Name, name, validation.DNS1035LabelMaxLength)
				}
			}
		}
		for _, o := range v.Objects {
			key := fmt.Sprintf("%s/%s/%s", o.GetKind(), cmp.Or(o.GetNamespace(), v.Namespace(s)), o.GetName())
			if other, dup := seen[key]; dup && other != v.Name {
				d.errorf(kn.manifests, join(kn.path, "kubernetes.manifests"), "%s %s is variant %s's too: give the variants namespaces of their own (kubernetes.namespace)",
					strings.ToLower(o.GetKind()), o.GetName(), other)
			}
			seen[key] = v.Name
		}
	}
	// Profiles of a variant on a cluster come through the API server's
	// service proxy, from the Service its target names.
	if pp := s.Probes.Pprof; pp != nil && pp.URL == "" {
		for _, v := range s.Variants {
			if v.InCluster() && v.Target != "" {
				if _, _, _, err := cluster.ParseServiceURL(v.Target); err != nil {
					d.errorf(d.pprofAt, "probes.pprof", "variant %s's profiles come through the API server from the Service its target names, and %v: give url: of its /debug/pprof as this machine reaches it", v.Name, err)
				}
			}
		}
	}
	if kubeNode != nil && s.LoadPod == nil && !slices.ContainsFunc(s.Variants, func(v Variant) bool { return v.InCluster() }) {
		d.errorf(kubeNode, "kubernetes", "nothing runs on the cluster: give a variant on: kubernetes or kubernetes.manifests, or load: {on: kubernetes}")
	}
}

// Namespace returns the namespace v deploys to, as the spec gives it; ""
// means the kubeconfig's.
func (v *Variant) Namespace(s *Spec) string {
	if v.Kubernetes != nil && v.Kubernetes.Namespace != "" {
		return v.Kubernetes.Namespace
	}
	if s.Kubernetes != nil {
		return s.Kubernetes.Namespace
	}
	return ""
}

// GraphPrefix begins the names of the objects of variant's graph on a
// cluster, so that the graphs of several variants share a namespace.
func GraphPrefix(variant string) string { return cluster.DNSName(variant, 30) + "-" }
