package graph

import (
	"math/big"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// stepKinds are the keys that give a step mapping its kind, in the order
// errors list them.
var stepKinds = []StepKind{Busywork, Prime, Sleep, Fork, Stress, Payload, Call}

// callOptions are the keys a call step takes beside call.
var callOptions = []string{"path", "size", "probability"}

// stepKeys are every key a step mapping may hold: the step kinds, then a
// call's options.
func stepKeys() []string {
	keys := make([]string, 0, len(stepKinds)+len(callOptions))
	for _, k := range stepKinds {
		keys = append(keys, string(k))
	}
	return append(keys, callOptions...)
}

// maxDuration bounds busywork, sleeps and delays; errors call it 1h.
const maxDuration = time.Hour

// script decodes a script: a sequence of steps.
func (d *decoder) script(n *yaml.Node, path string, r *refs) ([]Step, bool) {
	var steps []Step
	good := d.Sequence(n, path, func(i int, item *yaml.Node) {
		st, ok := d.step(item, yamlfile.Index(path, i), r, false)
		if ok {
			steps = append(steps, st)
		}
	})
	return steps, good && len(steps) == len(yamlfile.Deref(n).Content)
}

// step decodes one step of a script from n: a mapping, or a sequence of
// steps to run concurrently unless nested is set, since a parallel list
// holds steps, not lists.
func (d *decoder) step(n *yaml.Node, path string, r *refs, nested bool) (Step, bool) {
	switch n.Kind {
	case yaml.MappingNode:
		return d.single(n, path, r)
	case yaml.SequenceNode:
		if nested {
			d.Errorf(n, path, "a parallel list holds steps, not lists")
			return Step{}, false
		}
		if len(n.Content) == 0 {
			d.Errorf(n, path, "empty parallel list")
			return Step{}, false
		}
		st := Step{Kind: Parallel, Line: n.Line}
		good := d.Sequence(n, path, func(i int, item *yaml.Node) {
			s, ok := d.step(item, yamlfile.Index(path, i), r, true)
			if ok {
				st.Steps = append(st.Steps, s)
			}
		})
		return st, good && len(st.Steps) == len(n.Content)
	}
	d.Errorf(n, path, "expected a step such as {sleep: 1ms}, or a list of steps to run concurrently, got %s", yamlfile.Describe(n))
	return Step{}, false
}

// single decodes a step that is a mapping: one step kind and, for a call,
// its options.
func (d *decoder) single(n *yaml.Node, path string, r *refs) (Step, bool) {
	var kind StepKind
	var val *yaml.Node
	var opts [][2]*yaml.Node // keys and values of options, in file order
	good := true
	if !d.Mapping(n, path, func(key string, k, v *yaml.Node) {
		switch {
		case slices.Contains(stepKinds, StepKind(key)):
			if kind != "" {
				d.Errorf(k, path, "more than one step kind: %s and %s; give each its own list item", kind, key)
				good = false
				return
			}
			kind, val = StepKind(key), v
		case slices.Contains(callOptions, key):
			opts = append(opts, [2]*yaml.Node{k, v})
		default:
			d.Errorf(k, path+"."+key, "%s", yamlfile.UnknownField(key, stepKeys()...))
			good = false
		}
	}) {
		return Step{}, false
	}
	if kind == "" {
		if good {
			d.Errorf(n, path, "no step kind: expected one of busywork, prime, sleep, fork, stress, payload or call")
		}
		return Step{}, false
	}
	field := path + "." + string(kind)
	st := Step{Kind: kind, Line: n.Line}
	ok := false
	call := -1 // the index of its ref in r.calls, for a call step
	switch kind {
	case Busywork, Sleep:
		st.Duration, ok = d.Duration(val, field, maxDuration)
	case Prime:
		st.N, ok = d.Integer(val, field, 1, maxPrime)
	case Payload:
		st.N, ok = d.size(val, field, 1)
	case Fork, Stress, Call:
		if st.Name, ok = d.Text(val, field); !ok {
			break
		}
		rf := ref{name: st.Name, line: yamlfile.Deref(val).Line, field: field}
		switch kind {
		case Fork:
			r.forks = append(r.forks, rf)
		case Stress:
			r.stress = append(r.stress, rf)
		default:
			call = len(r.calls)
			r.calls = append(r.calls, rf)
			st.Prob = 1
		}
	}
	good = d.stepOptions(&st, opts, path) && good && ok
	if call >= 0 {
		r.calls[call].path = st.Path
	}
	return st, good
}

// stepOptions decodes the options of step st at path, given as keys and
// values: only a call step takes any.
func (d *decoder) stepOptions(st *Step, opts [][2]*yaml.Node, path string) bool {
	good := true
	for _, kv := range opts {
		k, v := kv[0], yamlfile.Deref(kv[1])
		f := path + "." + k.Value
		if st.Kind != Call {
			d.Errorf(k, f, "only a call step takes %s", k.Value)
			good = false
			continue
		}
		ok := false
		switch k.Value {
		case "path":
			st.Path, ok = d.callPath(v, f)
		case "size":
			st.N, ok = d.size(v, f, 0)
		case "probability":
			if st.Prob, ok = d.Number(v, f); ok && (st.Prob <= 0 || st.Prob > 1) {
				d.Errorf(v, f, "%s is not in (0, 1]", v.Value)
				ok = false
			}
		}
		good = good && ok
	}
	return good
}

// sizeUnits are the units of a size, decimal and binary.
var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
}

// size decodes a number of bytes between lo and maxSize: a whole number,
// or a number and a unit such as 4KB or 1.5MiB.
func (d *decoder) size(n *yaml.Node, field string, lo int64) (int64, bool) {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!str" {
		d.Errorf(n, field, "expected a size such as 512, 4KB or 1MiB, got %s", yamlfile.Describe(n))
		return 0, false
	}
	v, ok := parseSize(n.Value)
	if n.ShortTag() == "!!int" {
		ok = n.Decode(&v) == nil
	}
	switch {
	case !ok:
		d.Errorf(n, field, "%q is not a size (such as 512, 4KB or 1MiB)", n.Value)
	case v < lo:
		d.Errorf(n, field, "%q is less than %d", n.Value, lo)
	case v > maxSize:
		d.Errorf(n, field, "%q is more than 1GiB", n.Value)
	default:
		return v, true
	}
	return 0, false
}

// parseSize parses a whole number of bytes: digits with an optional
// fraction, an optional space and an optional unit of sizeUnits.
// It reports false for anything else, or more than maxSize+1.
func parseSize(s string) (int64, bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.TrimPrefix(s[i:], " ")
	mult, ok := sizeUnits[unit]
	if !ok || num == "" || strings.Count(num, ".") > 1 || num == "." {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, false
	}
	if r.Cmp(new(big.Rat).SetInt64(maxSize+1)) > 0 {
		return maxSize + 1, true
	}
	return r.Num().Int64(), true
}

// callPath decodes the route a call step calls.
func (d *decoder) callPath(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Str(n, field)
	if !ok {
		return "", false
	}
	switch {
	case !strings.HasPrefix(s, "/"):
		d.Errorf(n, field, "%q does not start with /", s)
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		d.Errorf(n, field, "%q holds a space or control character", s)
	default:
		if _, err := url.ParseRequestURI(s); err != nil {
			d.Errorf(n, field, "%q is not a valid path", s)
			return "", false
		}
		return s, true
	}
	return "", false
}
