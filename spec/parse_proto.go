package spec

import (
	"errors"
	"path/filepath"

	"github.com/latlab/latlab/load"
)

// proto compiles the load's .proto files as its gRPC calls will, so that
// a file that does not compile is reported now, at the proto field, and
// records every file the compiler read, imports included, for the bundle
// a load pod is sent (see FileRef). The files named in proto itself were
// recorded as they were read.
func (d *decoder) proto(l *Load, e entry) {
	f := e.path()
	named := map[string]bool{}
	for _, p := range l.Proto {
		named[filepath.Clean(p)] = true
	}
	in := l.Settings().Inputs()
	in.Proto = map[string][]byte{}
	read := func(path string) ([]byte, error) {
		data, err := d.readProto(path, named, e)
		if err == nil {
			in.Proto[path] = data
		}
		return data, err
	}
	if err := load.CompileProto(l.Proto, l.ImportPaths, read); err != nil {
		msg := err.Error()
		if oe := (*load.OptionError)(nil); errors.As(err, &oe) {
			msg = oe.Msg
		}
		d.errorf(e.v, f, "%s", msg)
	}
}

// readProto reads a file the compile of a load's proto files opens: one
// of them, read as the proto field was decoded, or an import, recorded
// here as one the bundle carries.
func (d *decoder) readProto(path string, named map[string]bool, e entry) ([]byte, error) {
	if named[filepath.Clean(path)] {
		if f := d.read(path); f.err == nil {
			return f.data, nil
		}
	}
	written := d.written(path)
	if err := d.outside(written, path); err != nil {
		return nil, err
	}
	f := d.read(path)
	if f.err == nil {
		sum := Sum(f.data)
		d.sums[written] = sum
		d.refs = append(d.refs, FileRef{Written: written, Resolved: path, Line: e.v.Line, Field: e.path(), Sum: sum})
	}
	return f.data, f.err
}

// written returns how the spec would name a file it resolved to path:
// relative to the spec's folder.
func (d *decoder) written(path string) string {
	if rel, err := filepath.Rel(d.out.Path("."), path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}
