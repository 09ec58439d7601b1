package graph

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/golden"
)

func TestDot(t *testing.T) {
	top, err := ReadTopology(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	// A call with a path, and one outside a parallel group, for the labels.
	top.Services[3].Script = append(top.Services[3].Script, Step{Kind: Call, Name: "leafB", Path: `/a"b`, Prob: 0.25})
	got := Dot(top)
	golden.Check(t, "testdata/dot/example.dot", got)
}

func TestDotChain(t *testing.T) {
	top, err := ReadTopology("testdata/topology/chain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := string(Dot(top))
	for _, want := range []string{
		"digraph latlab {\n",
		"\"root\" [label=\"root\\n(entry)\", penwidth=2];\n",
		"\"leaf\" [label=\"leaf\"];\n",
		"\"root\" -> \"branch\";\n",
		"\"branch\" -> \"leaf\";\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Dot lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "->"); n != 2 {
		t.Errorf("Dot has %d edges, want 2:\n%s", n, got)
	}
}

func TestDotGRPC(t *testing.T) {
	top, err := ParseTopology("g.yaml", []byte(rpcMesh), "")
	if err != nil {
		t.Fatal(err)
	}
	got := string(Dot(top))
	for _, want := range []string{"\"gateway\" [label=\"gateway\\n(entry)\\ngRPC\\nproxy\\nfilters: delay → passthrough\"",
		"\"front\" [label=\"front\\ngRPC\"]", "\"reviews\" [label=\"reviews\"]"} {
		if !strings.Contains(got, want) {
			t.Errorf("Dot lacks %q:\n%s", want, got)
		}
	}
}
