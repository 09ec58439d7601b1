package spec

import (
	"strings"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/latlab/latlab/yamlfile"
)

// nodeSelector decodes a load pod's node_selector: a mapping of node
// labels to their values, checked as the API server checks them.
func (d *decoder) nodeSelector(n *yaml.Node, path string) map[string]string {
	out := map[string]string{}
	good := d.Fields(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		if !d.valid(k, f, key, true, "a label's name", validation.IsQualifiedName) {
			return false
		}
		val, ok := d.str(v, f)
		if !d.valid(v, f, val, ok, "a label's value", validation.IsValidLabelValue) {
			return false
		}
		out[key] = val
		return true
	})
	if good && len(out) == 0 {
		d.errorf(n, path, "expected at least one label, such as kubernetes.io/os: linux")
	}
	return out
}

// valid reports whether s, decoded at n when ok, passes check, one of the
// API server's validations; what it finds wrong is an error saying s is
// not what.
func (d *decoder) valid(n *yaml.Node, field, s string, ok bool, what string, check func(string) []string) bool {
	if !ok {
		return false
	}
	if errs := check(s); len(errs) > 0 {
		d.errorf(n, field, "%q is not %s: %s", s, what, strings.Join(errs, "; "))
		return false
	}
	return true
}

// The operators and effects of a toleration.
var (
	tolerationOps     = []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}
	tolerationEffects = []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}
	tolerationKeys    = []string{"key", "operator", "value", "effect", "toleration_seconds"}
)

// tolerations decodes a load pod's tolerations: a list of them, each
// checked as the API server checks a pod's.
func (d *decoder) tolerations(n *yaml.Node, path string) []Toleration {
	var out []Toleration
	d.list(n, path, "toleration", func(i int, item *yaml.Node) {
		at := index(path, i)
		var t Toleration
		nodes := map[string]*yaml.Node{}
		if !d.Fields(item, at, nil, func(key, f string, k, v *yaml.Node) bool {
			nodes[key] = v
			ok := false
			switch key {
			case "key":
				t.Key, ok = d.text(v, f)
				ok = d.valid(v, f, t.Key, ok, "a taint's key", validation.IsQualifiedName)
			case "operator":
				t.Operator, ok = d.oneOf(v, f, tolerationOps...)
			case "value":
				t.Value, ok = d.str(v, f)
				ok = d.valid(v, f, t.Value, ok, "a taint's value", validation.IsValidLabelValue)
			case "effect":
				t.Effect, ok = d.oneOf(v, f, tolerationEffects...)
			case "toleration_seconds":
				var s int64
				if s, ok = d.integer(v, f, 0, 1<<40); ok {
					t.Seconds = &s
				}
			default:
				d.errorf(k, f, "%s", yamlfile.UnknownField(key, tolerationKeys...))
			}
			return ok
		}) || !yamlfile.IsMapping(item) {
			return
		}
		switch {
		case len(nodes) == 0:
			d.errorf(item, at, "expected key, operator, value or effect")
		case t.Operator == string(corev1.TolerationOpExists) && t.Value != "":
			d.errorf(nodes["value"], join(at, "value"), "operator Exists matches any value: give no value, or operator Equal")
		case t.Key == "" && t.Operator != string(corev1.TolerationOpExists):
			d.errorf(item, at, "a toleration without a key matches every taint, which only operator Exists can say: give a key, or operator: Exists")
		case t.Seconds != nil && t.Effect != string(corev1.TaintEffectNoExecute):
			d.errorf(nodes["toleration_seconds"], join(at, "toleration_seconds"), "bounds how long a pod stays on a node tainted NoExecute: give effect: NoExecute too")
		default:
			out = append(out, t)
		}
	})
	return out
}

// podResources decodes a load pod's resources: requests and limits of
// cpu and memory, each request no more than its limit.
func (d *decoder) podResources(n *yaml.Node, path string) PodResources {
	var r PodResources
	nodes := map[string]*yaml.Node{}
	good := d.Fields(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		switch key {
		case "requests":
			r.Requests, nodes[key] = d.quantities(v, f), v
		case "limits":
			r.Limits, nodes[key] = d.quantities(v, f), v
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "requests", "limits"))
			return false
		}
		return true
	})
	if !good || !yamlfile.IsMapping(n) {
		return r
	}
	if len(nodes) == 0 {
		d.errorf(n, path, "expected requests, limits or both, such as requests: {cpu: 500m, memory: 256Mi}")
	}
	for _, q := range []struct{ name, req, lim string }{
		{"cpu", r.Requests.CPU, r.Limits.CPU}, {"memory", r.Requests.Memory, r.Limits.Memory},
	} {
		if q.req == "" || q.lim == "" {
			continue
		}
		if req := resource.MustParse(q.req); req.Cmp(resource.MustParse(q.lim)) > 0 {
			d.errorf(nodes["requests"], join(path, "requests."+q.name), "%s is more than its limit %s: a container cannot request more than it may use", q.req, q.lim)
		}
	}
	return r
}

// quantities decodes a mapping of cpu and memory, each a positive
// Kubernetes quantity; a bad one is left "".
func (d *decoder) quantities(n *yaml.Node, path string) Quantities {
	var q Quantities
	good := d.Fields(n, path, nil, func(key, f string, k, v *yaml.Node) bool {
		var dst *string
		switch key {
		case "cpu":
			dst = &q.CPU
		case "memory":
			dst = &q.Memory
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "cpu", "memory"))
			return false
		}
		s, ok := d.str(v, f)
		if !ok {
			return false
		}
		if p, err := resource.ParseQuantity(s); err != nil {
			d.errorf(v, f, "%q is not a Kubernetes quantity (such as 500m, 2 or 256Mi)", s)
			return false
		} else if p.Sign() <= 0 {
			d.errorf(v, f, "%q is not positive", s)
			return false
		}
		*dst = s
		return true
	})
	if good && yamlfile.IsMapping(n) && q == (Quantities{}) {
		d.errorf(n, path, "give cpu, memory or both")
	}
	return q
}
