package yamlfile_test

import (
	"fmt"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
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
