package graph

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// A SyntaxError reports bad input in a topology file, as FILE:LINE:
// FIELD: MSG.
type SyntaxError = yamlfile.SyntaxError

// ReadTopology reads the topology file at path; see ParseTopology for the
// format. Relative job paths resolve against the folder of path.
func ReadTopology(path string) (*Topology, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading topology: %w", err)
	}
	return ParseTopology(path, data, filepath.Dir(path))
}

// ParseTopology parses data, a YAML topology file called name in errors,
// resolving relative job paths against dir ("" is the current folder).
// The package documentation describes the file.
//
// Every problem names its line and field: unknown fields, values of the
// wrong type or out of bounds, unknown services, commands or jobs, missing
// job files, duplicate names or ports, and cycles. One problem comes back
// as a *SyntaxError, several as a *yamlfile.Problems listing them by line.
func ParseTopology(name string, data []byte, dir string) (*Topology, error) {
	return newDecoder(name, dir).parse(data)
}

// newDecoder returns a decoder of the file name in the folder dir.
func newDecoder(name, dir string) *decoder {
	return &decoder{file: name, dir: dir, jobFiles: map[string]string{}}
}

// parse decodes a topology from data.
func (d *decoder) parse(data []byte) (*Topology, error) {
	root, err := yamlfile.Document(d.file, data, "no services")
	if err != nil {
		return nil, err
	}
	d.Decoder = yamlfile.NewDecoder(d.file, data, maxNodes)
	t := d.topology(root)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// maxNodes bounds the mapping entries and sequence items a file may expand to
// through aliases.
const maxNodes = 1 << 20

// decoder reads a topology from YAML nodes, collecting every problem with
// its line and field.
type decoder struct {
	*yamlfile.Decoder
	file string
	dir  string

	jobFiles map[string]string // job files as written, by absolute path
}

// A ref is a name a field refers to, kept to check once everything it may
// refer to is known.
type ref struct {
	name  string
	line  int
	field string
	path  string // a call step's path
	proxy bool   // the service proxied
}

// refs are the references of one service.
type refs struct {
	calls  []ref // call steps, calls and proxy: the graph's edges
	forks  []ref // to commands
	stress []ref // to jobs
}

// topology decodes a topology from the root node of its document. Services
// with a problem but a name stay in it, so that what refers to them is
// checked too.
func (d *decoder) topology(root *yaml.Node) *Topology {
	list := d.Only(root, "services")
	if list == nil {
		return nil
	}
	t := &Topology{File: d.file, Dir: d.dir}
	var all []*refs
	d.List(list, "services", "service", func(i int, n *yaml.Node) {
		s, r := d.service(i, n)
		if s == nil || !d.distinct(t, s, yamlfile.Index("services", i)) {
			return
		}
		t.Services = append(t.Services, s)
		all = append(all, r)
	})
	for i, r := range all {
		for _, c := range r.calls {
			d.checkCall(t.Services[i], t.Service(c.name), c)
		}
	}
	d.acyclic(t, all)
	return t
}

// checkCall checks a call, calls entry or proxy c of service from to the
// service to: that it exists, and that it speaks from's protocol when from
// proxies it, and is called at its script when it speaks gRPC.
func (d *decoder) checkCall(from, to *Service, c ref) {
	switch {
	case to == nil:
		d.ErrorAt(c.line, c.field, "unknown service %q", c.name)
	case c.proxy && from.Protocol != to.Protocol:
		d.ErrorAt(c.line, c.field, "%s speaks %s and %s %s: a proxy passes calls on as they came, so both speak the same protocol",
			from.Name, from.Protocol.name(), to.Name, to.Protocol.name())
	case to.Protocol == GRPC && c.path != "" && c.path != "/":
		d.ErrorAt(c.line, c.field, "%s speaks gRPC: a call runs its script (%s), so it takes no path", to.Name, RunMethod[1:])
	}
}

// name is p as a topology writes it.
func (p Protocol) name() string {
	if p == HTTP {
		return "http"
	}
	return string(p)
}

// distinct checks s, at path, against the services of t: its name, port
// and entry. It reports false if s has the name of another, in any case.
func (d *decoder) distinct(t *Topology, s *Service, path string) bool {
	for _, o := range t.Services {
		switch {
		case o.Name == s.Name:
			d.ErrorAt(s.Line, path+".name", "duplicate service %q (also at line %d)", s.Name, o.Line)
			return false
		case strings.EqualFold(o.Name, s.Name):
			d.ErrorAt(s.Line, path+".name", "%s and %s (line %d) would have the same Kubernetes name", s.Name, o.Name, o.Line)
			return false
		case s.Port != 0 && o.Port == s.Port:
			d.ErrorAt(s.Line, path+".port", "port %d is also the port of %s", s.Port, o.Name)
		case s.Entry && o.Entry:
			d.ErrorAt(s.Line, path+".entry", "%s is the entry already", o.Name)
		}
	}
	return true
}

// acyclic reports the first cycle of calls, calls lists and proxies,
// searching from each service in file order. Calls to unknown services
// are left out.
func (d *decoder) acyclic(t *Topology, all []*refs) {
	index := make(map[string]int, len(t.Services))
	for i, s := range t.Services {
		index[s.Name] = i
	}
	const (
		white = iota
		grey  // on the stack
		black // done
	)
	color := make([]int8, len(t.Services))
	var stack []int
	var visit func(u int) bool
	visit = func(u int) bool {
		color[u] = grey
		stack = append(stack, u)
		for _, c := range all[u].calls {
			v, ok := index[c.name]
			switch {
			case !ok:
			case color[v] == grey && u == v:
				d.ErrorAt(c.line, c.field, "%s calls itself", c.name)
				return false
			case color[v] == grey:
				var names []string
				for _, w := range stack[slices.Index(stack, v):] {
					names = append(names, t.Services[w].Name)
				}
				names = append(names, c.name)
				d.ErrorAt(c.line, c.field, "cycle: %s", strings.Join(names, " → "))
				return false
			case color[v] == white && !visit(v):
				return false
			}
		}
		stack = stack[:len(stack)-1]
		color[u] = black
		return true
	}
	for u := range t.Services {
		if color[u] == white && !visit(u) {
			return
		}
	}
}

// Edges returns the calls of t as caller and callee pairs, sorted and
// without repeats: call steps (also in parallel groups), calls lists and
// proxies.
func (t *Topology) Edges() [][2]string {
	var edges [][2]string
	var add func(from string, steps []Step)
	add = func(from string, steps []Step) {
		for _, st := range steps {
			switch st.Kind {
			case Call:
				edges = append(edges, [2]string{from, st.Name})
			case Parallel:
				add(from, st.Steps)
			}
		}
	}
	for _, s := range t.Services {
		add(s.Name, s.Script)
		for _, c := range s.Calls {
			edges = append(edges, [2]string{s.Name, c})
		}
		if s.Proxy != "" {
			edges = append(edges, [2]string{s.Name, s.Proxy})
		}
	}
	slices.SortFunc(edges, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return slices.Compact(edges)
}
