package spec

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/yamlfile"
)

// ReadSpec reads the spec at path; see ParseSpec for the format. Relative
// paths in it resolve against the folder of path.
func ReadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	return ParseSpec(path, data, filepath.Dir(path))
}

// ParseSpec parses data, a YAML experiment spec called name in errors,
// resolving relative paths — graphs, targets, scenarios, body files and
// commands that are paths — against dir ("" is the current folder). See the
// package documentation for the format.
//
// It reads and checks every file the spec names, parsing graphs, targets
// and scenarios. The error, if any, lists every problem found, one per
// line, by line in the spec (a *yamlfile.Problems when there are several,
// yamlfile.MaxProblems at most): a *SyntaxError naming the spec's file,
// line and field, or a problem of a referenced file, which names that
// file's line and field.
func ParseSpec(name string, data []byte, dir string) (*Spec, error) {
	return parseSpec(name, data, dir, false)
}

// parseSpec is ParseSpec; unrun leaves the commands unchecked, for an
// agent, which runs none of them (see Agent).
func parseSpec(name string, data []byte, dir string, unrun bool) (*Spec, error) {
	return ParseConfined(name, data, dir, unrun, "")
}

// ParseConfined parses as parseSpec does; with root set, as an agent
// parses the spec of a bundle written under root: a file it names must lie
// there (see decoder.outside).
func ParseConfined(name string, data []byte, dir string, unrun bool, root string) (*Spec, error) {
	d := newDecoder(name, data, dir)
	d.unrun, d.root = unrun, root
	doc, err := yamlfile.Document(name, data, "empty spec: give version, name, variants and load")
	if err != nil {
		return nil, err
	}
	s := d.spec(doc)
	if err := d.Err(); err != nil {
		return nil, err
	}
	s.src, s.refs = bytes.Clone(data), d.refs
	return s, nil
}

// decoder reads a spec from YAML nodes, collecting every problem with its
// line and field.
type decoder struct {
	*yamlfile.Decoder
	dir   string
	root  string // a bundle's folder, which every file it names lies in; "" outside a bundle
	lines int    // the number of the last line

	cache   map[string]*fileData // files read, by resolved path
	sums    map[string]string    // sha256 of the files read, by path as written
	refs    []FileRef            // the files named, for bundles
	out     *Spec                // the spec being read, for Path
	kube    map[string]kubeNodes // each variant's fields placing it on a cluster
	pprofAt *yaml.Node           // probes.pprof, when given
	unrun   bool                 // read by an agent: commands are not checked
	streams []entry              // streams given without HTTP/2: checked once the variants say whether they speak gRPC
}

// newDecoder returns a decoder of data, the spec called name, in the
// folder dir.
func newDecoder(name string, data []byte, dir string) *decoder {
	return &decoder{Decoder: yamlfile.NewDecoder(name, data, maxNodes), dir: dir, lines: yamlfile.Lines(data),
		cache: map[string]*fileData{}, sums: map[string]string{}, kube: map[string]kubeNodes{}}
}

// spec decodes a spec from the root node of its document.
func (d *decoder) spec(root *yaml.Node) *Spec {
	s := &Spec{File: d.File(), Dir: d.dir, Runs: 1, Order: Interleaved, Restart: Never, Validity: DefaultValidity()}
	d.out = s
	nodes := map[string][2]*yaml.Node{} // key and value of each top-level field
	d.Fields(root, "", []string{"version", "name", "variants", "load"}, func(key, _ string, k, v *yaml.Node) bool {
		nodes[key] = [2]*yaml.Node{k, v}
		return true
	})
	if !yamlfile.IsMapping(root) {
		return s
	}
	for _, key := range SortedKeys(nodes) { // listed after the missing fields, by name
		if !slices.Contains(topKeys, key) {
			d.errorf(nodes[key][0], key, "%s", yamlfile.UnknownField(key, topKeys...))
		}
	}
	if kv, ok := nodes["version"]; ok {
		if v, ok := d.integer(kv[1], "version", 0, math.MaxInt32); ok && v != 1 {
			d.errorf(kv[1], "version", "unsupported version %d: this latlab reads version 1", v)
		} else if ok {
			s.Version = 1
		}
	}
	if kv, ok := nodes["name"]; ok {
		s.Name, _ = d.name(kv[1], "name")
	}
	var kubeNode, loadOn *yaml.Node
	if kv, ok := nodes["kubernetes"]; ok {
		kubeNode, s.Kubernetes = kv[0], d.kubernetes(kv[1])
	}
	base := scope{path: "load"}
	var baseEntries []entry
	if kv, ok := nodes["load"]; ok {
		s.Shards = d.loadShards(kv[1])
		s.LoadPod, loadOn = d.loadPod(kv[1])
		base.line = kv[0].Line
		if es, ok := d.entries(kv[1], "load", base); ok {
			baseEntries = es
			s.Load = d.buildLoad(es, base, true)
		} else {
			base.line = 0 // no load to check variants against
		}
	}
	if kv, ok := nodes["variants"]; ok {
		d.variants(s, kv[1], baseEntries, base)
	}
	if kv, ok := nodes["baseline"]; ok {
		if b, ok := d.name(kv[1], "baseline"); ok {
			if s.Variant(b) == nil && len(s.Variants) > 0 {
				d.errorf(kv[1], "baseline", "no variant is called %q", b)
			}
			s.Baseline = b
		}
	} else if len(s.Variants) > 0 {
		s.Baseline = s.Variants[0].Name
	}
	d.options(s, nodes)
	d.checkStreams(s)
	d.checkKube(s, kubeNode, loadOn, d.kube)
	d.checkShards(s, nodes)
	d.checkSize(s, root, nodes)
	s.sums = d.sums
	return s
}

