package experiment

import (
	"fmt"
	"strconv"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the mapping entries and sequence items a spec may expand
// to through aliases.
const maxNodes = 1 << 16

// errorf records a *SyntaxError at the line of n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.addf(min(n.Line, d.lines), field, format, args...)
}

// mapping calls f with each key of the mapping n, the key's node and the
// value's, after checking that the key is a string met once; it reports
// false if n is not a mapping. path names n.
func (d *decoder) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) bool {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping, got %s", yamlfile.Describe(n))
		return false
	}
	if !d.spend(n, len(n.Content)/2) {
		return false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := yamlfile.Deref(n.Content[i])
		if k.ShortTag() == "!!merge" {
			d.errorf(k, path, "merge keys (<<) are not supported")
			continue
		}
		key, ok := d.str(k, path)
		if !ok {
			continue
		}
		if seen[key] {
			d.errorf(k, join(path, key), "duplicate field")
			continue
		}
		seen[key] = true
		v := n.Content[i+1]
		if v.Kind == yaml.ScalarNode && v.Value == "" && v.ShortTag() == "!!null" {
			// A missing value sits at the next token; point at its key.
			v.Line = k.Line
		}
		f(key, k, v)
	}
	return true
}

// list calls f with the index and node of each item of the sequence n,
// after checking that it has at least one item, called what in errors.
func (d *decoder) list(n *yaml.Node, path, what string, f func(i int, item *yaml.Node)) {
	n = yamlfile.Deref(n)
	switch {
	case n.Kind != yaml.SequenceNode:
		d.errorf(n, path, "expected a sequence, got %s", yamlfile.Describe(n))
		return
	case len(n.Content) == 0:
		d.errorf(n, path, "expected at least one %s", what)
		return
	case !d.spend(n, len(n.Content)):
		return
	}
	for i, item := range n.Content {
		f(i, yamlfile.Deref(item))
	}
}

// spend takes k nodes from the budget, which bounds the work that aliases
// can multiply.
func (d *decoder) spend(n *yaml.Node, k int) bool {
	if d.budget -= k; d.budget < 0 {
		if d.budget+k >= 0 { // report once
			d.errorf(n, "", "too large: more than %d entries once aliases are expanded", maxNodes)
		}
		return false
	}
	return true
}

// join returns the field path of key inside path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index returns the field path of item i of path.
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// got describes n for errors: a scalar by its value, anything else by kind.
func got(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return strconv.Quote(n.Value)
		default:
			return n.Value
		}
	}
	return yamlfile.Describe(n)
}
