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
	read := func(path string) ([]byte, error) {
		if named[filepath.Clean(path)] {
			if data := d.read(path); data.err == nil {
				return data.data, nil
			}
		}
		written := d.written(path)
		if err := d.outside(written, path); err != nil {
			return nil, err
		}
		data := d.read(path)
		if data.err == nil {
			sum := Sum(data.data)
			d.sums[written] = sum
			d.refs = append(d.refs, FileRef{Written: written, Resolved: path, Line: e.v.Line, Field: f, Sum: sum})
		}
		return data.data, data.err
	}
	if err := load.CompileProto(l.Proto, l.ImportPaths, read); err != nil {
		msg := err.Error()
		if oe := (*load.OptionError)(nil); errors.As(err, &oe) {
			msg = oe.Msg
		}
		d.errorf(e.v, f, "%s", msg)
	}
}

// written returns how the spec would name a file it resolved to path:
// relative to the spec's folder.
func (d *decoder) written(path string) string {
	if rel, err := filepath.Rel(d.out.Path("."), path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}
