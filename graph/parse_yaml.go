package graph

import (
	"fmt"
	"math"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// mapping calls f with each key of the mapping n, the key's node and the
// value's, after checking that the key is a string met once. path names n.
func (d *decoder) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node) error) error {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, path, "expected a mapping, got %s", yamlfile.Describe(n))
	}
	if err := d.spend(n, len(n.Content)/2); err != nil {
		return err
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := yamlfile.Deref(n.Content[i])
		if k.ShortTag() == "!!merge" {
			return d.errorf(k, path, "merge keys (<<) are not supported")
		}
		key, err := d.str(k, path)
		if err != nil {
			return err
		}
		field := join(path, key)
		if seen[key] {
			return d.errorf(k, field, "duplicate field")
		}
		seen[key] = true
		v := n.Content[i+1]
		if v.Kind == yaml.ScalarNode && v.Value == "" && v.ShortTag() == "!!null" {
			// A missing value sits at the next token; point at its key.
			v.Line = k.Line
		}
		if err := f(key, k, v); err != nil {
			return err
		}
	}
	return nil
}

// sequence calls f with the index and node of each item of the sequence n.
// path names n.
func (d *decoder) sequence(n *yaml.Node, path string, f func(i int, item *yaml.Node) error) error {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.SequenceNode {
		return d.errorf(n, path, "expected a sequence, got %s", yamlfile.Describe(n))
	}
	if err := d.spend(n, len(n.Content)); err != nil {
		return err
	}
	for i, item := range n.Content {
		if err := f(i, yamlfile.Deref(item)); err != nil {
			return err
		}
	}
	return nil
}

// spend takes k nodes from the budget, which bounds the work that aliases
// can multiply.
func (d *decoder) spend(n *yaml.Node, k int) error {
	if d.budget -= k; d.budget < 0 {
		return d.errorf(n, "", "too large: more than %d entries once aliases are expanded", maxNodes)
	}
	return nil
}

// join returns the field path of key inside path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// str decodes the scalar n as a string: a number, boolean or time stands
// for its text, but null does not.
func (d *decoder) str(n *yaml.Node, field string) (string, error) {
	n = yamlfile.Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
			return n.Value, nil
		}
	}
	return "", d.errorf(n, field, "expected a string, got %s", yamlfile.Describe(n))
}

// name decodes the scalar n as a non-empty string.
func (d *decoder) name(n *yaml.Node, field string) (string, error) {
	s, err := d.str(n, field)
	if err == nil && s == "" {
		err = d.errorf(n, field, "empty")
	}
	return s, err
}

// boolean decodes the scalar n as true or false.
func (d *decoder) boolean(n *yaml.Node, field string) (bool, error) {
	n = yamlfile.Deref(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		return false, d.errorf(n, field, "expected true or false, got %s", yamlfile.Describe(n))
	}
	return b, nil
}

// integer decodes the scalar n as a whole number between lo and hi. A
// float without a fraction, such as 1e6, counts.
func (d *decoder) integer(n *yaml.Node, field string, lo, hi int64) (int64, error) {
	n = yamlfile.Deref(n)
	var v int64
	ok := false
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			ok = n.Decode(&v) == nil
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
				v, ok = int64(f), true
			}
		}
	}
	switch {
	case !ok && n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float"):
		return 0, d.errorf(n, field, "%s is not a whole number in range", n.Value)
	case !ok:
		return 0, d.errorf(n, field, "expected a whole number, got %s", yamlfile.Describe(n))
	case v < lo:
		return 0, d.errorf(n, field, "%d is less than %d", v, lo)
	case v > hi:
		return 0, d.errorf(n, field, "%d is more than %d", v, hi)
	}
	return v, nil
}

// number decodes the scalar n as a finite number.
func (d *decoder) number(n *yaml.Node, field string) (float64, error) {
	n = yamlfile.Deref(n)
	var f float64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!float" || n.Decode(&f) != nil {
		return 0, d.errorf(n, field, "expected a number, got %s", yamlfile.Describe(n))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, d.errorf(n, field, "expected a finite number, got %s", n.Value)
	}
	return f, nil
}

// errorf returns a *SyntaxError at the line of n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) error {
	return d.errorAt(n.Line, field, format, args...)
}

// errorAt returns a *SyntaxError at line.
func (d *decoder) errorAt(line int, field, format string, args ...any) error {
	return &SyntaxError{File: d.file, Line: min(line, d.lines), Field: field, Msg: fmt.Sprintf(format, args...)}
}
