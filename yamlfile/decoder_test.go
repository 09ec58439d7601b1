package yamlfile

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// decode reads in with a Decoder of at most maxNodes entries, calling f
// with each field of its root mapping, and returns the error.
func decode(t *testing.T, in string, maxNodes int, f func(d *Decoder, key string, v *yaml.Node)) error {
	t.Helper()
	root, err := Document("f.yaml", []byte(in), "empty")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder("f.yaml", []byte(in), maxNodes)
	d.Mapping(root, "", func(key string, _, v *yaml.Node) { f(d, key, v) })
	return d.Err()
}

func TestDecoderStrict(t *testing.T) {
	ints := func(d *Decoder, key string, v *yaml.Node) {
		d.Sequence(v, key, func(i int, item *yaml.Node) { d.Integer(item, Index(key, i), 0, 9) })
	}
	for _, tt := range []struct{ in, want string }{
		{"a: [1]\na: [2]\n", "f.yaml:2: a: duplicate field"},
		{"b: &x [1]\n<<: {c: [1]}\n", "f.yaml:2: merge keys (<<) are not supported"},
		{"[a]: [1]\n", "f.yaml:1: expected a string, got a sequence"},
		{"a: {b: 1}\n", "f.yaml:1: a: expected a sequence, got a mapping"},
		{"a: &x [1, 2, 3]\nb: *x\nc: *x\n", "f.yaml:1: too large: more than 8 entries once aliases are expanded"},
		{"a:\n", "f.yaml:1: a: expected a sequence, got null"},
	} {
		if err := decode(t, tt.in, 8, ints); err == nil || err.Error() != tt.want {
			t.Errorf("%q: error %v, want %s", tt.in, err, tt.want)
		}
	}
}

// TestDecoderProblems checks that a decoder lists every problem by line,
// once each, and at most MaxProblems of them.
func TestDecoderProblems(t *testing.T) {
	var in strings.Builder
	for i := range MaxProblems + 5 {
		fmt.Fprintf(&in, "k%02d: x\n", MaxProblems+4-i) // keys in reverse order, on lines 1 to 25
	}
	var lines []int
	err := decode(t, in.String(), 100, func(d *Decoder, key string, v *yaml.Node) {
		lines = append(lines, v.Line)
		d.Boolean(v, key)
		d.Errorf(v, key, "expected true or false, got %s", Got(v)) // a repeat, listed once
	})
	var ps *Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %T %v, want *Problems", err, err)
	}
	if len(ps.List) != MaxProblems || ps.More != 5 {
		t.Fatalf("%d listed and %d more, want %d and 5", len(ps.List), ps.More, MaxProblems)
	}
	msgs := strings.Split(err.Error(), "\n")
	for i, m := range msgs[:MaxProblems] {
		if want := fmt.Sprintf("f.yaml:%d: k%02d: expected true or false, got \"x\"", i+1, MaxProblems+4-i); m != want {
			t.Errorf("line %d: %s, want %s", i, m, want)
		}
	}
	if got, want := msgs[len(msgs)-1], "f.yaml: and 5 more problems"; got != want || len(msgs) != MaxProblems+1 {
		t.Errorf("%d lines ending %q, want %d ending %q", len(msgs), got, MaxProblems+1, want)
	}
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 {
		t.Errorf("errors.As finds %+v, want the problem of line 1", se)
	}
}

// TestDecoderAdd checks that the problems of another file's error are
// listed one by one, at the line that names the file, with its count of
// more.
func TestDecoderAdd(t *testing.T) {
	d := NewDecoder("spec.yaml", []byte("a\nb\nc\n"), 10)
	d.ErrorAt(3, "c", "bad")
	other := &Problems{File: "g.yaml", List: []error{errors.New("g.yaml:9: x: bad"), errors.New("g.yaml:10: y: bad")}, More: 2}
	d.Add(2, other)
	d.ErrorAt(1, "a", "bad")
	want := "spec.yaml:1: a: bad\ng.yaml:9: x: bad\ng.yaml:10: y: bad\nspec.yaml:3: c: bad\nspec.yaml: and 2 more problems"
	if err := d.Err(); err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
	one := NewDecoder("f.yaml", nil, 10)
	if one.Err() != nil {
		t.Error("error without problems")
	}
	one.ErrorAt(5, "f", "bad")
	if se, ok := one.Err().(*SyntaxError); !ok || se.Line != 1 {
		t.Errorf("one problem: %#v, want a *SyntaxError on the last line", one.Err())
	}
}

