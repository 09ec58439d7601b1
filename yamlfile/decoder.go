package yamlfile

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// A Decoder reads one file's YAML nodes strictly — mappings whose keys are
// strings met once and not merge keys (<<), sequences, scalars of the
// expected kind — collecting each problem as a *SyntaxError naming the
// file, line and field instead of stopping at the first. Err returns them.
//
// Each method that reads a node reports whether it could, so that a
// parser goes on past a bad field but does not build on it.
type Decoder struct {
	file     string
	lines    int // the number of the last line
	budget   int // entries left to read; see NewDecoder
	maxNodes int
	problems problems
}

// NewDecoder returns a Decoder of data, the file called file in errors,
// that reads at most maxNodes mapping entries and sequence items, counted
// as often as aliases repeat them: aliases can make a small file expand
// past any memory.
func NewDecoder(file string, data []byte, maxNodes int) *Decoder {
	return &Decoder{file: file, lines: Lines(data), budget: maxNodes, maxNodes: maxNodes, problems: problems{file: file}}
}

// File returns the name of the file, as given to NewDecoder.
func (d *Decoder) File() string { return d.file }

// Errorf records a *SyntaxError at the line of n.
func (d *Decoder) Errorf(n *yaml.Node, field, format string, args ...any) {
	d.ErrorAt(n.Line, field, format, args...)
}

// ErrorAt records a *SyntaxError at line, or at the last line if line is
// past it: the YAML parser puts a value missing at the end of the file on
// the line after.
func (d *Decoder) ErrorAt(line int, field, format string, args ...any) {
	line = min(line, d.lines)
	d.problems.add(line, &SyntaxError{File: d.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Add records err, found at line of the file: the error of another file
// this one refers to. The problems of an error Err returned are recorded
// one by one.
func (d *Decoder) Add(line int, err error) { d.problems.add(line, err) }

// Err returns the problems recorded, or nil; see Problems.
func (d *Decoder) Err() error { return d.problems.err() }

// Mapping calls f with each key of the mapping n, the key's node and the
// value's, after checking that the key is a string met once; it reports
// false if n is not a mapping. path names n.
func (d *Decoder) Mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) bool {
	n = Deref(n)
	if n.Kind != yaml.MappingNode {
		d.Errorf(n, path, "expected a mapping, got %s", Describe(n))
		return false
	}
	if !d.spend(n, len(n.Content)/2) {
		return false
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := Deref(n.Content[i])
		if k.ShortTag() == "!!merge" {
			d.Errorf(k, path, "merge keys (<<) are not supported")
			continue
		}
		key, ok := d.Str(k, path)
		if !ok {
			continue
		}
		if seen[key] {
			d.Errorf(k, Join(path, key), "duplicate field")
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

// Fields calls f with each field of the mapping n, its key and its path;
// f reports whether the value was good. Fields records each field of
// required that n lacks as missing, and reports whether n is a mapping
// with every field of required, each of them good.
func (d *Decoder) Fields(n *yaml.Node, path string, required []string, f func(key, field string, k, v *yaml.Node) bool) bool {
	given := map[string]bool{}
	good := true
	if !d.Mapping(n, path, func(key string, k, v *yaml.Node) {
		given[key] = true
		good = f(key, Join(path, key), k, v) && good
	}) {
		return false
	}
	for _, key := range required {
		if !given[key] {
			d.Errorf(n, Join(path, key), "missing")
			good = false
		}
	}
	return good
}

// Only returns the value of key, which must be the one field of the
// mapping root, recording any other as unknown; or nil, after recording
// why, if root is not a mapping or has no key.
func (d *Decoder) Only(root *yaml.Node, key string) *yaml.Node {
	var v *yaml.Node
	d.Fields(root, "", []string{key}, func(k, field string, kn, vn *yaml.Node) bool {
		if k != key {
			d.Errorf(kn, field, "%s", UnknownField(k, key))
			return false
		}
		v = vn
		return true
	})
	return v
}

// Sequence calls f with the index and node of each item of the sequence
// n; it reports false if n is not a sequence. path names n.
func (d *Decoder) Sequence(n *yaml.Node, path string, f func(i int, item *yaml.Node)) bool {
	n = Deref(n)
	if n.Kind != yaml.SequenceNode {
		d.Errorf(n, path, "expected a sequence, got %s", Describe(n))
		return false
	}
	if !d.spend(n, len(n.Content)) {
		return false
	}
	for i, item := range n.Content {
		f(i, Deref(item))
	}
	return true
}

// List is Sequence for a sequence that must hold at least one item, called
// what in errors.
func (d *Decoder) List(n *yaml.Node, path, what string, f func(i int, item *yaml.Node)) bool {
	if n := Deref(n); n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		d.Errorf(n, path, "expected at least one %s", what)
		return false
	}
	return d.Sequence(n, path, f)
}

// spend takes k nodes from the budget, which bounds the work that aliases
// can multiply, and reports the file too large once.
func (d *Decoder) spend(n *yaml.Node, k int) bool {
	if d.budget -= k; d.budget < 0 {
		if d.budget+k >= 0 {
			d.Errorf(n, "", "too large: more than %d entries once aliases are expanded", d.maxNodes)
		}
		return false
	}
	return true
}

// Join returns the field path of key inside path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Index returns the field path of item i of path.
func Index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
