package remote

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/latlab/latlab/graph"
)

// Bounds of a bundle: the bytes of its files together, and their number.
const (
	maxBundleData  = 64 << 20
	maxBundleFiles = 4096
)

// A Bundle is what an agent needs to run one trial of a spec exactly as a
// Runner would run it here: the spec's own text and every file its parse
// reads or its trial's load reads as it starts — targets and scenario
// files and the bodies, tokens and client certificates they name, body
// files, graphs and their job files, the load's CA certificate — each
// under its path relative to a folder that holds them all; and the trial,
// the entry URL of a graph variant and the raw samples to keep. The agent
// writes the files into a folder of its own, parses the spec there and
// builds the loads with Spec.WarmupFor and Spec.LoadFor, so that a bundle
// holds no load option of its own. Spec.Bundle makes one; it travels as
// JSON (see MarshalJSON).
type Bundle struct {
	Spec    string       // the spec's path among Files
	Files   []BundleFile // sorted by path
	Trial   spec.Trial
	Entry   string // the URL of a graph variant's entry service, as LoadFor takes it; "" for a target
	Samples int64  // measured requests kept raw; 0 keeps none
	// StartAt, when set, is when the measured load starts, after the
	// warm-up, so that agents running shards of one trial start
	// together. The zero value starts it at once.
	StartAt time.Time
	// Shard, when its Count is set, makes the agent send only its share
	// of the trial's load: shard Index of Count (see load.Shard).
	Shard BundleShard
}

// A BundleShard is one shard of a trial's load.
type BundleShard struct{ Index, Count int }

// A BundleFile is one file of a Bundle.
type BundleFile struct {
	Path string // slash-separated, relative to the bundle's folder, without ".."
	Data []byte
}

// Bundle returns the bundle of trial t of s for an agent (see Bundle):
// entry is as LoadFor takes it, samples the measured requests to keep raw
// (see Runner.Samples). It reads the files s names again, as the trial
// would here, and refuses one that changed since s was parsed, one named
// by an absolute path (an agent has files of its own there), one missing
// (a CA certificate the variant's start was to write) and files of more
// than 64 MiB together; each error names the spec's file, line and field.
// s must come from ParseSpec or ReadSpec.
func NewBundle(s *spec.Spec, t spec.Trial, entry string, samples int64) (*Bundle, error) {
	if s.Source() == nil {
		return nil, errors.New("bundling a spec: it was not read by ParseSpec, so its text is unknown")
	}
	v := s.Variant(t.Variant)
	if v == nil {
		return nil, fmt.Errorf("bundling trial %d: no variant called %q", t.Position, t.Variant)
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("bundling %s: %w", s.File, err)
	}
	specPath := filepath.Join(dir, specName(s.File))
	c := &collector{s: s, spec: specPath, data: map[string][]byte{specPath: s.Source()}}
	for _, ref := range s.Files() {
		// Every file the parse read, since the agent parses the whole
		// spec; of the files read as a trial starts, the trial's CA
		// certificate.
		if ref.Sum != "" || ref.Resolved == v.Load.CACert {
			c.ref(ref)
		}
	}
	for _, va := range s.Variants {
		if va.Topology != nil {
			c.jobs(va.Topology.File, va.Topology.Services)
		}
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	return c.bundle(t, entry, samples)
}

// specName returns the name the spec's file has in a bundle: its own.
func specName(file string) string {
	switch base := filepath.Base(file); base {
	case ".", string(filepath.Separator), "":
		return "spec.yaml"
	default:
		return base
	}
}

// A collector gathers the files of a bundle, by absolute path.
type collector struct {
	s    *spec.Spec
	spec string // the spec's own path
	data map[string][]byte
	errs []error
}

// errorf records a problem of the file ref names, at the spec's line
// naming it.
func (c *collector) errorf(ref spec.FileRef, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if ref.In != "" {
		msg = "in " + ref.In + ": " + msg
	}
	c.errs = append(c.errs, &spec.SyntaxError{File: c.s.File, Line: ref.Line, Field: ref.Field, Msg: msg})
}

// add keeps data as the file at path, the absolute path the agent's
// layout follows; ref says where the spec names it.
func (c *collector) add(path string, data []byte, ref spec.FileRef) {
	if old, ok := c.data[path]; ok && string(old) != string(data) {
		c.errorf(ref, "%s is where the spec's own file goes, with other contents", path)
		return
	}
	c.data[path] = data
}

// ref reads the file ref names, as a trial would now.
func (c *collector) ref(ref spec.FileRef) {
	if filepath.IsAbs(ref.Written) {
		c.errorf(ref, "%s is an absolute path, where an agent has files of its own: give it relative to the spec's folder", ref.Written)
		return
	}
	path, err := filepath.Abs(ref.Resolved)
	if err != nil {
		c.errorf(ref, "%v", err)
		return
	}
	if _, ok := c.data[path]; ok && path != c.spec {
		return // named more than once
	}
	data, err := spec.ReadFile(path)
	switch {
	case err != nil:
		c.errorf(ref, "%v", err)
	case ref.Sum != "" && spec.Sum(data) != ref.Sum:
		c.errorf(ref, "%s changed since the spec was read: read the spec again to run what the file holds now", ref.Written)
	default:
		c.add(path, data, ref)
	}
}

// jobs reads the job files of a graph's services, which its parse checks
// are there. Their paths are absolute, resolved from the topology's.
func (c *collector) jobs(topology string, services []*graph.Service) {
	at := spec.FileRef{Field: "graph"}
	for _, r := range c.s.Files() {
		if r.Resolved == topology && r.In == "" {
			at = r
			break
		}
	}
	for _, svc := range services {
		for _, name := range spec.SortedKeys(svc.Jobs) {
			path := svc.Jobs[name]
			if _, ok := c.data[path]; ok {
				continue
			}
			data, err := spec.ReadFile(path)
			if err != nil {
				c.errorf(at, "service %s: job %s: %v", svc.Name, name, err)
				continue
			}
			c.add(path, data, at)
		}
	}
}

// bundle lays the files out under the deepest folder that holds them all.
func (c *collector) bundle(t spec.Trial, entry string, samples int64) (*Bundle, error) {
	paths := make([]string, 0, len(c.data))
	total, largest := 0, c.spec
	for p, data := range c.data {
		paths = append(paths, p)
		total += len(data)
		if len(data) > len(c.data[largest]) {
			largest = p
		}
	}
	switch {
	case len(paths) > maxBundleFiles:
		return nil, fmt.Errorf("bundling %s: it names %d files, more than a bundle carries (%d)", c.s.File, len(paths), maxBundleFiles)
	case total > maxBundleData:
		return nil, fmt.Errorf("bundling %s: its files come to %d MiB, more than a bundle carries (%d MiB); the largest is %s (%d MiB)",
			c.s.File, total>>20, maxBundleData>>20, largest, len(c.data[largest])>>20)
	}
	root := commonDir(paths)
	b := &Bundle{Trial: t, Entry: entry, Samples: samples}
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, fmt.Errorf("bundling %s: %w", c.s.File, err)
		}
		rel = filepath.ToSlash(rel)
		if p == c.spec {
			b.Spec = rel
		}
		b.Files = append(b.Files, BundleFile{Path: rel, Data: c.data[p]})
	}
	slices.SortFunc(b.Files, func(x, y BundleFile) int { return cmp.Compare(x.Path, y.Path) })
	return b, nil
}

// commonDir returns the deepest folder holding every one of paths, which
// are absolute and clean.
func commonDir(paths []string) string {
	root := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for !spec.Within(root, p) {
			root = filepath.Dir(root)
		}
	}
	return root
}
