package graph

import (
	"os"
	"strings"
	"testing"
)

// TestDocTopology parses the topology file the package documentation
// shows, so that the manual stays a file latlab reads.
func TestDocTopology(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "// # Topology files\n")
	if !ok {
		t.Fatal("doc.go has no Topology files section")
	}
	var file strings.Builder
	for line := range strings.Lines(section) {
		if yaml, ok := strings.CutPrefix(line, "//\t"); ok {
			file.WriteString(yaml)
		}
	}
	top, err := ParseTopology("doc.go", []byte(file.String()), "testdata/topology")
	if err != nil {
		t.Fatalf("%v\n%s", err, file.String())
	}
	var names []string
	for _, s := range top.Services {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, " "), "gateway root branch leafA leafB"; got != want {
		t.Errorf("services %q, want %q", got, want)
	}
}
