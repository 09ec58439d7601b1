package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/load"
)

// maxFile bounds the size of a file a spec refers to.
const maxFile = 256 << 20

// fileData is a file read once however often a spec names it, and what it
// parsed to.
type fileData struct {
	data []byte
	err  error // why it cannot be read

	topology *graph.Topology
	targets  []*load.Request
	scenario *load.Scenario
	parseErr error
	parsed   bool
}

// file decodes the scalar n as the path of a regular file, reads it and
// records its hash under the path as written.
func (d *decoder) file(n *yaml.Node, field string) (written, resolved string, f *fileData, ok bool) {
	written, ok = d.text(n, field)
	if !ok {
		return "", "", nil, false
	}
	resolved = d.out.Path(written)
	if err := d.outside(written, resolved); err != nil {
		d.errorf(n, field, "%v", err)
		return "", "", nil, false
	}
	f = d.read(resolved)
	if f.err != nil {
		d.errorf(n, field, "%v", f.err)
		return "", "", nil, false
	}
	d.sums[written] = Sum(f.data)
	d.refs = append(d.refs, FileRef{Written: written, Resolved: resolved, Line: n.Line, Field: field, Sum: d.sums[written]})
	return written, resolved, f, true
}

// read returns the file at path, reading it the first time.
func (d *decoder) read(path string) *fileData {
	if f, ok := d.cache[path]; ok {
		return f
	}
	data, err := ReadFile(path)
	f := &fileData{data: data, err: err}
	d.cache[path] = f
	return f
}

// ReadFile reads the regular file at path, refusing folders, devices and
// files larger than maxFile; its errors name the path but no operation.
func ReadFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, pathError(path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder, not a file", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case fi.Size() > maxFile:
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFile>>20)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	return data, nil
}

// pathError returns err as "PATH: CAUSE".
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Sum returns the hex SHA-256 of data.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// nested returns a reader of the files another file refers to, such as the
// bodies of a targets file: relative paths resolve against dir, and each
// file's hash is recorded under written, the referring file's path as
// written in the spec at n, field, and the name as written there.
func (d *decoder) nested(n *yaml.Node, field, written, dir string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := d.outside(name, p); err != nil {
			return nil, err
		}
		data, err := ReadFile(p)
		if err == nil {
			d.sums[written+" "+name] = Sum(data)
			d.refs = append(d.refs, FileRef{Written: name, Resolved: p, Line: n.Line, Field: field, In: written, Sum: d.sums[written+" "+name]})
		}
		return data, err
	}
}

// A fileRef is a file a spec names, directly or through a file it names,
// as a bundle of the spec must carry it (see Spec.Bundle).
type FileRef struct {
	Written  string // the path as written, in the spec or in the file in
	Resolved string // the path it was read from
	Line     int    // the spec's line naming it, or naming in
	Field    string // and that line's field
	In       string // the file that names it, as the spec names that; "" for the spec
	Sum      string // SHA-256 of what the parse read; "" for a file read when a trial starts
}

// trialFile decodes the scalar n as the path of a file read when a trial
// starts, not by the parse (see specPath), and records it for bundles.
func (d *decoder) trialFile(n *yaml.Node, field string) (string, bool) {
	written, ok := d.text(n, field)
	p := d.out.Path(written)
	if ok {
		if err := d.outside(written, p); err != nil {
			d.errorf(n, field, "%v", err)
			return "", false
		}
		d.refs = append(d.refs, FileRef{Written: written, Resolved: p, Line: n.Line, Field: field})
	}
	return p, ok
}

// outside refuses a file that a bundle's spec names, as written and as
// resolved, where it lies outside the bundle: an agent reads only the
// files its controller sent, never one of its own machine. The error
// names the path, never what the file holds. Outside a bundle it is nil.
func (d *decoder) outside(written, resolved string) error {
	switch {
	case d.root == "":
		return nil
	case filepath.IsAbs(written):
		return fmt.Errorf("%s is an absolute path: an agent reads only the files its bundle carries", written)
	case !Within(d.root, resolved):
		return fmt.Errorf("%s leaves the bundle's folder: an agent reads only the files its bundle carries", written)
	}
	return nil
}

// parsedFile decodes the scalar n as a file and parses it, the first time
// it is named, with parse, keeping what it parsed in the field of fileData
// that slot points to. A file that cannot be read or parsed is reported
// at n's line, and parsedFile returns "" and T's zero value.
func parsedFile[T any](d *decoder, n *yaml.Node, field string, slot func(*fileData) *T, parse func(written, resolved string, data []byte) (T, error)) (string, T) {
	var zero T
	written, resolved, f, ok := d.file(n, field)
	if !ok {
		return "", zero
	}
	if !f.parsed {
		f.parsed = true
		*slot(f), f.parseErr = parse(written, resolved, f.data)
	}
	if f.parseErr != nil {
		d.add(n.Line, f.parseErr)
		return "", zero
	}
	return written, *slot(f)
}

// topology decodes the scalar n as a topology file and parses it.
func (d *decoder) topology(n *yaml.Node, field string) (string, *graph.Topology) {
	return parsedFile(d, n, field, func(f *fileData) **graph.Topology { return &f.topology },
		func(_, resolved string, data []byte) (*graph.Topology, error) {
			return graph.ParseTopology(resolved, data, filepath.Dir(resolved))
		})
}

// targets decodes the scalar n as a targets file and parses it.
func (d *decoder) targets(n *yaml.Node, field string) (string, []*load.Request) {
	return parsedFile(d, n, field, func(f *fileData) *[]*load.Request { return &f.targets },
		func(written, resolved string, data []byte) ([]*load.Request, error) {
			return load.ParseTargets(resolved, data, d.nested(n, field, written, filepath.Dir(resolved)))
		})
}

// scenario decodes the scalar n as a scenario file and parses it.
func (d *decoder) scenario(n *yaml.Node, field string) (string, *load.Scenario) {
	return parsedFile(d, n, field, func(f *fileData) **load.Scenario { return &f.scenario },
		func(written, resolved string, data []byte) (*load.Scenario, error) {
			return load.ParseScenario(resolved, data, d.nested(n, field, written, filepath.Dir(resolved)))
		})
}

// command decodes the scalar n as a shell command line. When its first
// word is a path (it holds a '/'), that file must exist, resolved against
// the spec's folder, and be executable, unless the spec is read by an
// agent, which runs no command.
func (d *decoder) command(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return "", false
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		d.errorf(n, field, "empty")
		return "", false
	}
	if !strings.Contains(words[0], "/") || d.unrun {
		return s, true
	}
	p := d.out.Path(words[0])
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		d.errorf(n, field, "%v", pathError(p, err))
	case fi.IsDir():
		d.errorf(n, field, "%s is a folder, not a program", p)
	case fi.Mode()&0o111 == 0:
		d.errorf(n, field, "%s is not executable (chmod +x %s)", p, p)
	default:
		return s, true
	}
	return "", false
}

// Within reports whether path lies under dir.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}