// checkStreams refuses streams given without HTTP/2 when no variant
// speaks gRPC either, whose connections' streams they cap too.
func (d *decoder) checkStreams(s *Spec) {
	if len(d.streams) == 0 {
		return
	}
	for _, v := range s.Variants {
		if v.Topology != nil && v.Topology.Entry() != nil && v.Topology.Entry().Protocol == graph.GRPC ||
			strings.HasPrefix(v.Target, "grpc://") || strings.HasPrefix(v.Target, "grpcs://") {
			return
		}
	}
	for _, e := range d.streams {
		d.errorf(e.k, e.path(), "streams are HTTP/2's and gRPC's; give http2 or h2c too, or a gRPC target")
	}
}

// maxTrials bounds the trials of a plan.
const maxTrials = 1000000

// checkSize reports a plan of more than maxTrials trials, at runs.
func (d *decoder) checkSize(s *Spec, root *yaml.Node, nodes map[string][2]*yaml.Node) {
	levels := 0
	for _, v := range s.Variants {
		levels += len(v.Load.levels(v.Name))
	}
	if n := levels * s.Runs; n > maxTrials {
		at := root
		if kv, ok := nodes["runs"]; ok {
			at = kv[1]
		}
		d.errorf(at, "runs", "%d variant levels × %d runs make %d trials, more than %d", levels, s.Runs, n, maxTrials)
	}
}

// topKeys are the fields of a spec.
var topKeys = []string{"version", "name", "variants", "baseline", "load", "warmup", "runs", "order", "seed",
	"restart", "sideloads", "probes", "validity", "slo", "cpus", "kubernetes"}

// options decodes the optional top-level fields but baseline.
func (d *decoder) options(s *Spec, nodes map[string][2]*yaml.Node) {
	if kv, ok := nodes["runs"]; ok {
		d.runs(s, kv[1])
	}
	if kv, ok := nodes["order"]; ok {
		if o, ok := d.oneOf(kv[1], "order", string(Interleaved), string(Grouped)); ok {
			s.Order = Order(o)
		}
		if s.Auto != nil && s.Order == Grouped {
			d.errorf(kv[1], "order", "grouped runs a cell's repetitions together, and runs: auto decides after each repetition of every cell still open: use order: interleaved, or a number of runs")
		}
	}
	if kv, ok := nodes["seed"]; ok {
		if n, ok := d.integer(kv[1], "seed", math.MinInt64, math.MaxInt64); ok {
			s.Seed = &n
		}
	}
	if kv, ok := nodes["restart"]; ok {
		if r, ok := d.oneOf(kv[1], "restart", string(Never), string(PerRun), string(PerRate)); ok {
			s.Restart = Restart(r)
		}
	}
	if kv, ok := nodes["warmup"]; ok {
		s.Warmup = d.warmup(s, kv[1])
	}
	if kv, ok := nodes["sideloads"]; ok {
		d.list(kv[1], "sideloads", "sideload", func(i int, n *yaml.Node) {
			if sl, ok := d.sideload(n, index("sideloads", i)); ok {
				s.Sideloads = append(s.Sideloads, sl)
			}
		})
	}
	var budget *yaml.Node // validity.cpu_budget, when given
	if kv, ok := nodes["validity"]; ok {
		budget = d.validity(&s.Validity, kv[1])
	}
	if kv, ok := nodes["probes"]; ok {
		d.probes(s, kv[1], budget)
	}
	if kv, ok := nodes["slo"]; ok {
		d.slo(&s.SLO, kv[1])
	}
	if kv, ok := nodes["cpus"]; ok {
		d.cpus(&s.CPUs, kv[1])
	}
}

// variants decodes the list n into s.Variants, each with its load: the
// spec's base entries with the variant's overrides.
func (d *decoder) variants(s *Spec, n *yaml.Node, base []entry, baseScope scope) {
	lines := map[string]int{}
	d.list(n, "variants", "variant", func(i int, item *yaml.Node) {
		v, nameLine, ok := d.variant(i, item, s, base, baseScope)
		if !ok {
			return
		}
		if l, dup := lines[v.Name]; dup {
			d.addf(min(nameLine, d.lines), index("variants", i)+".name", "duplicate variant %q (also at line %d)", v.Name, l)
			return
		}
		lines[v.Name] = nameLine
		s.Variants = append(s.Variants, v)
	})
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
