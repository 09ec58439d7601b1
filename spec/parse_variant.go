package spec

import (
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/yamlfile"
)

// DefaultKubeReadyTimeout is how long a variant on a cluster may take to
// roll out when the spec does not say: images may have to be pulled.
const DefaultKubeReadyTimeout = 5 * time.Minute

// variantKeys are the fields of a variant.
var variantKeys = []string{"name", "graph", "target", "start", "setup", "configure", "teardown", "ready", "ready_timeout", "load", "expect", "on", "kubernetes"}

// checkGraphOrTarget checks that the variant at path, whose fields are
// keys, gives a graph or a target, not both, and no target's fields with a
// graph.
func (d *decoder) checkGraphOrTarget(n *yaml.Node, path string, keys map[string]*yaml.Node) {
	graph, target := keys["graph"], keys["target"]
	switch {
	case graph == nil && target == nil:
		d.errorf(n, path, "give graph (a topology file) or target (a URL)")
	case graph != nil && target != nil:
		later, first, name := target, graph, "graph"
		if graph.Line > target.Line {
			later, first, name = graph, target, "target"
		}
		d.errorf(later, join(path, later.Value), "cannot be used with %s (line %d): give graph or target, not both", name, first.Line)
	case graph != nil && keys["start"] != nil:
		d.errorf(keys["start"], join(path, "start"), "latlab starts a graph itself; start is for targets")
	case graph != nil && keys["ready"] != nil:
		d.errorf(keys["ready"], join(path, "ready"), "a graph is ready when its nodes answer; ready is for targets")
	}
}

// overrideLoad is a variant's load: the spec's, base, with the variant's
// fields over merged in, and the names of those fields, sorted.
func (d *decoder) overrideLoad(base, over []entry, baseScope scope) ([]string, Load) {
	var keys []string
	for _, e := range over {
		keys = append(keys, e.key)
	}
	slices.Sort(keys)
	return keys, d.buildLoad(merge(base, over), baseScope, baseScope.line > 0)
}

// variant decodes variant i from n, with its load: base merged with its
// overrides. It returns the line of the variant's name, and false when the
// variant has no usable name.
func (d *decoder) variant(i int, n *yaml.Node, s *Spec, base []entry, baseScope scope) (Variant, int, bool) {
	path := index("variants", i)
	v := Variant{ReadyTimeout: DefaultReadyTimeout}
	keys := map[string]*yaml.Node{}
	var over []entry
	var overScope scope
	var named bool
	var manifests *yaml.Node // kubernetes.manifests
	d.Fields(n, path, []string{"name"}, func(key, f string, k, val *yaml.Node) bool {
		keys[key] = k
		ok := false
		switch key {
		case "name":
			v.Name, ok = d.name(val, f)
			named = ok
		case "graph":
			v.Graph, v.Topology = d.topology(val, f)
			ok = v.Topology != nil
		case "target":
			v.Target, ok = d.Target(val, f)
		case "start":
			v.Start, ok = d.command(val, f)
		case "setup":
			v.Setup, ok = d.command(val, f)
		case "configure":
			v.Configure, ok = d.command(val, f)
		case "teardown":
			v.Teardown, ok = d.command(val, f)
		case "ready":
			v.Ready, ok = d.url(val, f)
		case "ready_timeout":
			ok = keep(&v.ReadyTimeout)(d.duration(val, f))
		case "load":
			overScope = scope{line: k.Line, path: f}
			over, ok = d.entries(val, f, overScope)
		case "on":
			v.On, ok = d.oneOf(val, f, "local", OnKubernetes)
			if v.On == "local" {
				v.On = ""
			}
		case "kubernetes":
			v.Kubernetes, manifests, ok = d.variantKubernetes(val, f)
		case "expect":
			v.Expect = d.percentilesOr(val, f, "percentile", d.unreported(f, "latlab reports"))
			ok = true
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, variantKeys...))
		}
		return ok
	})
	if !yamlfile.IsMapping(n) {
		return v, 0, false
	}
	d.checkGraphOrTarget(n, path, keys)
	kn := kubeNodes{on: keys["on"], kube: keys["kubernetes"], graph: keys["graph"], ready: keys["ready"], path: path}
	kn.manifests = manifests
	if manifests != nil && v.Kubernetes != nil {
		v.Objects = d.manifests(manifests, join(path, "kubernetes.manifests"), v.Kubernetes.Manifests)
	}
	d.checkVariantKube(&v, kn)
	if v.InCluster() && keys["ready_timeout"] == nil {
		v.ReadyTimeout = DefaultKubeReadyTimeout
	}
	if len(over) == 0 {
		v.Load = s.Load
	} else {
		v.Overrides, v.Load = d.overrideLoad(base, over, baseScope)
	}
	d.checkGRPCEntry(&v, keys["graph"], path)
	if !named {
		return v, 0, false
	}
	d.kube[v.Name] = kn
	return v, keys["name"].Line, true
}

// checkGRPCEntry checks the load of a variant whose graph enters at a
// gRPC service: its path, when given, names a method, not an HTTP route.
func (d *decoder) checkGRPCEntry(v *Variant, graphKey *yaml.Node, path string) {
	if v.Topology == nil || v.Topology.Entry() == nil || v.Topology.Entry().Protocol != graph.GRPC {
		return
	}
	p := v.Load.Path
	if p == "" {
		return
	}
	if svc, method, ok := strings.Cut(strings.TrimPrefix(p, "/"), "/"); !ok || svc == "" || method == "" || strings.ContainsAny(method, "/?") {
		d.errorf(graphKey, join(path, "graph"), "%s enters at %s, a gRPC service: load.path %q is not a method; leave it out (%s) or name one, such as %s",
			v.Graph, v.Topology.Entry().Name, p, graph.RunMethod, graph.RunStreamPath)
	}
}
