package graph

import (
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
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
func (d *decoder) script(n *yaml.Node, path string, r *refs) ([]Step, error) {
	var steps []Step
	err := d.sequence(n, path, func(i int, item *yaml.Node) error {
		st, err := d.step(item, fmt.Sprintf("%s[%d]", path, i), r, false)
		steps = append(steps, st)
		return err
	})
	if err != nil || len(steps) == 0 {
		return nil, err
	}
	return steps, nil
}

// step decodes one step of a script from n: a mapping, or a sequence of
// steps to run concurrently unless nested is set, since a parallel list
// holds steps, not lists.
func (d *decoder) step(n *yaml.Node, path string, r *refs, nested bool) (Step, error) {
	switch n.Kind {
	case yaml.MappingNode:
		return d.single(n, path, r)
	case yaml.SequenceNode:
		if nested {
			return Step{}, d.errorf(n, path, "a parallel list holds steps, not lists")
		}
		if len(n.Content) == 0 {
			return Step{}, d.errorf(n, path, "empty parallel list")
		}
		st := Step{Kind: Parallel, Line: n.Line}
		err := d.sequence(n, path, func(i int, item *yaml.Node) error {
			s, err := d.step(item, fmt.Sprintf("%s[%d]", path, i), r, true)
			st.Steps = append(st.Steps, s)
			return err
		})
		return st, err
	}
	return Step{}, d.errorf(n, path, "expected a step such as {sleep: 1ms}, or a list of steps to run concurrently, got %s", yamlfile.Describe(n))
}

// single decodes a step that is a mapping: one step kind and, for a call,
// its options.
func (d *decoder) single(n *yaml.Node, path string, r *refs) (Step, error) {
	var kind StepKind
	var val *yaml.Node
	var opts [][2]*yaml.Node // keys and values of options, in file order
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		switch {
		case slices.Contains(stepKinds, StepKind(key)):
			if kind != "" {
				return d.errorf(k, path, "more than one step kind: %s and %s; give each its own list item", kind, key)
			}
			kind, val = StepKind(key), v
		case slices.Contains(callOptions, key):
			opts = append(opts, [2]*yaml.Node{k, v})
		default:
			return d.errorf(k, path+"."+key, "%s", yamlfile.UnknownField(key, stepKeys()...))
		}
		return nil
	})
	if err != nil {
		return Step{}, err
	}
	if kind == "" {
		return Step{}, d.errorf(n, path, "no step kind: expected one of busywork, prime, sleep, fork, stress, payload or call")
	}
	field := path + "." + string(kind)
	st := Step{Kind: kind, Line: n.Line}
	switch kind {
	case Busywork, Sleep:
		st.Duration, err = d.duration(val, field)
	case Prime:
		st.N, err = d.integer(val, field, 1, maxPrime)
	case Payload:
		st.N, err = d.size(val, field, 1)
	case Fork, Stress, Call:
		if st.Name, err = d.name(val, field); err != nil {
			break
		}
		rf := ref{st.Name, yamlfile.Deref(val).Line, field}
		switch kind {
		case Fork:
			r.forks = append(r.forks, rf)
		case Stress:
			r.stress = append(r.stress, rf)
		default:
			r.calls = append(r.calls, rf)
			st.Prob = 1
		}
	}
	if err != nil {
		return Step{}, err
	}
	for _, kv := range opts {
		k, v := kv[0], yamlfile.Deref(kv[1])
		f := path + "." + k.Value
		if kind != Call {
			return Step{}, d.errorf(k, f, "only a call step takes %s", k.Value)
		}
		switch k.Value {
		case "path":
			st.Path, err = d.callPath(v, f)
		case "size":
			st.N, err = d.size(v, f, 0)
		case "probability":
			if st.Prob, err = d.number(v, f); err == nil && (st.Prob <= 0 || st.Prob > 1) {
				err = d.errorf(v, f, "%s is not in (0, 1]", v.Value)
			}
		}
		if err != nil {
			return Step{}, err
		}
	}
	return st, nil
}

// duration decodes a duration in (0, maxDuration], such as 10ms.
func (d *decoder) duration(n *yaml.Node, field string) (time.Duration, error) {
	s, err := d.str(n, field)
	if err != nil {
		return 0, err
	}
	v, err := time.ParseDuration(s)
	switch {
	case err != nil:
		if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			return 0, d.errorf(n, field, "%q is not a duration: give a unit, such as %sms", s, s)
		}
		return 0, d.errorf(n, field, "%q is not a duration", s)
	case v <= 0:
		return 0, d.errorf(n, field, "%q is not positive", s)
	case v > maxDuration:
		return 0, d.errorf(n, field, "%q is more than 1h", s)
	}
	return v, nil
}

// sizeUnits are the units of a size, decimal and binary.
var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
}

// size decodes a number of bytes between lo and maxSize: a whole number,
// or a number and a unit such as 4KB or 1.5MiB.
func (d *decoder) size(n *yaml.Node, field string, lo int64) (int64, error) {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!str" {
		return 0, d.errorf(n, field, "expected a size such as 512, 4KB or 1MiB, got %s", yamlfile.Describe(n))
	}
	v, ok := parseSize(n.Value)
	if n.ShortTag() == "!!int" {
		ok = n.Decode(&v) == nil
	}
	switch {
	case !ok:
		return 0, d.errorf(n, field, "%q is not a size (such as 512, 4KB or 1MiB)", n.Value)
	case v < lo:
		return 0, d.errorf(n, field, "%q is less than %d", n.Value, lo)
	case v > maxSize:
		return 0, d.errorf(n, field, "%q is more than 1GiB", n.Value)
	}
	return v, nil
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
func (d *decoder) callPath(n *yaml.Node, field string) (string, error) {
	s, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	switch {
	case !strings.HasPrefix(s, "/"):
		return "", d.errorf(n, field, "%q does not start with /", s)
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return "", d.errorf(n, field, "%q holds a space or control character", s)
	}
	if _, err := url.ParseRequestURI(s); err != nil {
		return "", d.errorf(n, field, "%q is not a valid path", s)
	}
	return s, nil
}
