package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/latlab/latlab/spec"
)

// placeFlags are attack's flags that place its load pods on a cluster's
// nodes: the spec's load.node_selector, load.tolerations and
// load.resources.
type placeFlags struct {
	nodeSelector []string // KEY=VALUE
	tolerations  []string // KEY[=VALUE][:EFFECT]
	requests     string   // cpu=Q,memory=Q
	limits       string
}

// placeOnly are the flags of placeFlags, which only an attack from a pod
// takes.
var placeOnly = []string{"node-selector", "toleration", "pod-requests", "pod-limits"}

// register adds the flags to fl.
func (p *placeFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&p.nodeSelector, "node-selector", nil, "with --kubernetes: a label KEY=VALUE the load pods' node must have (repeatable)")
	fl.StringArrayVar(&p.tolerations, "toleration", nil, "with --kubernetes: let the load pods run on nodes of this taint: KEY=VALUE:EFFECT, KEY:EFFECT for any value, or KEY (repeatable)")
	fl.StringVar(&p.requests, "pod-requests", "", "with --kubernetes: the CPU and memory each load pod requests of its node, such as cpu=1,memory=256Mi")
	fl.StringVar(&p.limits, "pod-limits", "", "with --kubernetes: the CPU and memory each load pod is limited to, such as cpu=2,memory=512Mi")
}

// add writes the flags into ld, the spec's load, whose parser checks the
// values: a problem it finds names the flag (see specFlag).
func (p *placeFlags) add(ld *spec.Map) error {
	if len(p.nodeSelector) > 0 {
		sel := &spec.Map{}
		for _, kv := range p.nodeSelector {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return usagef("--node-selector %q: want KEY=VALUE, such as kubernetes.io/os=linux", kv)
			}
			sel.Add(k, v)
		}
		ld.Add("node_selector", sel)
	}
	if len(p.tolerations) > 0 {
		var tols []*spec.Map
		for _, s := range p.tolerations {
			tol := &spec.Map{}
			rest, effect, hasEffect := strings.Cut(s, ":")
			key, value, hasValue := strings.Cut(rest, "=")
			if key != "" {
				tol.Add("key", key)
			}
			if hasValue {
				tol.Add("value", value)
			} else {
				tol.Add("operator", "Exists")
			}
			if hasEffect {
				tol.Add("effect", effect)
			}
			tols = append(tols, tol)
		}
		ld.Add("tolerations", tols)
	}
	if p.requests == "" && p.limits == "" {
		return nil
	}
	res := &spec.Map{}
	for _, q := range []struct{ flag, key, list string }{{"--pod-requests", "requests", p.requests}, {"--pod-limits", "limits", p.limits}} {
		if q.list == "" {
			continue
		}
		m := &spec.Map{}
		for _, kv := range strings.Split(q.list, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return usagef("%s %q: want NAME=QUANTITY,..., such as cpu=1,memory=256Mi", q.flag, q.list)
			}
			m.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		res.Add(q.key, m)
	}
	ld.Add("resources", res)
	return nil
}
