package graph

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Dot returns t as a Graphviz digraph, for "dot -Tsvg". A node is labelled
// with its service's name, "gRPC" when it speaks gRPC, and its filter
// chain; the entry has a bold border
// and proxies are dashed. An edge is a call, in script order, labelled
// with its path, its probability when under 1 and its parallel group
// ("parallel 1" for the calls of a service's first parallel step), or a
// proxy's forwarding, dashed.
func Dot(t *Topology) []byte {
	var b bytes.Buffer
	b.WriteString("digraph latlab {\n")
	b.WriteString("\trankdir=LR;\n")
	b.WriteString("\tnode [shape=box, style=rounded, fontname=\"Helvetica\"];\n")
	b.WriteString("\tedge [fontname=\"Helvetica\", fontsize=10];\n")
	entry := t.Entry()
	for _, s := range t.Services {
		label := []string{s.Name}
		var attrs []string
		if s == entry {
			label = append(label, "(entry)")
			attrs = append(attrs, "penwidth=2")
		}
		if s.Protocol == GRPC {
			label = append(label, "gRPC")
		}
		if s.Proxy != "" {
			label = append(label, "proxy")
			attrs = append(attrs, `style="rounded,dashed"`)
		}
		if len(s.Filters) > 0 {
			names := make([]string, len(s.Filters))
			for i, f := range s.Filters {
				names[i] = f.Name
			}
			label = append(label, "filters: "+strings.Join(names, " → "))
		}
		fmt.Fprintf(&b, "\t%s [label=%s", dotQuote(s.Name), dotQuote(strings.Join(label, "\n")))
		for _, a := range attrs {
			b.WriteString(", " + a)
		}
		b.WriteString("];\n")
	}
	for _, s := range t.Services {
		group := 0
		for _, st := range s.Script {
			switch st.Kind {
			case Call:
				dotCall(&b, s.Name, st, 0)
			case Parallel:
				group++
				for _, sub := range st.Steps {
					if sub.Kind == Call {
						dotCall(&b, s.Name, sub, group)
					}
				}
			}
		}
		for _, c := range s.Calls {
			fmt.Fprintf(&b, "\t%s -> %s;\n", dotQuote(s.Name), dotQuote(c))
		}
		if s.Proxy != "" {
			fmt.Fprintf(&b, "\t%s -> %s [label=\"proxy\", style=dashed];\n", dotQuote(s.Name), dotQuote(s.Proxy))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// dotCall writes the edge of the call step st of from, in parallel group
// group or none when 0.
func dotCall(b *bytes.Buffer, from string, st Step, group int) {
	var label []string
	if st.Path != "" && st.Path != "/" {
		label = append(label, st.Path)
	}
	if st.Prob > 0 && st.Prob < 1 {
		label = append(label, "p="+strconv.FormatFloat(st.Prob, 'g', -1, 64))
	}
	if group > 0 {
		label = append(label, "parallel "+strconv.Itoa(group))
	}
	fmt.Fprintf(b, "\t%s -> %s", dotQuote(from), dotQuote(st.Name))
	if len(label) > 0 {
		fmt.Fprintf(b, " [label=%s]", dotQuote(strings.Join(label, " ")))
	}
	b.WriteString(";\n")
}

// dotQuote returns s as a DOT string: quoted, with quotes and backslashes
// escaped and line breaks as \n.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
