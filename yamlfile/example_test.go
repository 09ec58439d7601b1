package yamlfile_test

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// ExampleParseError turns the YAML parser's error on a file into a
// *SyntaxError that names the file and line.
func ExampleParseError() {
	data := []byte("name: sweep\n  runs: 3\n") // runs indented under a scalar
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		fmt.Println(yamlfile.ParseError("spec.yaml", yamlfile.Lines(data), err))
	}
	// Output:
	// spec.yaml:2: mapping values are not allowed in this context
}

// A parser reads its fields with a Decoder and returns every problem of
// the file at once, by line.
func ExampleDecoder() {
	data := []byte("runs: 0\nrnus: 3\norder: random\n")
	root, err := yamlfile.Document("spec.yaml", data, "empty")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := yamlfile.NewDecoder("spec.yaml", data, 1<<16)
	d.Fields(root, "", nil, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "runs":
			_, ok = d.Integer(v, field, 1, 100)
		case "order":
			_, ok = d.OneOf(v, field, "interleaved", "grouped")
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "runs", "order"))
		}
		return ok
	})
	fmt.Println(d.Err())
	// Output:
	// spec.yaml:1: runs: 0 is less than 1
	// spec.yaml:2: rnus: unknown field; did you mean runs?
	// spec.yaml:3: order: expected interleaved or grouped, got "random"
}