func TestScalars(t *testing.T) {
	for _, tt := range []struct {
		in   string
		read func(d *Decoder, n *yaml.Node)
		want string // the error, or "" for none
	}{
		{"x", func(d *Decoder, n *yaml.Node) { d.Text(n, "f") }, ""},
		{"''", func(d *Decoder, n *yaml.Node) { d.Text(n, "f") }, "f.yaml:1: f: empty"},
		{"yes", func(d *Decoder, n *yaml.Node) { d.Boolean(n, "f") }, `f.yaml:1: f: expected true or false, got "yes"`},
		{"1.5", func(d *Decoder, n *yaml.Node) { d.Integer(n, "f", 0, 9) }, "f.yaml:1: f: 1.5 is not a whole number in range"},
		{"1e1", func(d *Decoder, n *yaml.Node) { d.Integer(n, "f", 0, 9) }, "f.yaml:1: f: 10 is more than 9"},
		{"-1", func(d *Decoder, n *yaml.Node) { d.Integer(n, "f", 0, 9) }, "f.yaml:1: f: -1 is less than 0"},
		{".inf", func(d *Decoder, n *yaml.Node) { d.Number(n, "f") }, "f.yaml:1: f: expected a finite number, got .inf"},
		{"[1]", func(d *Decoder, n *yaml.Node) { d.Number(n, "f") }, "f.yaml:1: f: expected a number, got a sequence"},
		{".inf", func(d *Decoder, n *yaml.Node) { d.Positive(n, "f") }, "f.yaml:1: f: .inf is not a number above 0 and at most 1e9"},
		{"10", func(d *Decoder, n *yaml.Node) { d.Duration(n, "f", time.Hour) }, "f.yaml:1: f: expected a duration such as 10s, got 10"},
		{"61m", func(d *Decoder, n *yaml.Node) { d.Duration(n, "f", time.Hour) }, "f.yaml:1: f: 61m is more than 1h"},
		{"25h", func(d *Decoder, n *yaml.Node) { d.Duration(n, "f", 24*time.Hour) }, "f.yaml:1: f: 25h is more than 24h"},
		{"0s", func(d *Decoder, n *yaml.Node) { d.Duration(n, "f", time.Hour) }, "f.yaml:1: f: 0s is not positive"},
		{"1x", func(d *Decoder, n *yaml.Node) { d.Duration(n, "f", time.Hour) }, `f.yaml:1: f: "1x" is not a duration such as 10s or 1m30s`},
		{"99.9%", func(d *Decoder, n *yaml.Node) { d.Percent(n, "f", true, 1) }, ""},
		{"2", func(d *Decoder, n *yaml.Node) { d.Percent(n, "f", true, 1) }, "f.yaml:1: f: 2 is more than 100%; write a percentage such as 75% or a ratio such as 0.75"},
		{"c", func(d *Decoder, n *yaml.Node) { d.OneOf(n, "f", "a", "b") }, `f.yaml:1: f: expected a or b, got "c"`},
		{"/x", func(d *Decoder, n *yaml.Node) { d.URL(n, "f") }, `f.yaml:1: f: expected an absolute http or https URL, got "/x"`},
	} {
		root, err := Document("f.yaml", []byte(tt.in), "empty")
		if err != nil {
			t.Fatal(err)
		}
		d := NewDecoder("f.yaml", []byte(tt.in), 10)
		tt.read(d, root)
		got := ""
		if err := d.Err(); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%q: error %q, want %q", tt.in, got, tt.want)
		}
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("99.9%"), &n); err != nil {
		t.Fatal(err)
	}
	if r, isPct, ok := Ratio(n.Content[0]); !ok || !isPct || r != 0.999 {
		t.Errorf("Ratio(99.9%%) = %v, %v, %v; want 0.999, true, true", r, isPct, ok)
	}
}

func TestDecoderFields(t *testing.T) {
	in := "steps:\n  a: 1\n  c: x\nother: 2\n"
	root, err := Document("f.yaml", []byte(in), "empty")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder("f.yaml", []byte(in), 10)
	v := d.Only(root, "steps")
	if v == nil {
		t.Fatal("Only found no steps")
	}
	var keys []string
	good := d.Fields(v, "steps", []string{"a", "b"}, func(key, field string, k, v *yaml.Node) bool {
		keys = append(keys, field)
		_, ok := d.Integer(v, field, 0, 9)
		return ok
	})
	want := "f.yaml:2: steps.b: missing\nf.yaml:3: steps.c: expected a whole number, got \"x\"\n" +
		"f.yaml:4: other: unknown field; expected steps"
	if err := d.Err(); good || err == nil || err.Error() != want || strings.Join(keys, " ") != "steps.a steps.c" {
		t.Errorf("Fields: %v, %q, error:\n%v\nwant false, [steps.a steps.c] and:\n%s", good, keys, err, want)
	}
	d = NewDecoder("f.yaml", []byte(in), 10)
	if d.Only(root, "services") != nil || d.Err() == nil || !strings.Contains(d.Err().Error(), "f.yaml:1: services: missing") {
		t.Errorf("Only(services): error %v, want missing", d.Err())
	}
}
