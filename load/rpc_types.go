package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/jhump/protoreflect/v2/grpcreflect"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/latlab/latlab/record"
)

// An rpcMethod is a gRPC method whose types are known: the path its calls
// go to and the descriptor that turns a JSON request into its message.
type rpcMethod struct {
	path      string // "/package.Service/Method"
	desc      protoreflect.MethodDescriptor
	streaming bool // the client or the server streams
}

// encode returns the binary message of a request given as JSON (protobuf's
// JSON mapping); an empty body is the empty message.
func (m *rpcMethod) encode(body []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.desc.Input())
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := protojson.Unmarshal(body, msg); err != nil {
			msg := err.Error()
			if rest, ok := strings.CutPrefix(msg, "proto:"); ok {
				msg = strings.TrimSpace(rest) // the space after it may be a non-breaking one
			}
			return nil, fmt.Errorf("request body for %s: %s", m.path[1:], msg)
		}
	}
	return proto.Marshal(msg)
}

// rpcTypes finds gRPC methods' types: in the .proto files given, compiled
// once, or else from each server's reflection service.
type rpcTypes struct {
	files  linker.Files // nil: ask the servers
	names  string       // the files, for messages
	mu     sync.RWMutex
	cached map[string]*rpcMethod // by address and path
}

// newRPCTypes compiles the .proto files, looking for them and their
// imports in the import paths (the files' own folders when none are
// given). No files means the types come from reflection.
func newRPCTypes(files, importPaths []string, read map[string][]byte) (*rpcTypes, error) {
	t := &rpcTypes{cached: map[string]*rpcMethod{}, names: strings.Join(files, ", ")}
	if len(files) == 0 {
		return t, nil
	}
	var open func(string) ([]byte, error)
	if read != nil {
		open = func(path string) ([]byte, error) {
			if data, ok := read[path]; ok {
				return data, nil
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
	}
	compiled, err := compileProto(files, importPaths, open)
	if err != nil {
		return nil, err
	}
	t.files = compiled
	return t, nil
}

// CompileProto compiles .proto files as a gRPC load would, looking for
// them and their imports in importPaths (each file's own folder when none
// are given), and reading each with read (nil: from disk). Its error names
// the file, line and column at fault. A spec's parse calls it to check the
// files and to learn every file a load pod must be sent.
func CompileProto(files, importPaths []string, read func(path string) ([]byte, error)) error {
	_, err := compileProto(files, importPaths, read)
	return err
}

func compileProto(files, importPaths []string, read func(path string) ([]byte, error)) (linker.Files, error) {
	paths, names := rpcImportPaths(files, importPaths)
	src := &protocompile.SourceResolver{ImportPaths: paths}
	if read != nil {
		src.Accessor = func(path string) (io.ReadCloser, error) {
			data, err := read(path)
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(src)}
	compiled, err := c.Compile(context.Background(), names...)
	if err != nil {
		return nil, &OptionError{Option: "proto", Msg: err.Error()}
	}
	return compiled, nil
}

// rpcImportPaths returns where to look for files and their imports, and
// the files' names as the compiler is to find them there. Without import
// paths, each file is found in its own folder; with them, as protoc does,
// a file under one of them is named from there, and any other as given.
func rpcImportPaths(files, importPaths []string) (paths, names []string) {
	if len(importPaths) == 0 {
		for _, f := range files {
			dir := filepath.Dir(f)
			if !slices.Contains(paths, dir) {
				paths = append(paths, dir)
			}
			names = append(names, filepath.Base(f))
		}
		return paths, names
	}
	for _, f := range files {
		name := f
		for _, p := range importPaths {
			if rel, err := filepath.Rel(p, f); err == nil && filepath.IsLocal(rel) {
				name = rel
				break
			}
		}
		names = append(names, filepath.ToSlash(name))
	}
	return importPaths, names
}

// method returns the method a request's path names, on the server at
// addr through cc when it must be asked.
func (t *rpcTypes) method(ctx context.Context, addr, path string, cc grpc.ClientConnInterface) (*rpcMethod, error) {
	key := path
	if t.files == nil {
		key = addr + path
	}
	t.mu.RLock()
	m := t.cached[key]
	t.mu.RUnlock()
	if m != nil { // every call of a scenario's step after its first
		return m, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if m := t.cached[key]; m != nil {
		return m, nil
	}
	svc, name, err := splitRPCPath(path)
	if err != nil {
		return nil, err
	}
	var sd protoreflect.ServiceDescriptor
	if t.files != nil {
		sd, err = t.fileService(svc)
	} else {
		sd, err = reflectService(ctx, addr, svc, cc)
	}
	if err != nil {
		return nil, err
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("service %s has no method %s (it has %s)", svc, name, listNames(sd.Methods()))
	}
	m = &rpcMethod{path: path, desc: md, streaming: md.IsStreamingClient() || md.IsStreamingServer()}
	t.cached[key] = m
	return m, nil
}

// fileService finds a service in the compiled files.
func (t *rpcTypes) fileService(svc string) (protoreflect.ServiceDescriptor, error) {
	d, err := t.files.AsResolver().FindDescriptorByName(protoreflect.FullName(svc))
	if sd, ok := d.(protoreflect.ServiceDescriptor); ok && err == nil {
		return sd, nil
	}
	var all []string
	for _, f := range t.files {
		for i := range f.Services().Len() {
			all = append(all, string(f.Services().Get(i).FullName()))
		}
	}
	return nil, fmt.Errorf("%s defines no service %s (services: %s)", t.names, svc, orNone(all))
}

// reflectService asks the server at addr for a service's descriptor.
func reflectService(ctx context.Context, addr, svc string, cc grpc.ClientConnInterface) (protoreflect.ServiceDescriptor, error) {
	rc := grpcreflect.NewClientAuto(ctx, cc)
	defer rc.Reset()
	fd, err := rc.FileContainingSymbol(protoreflect.FullName(svc))
	if err != nil {
		switch {
		case status.Code(err) == codes.Unimplemented:
			return nil, fmt.Errorf("%s has no reflection service; give the method's types with --proto FILE (load.proto in a spec)", addr)
		case grpcreflect.IsElementNotFoundError(err):
			names, _ := rc.ListServices()
			all := make([]string, len(names))
			for i, n := range names {
				all[i] = string(n)
			}
			return nil, fmt.Errorf("%s serves no service %s (services: %s)", addr, svc, orNone(all))
		}
		if s, ok := status.FromError(err); ok {
			return nil, fmt.Errorf("asking %s for %s by reflection: %s: %s", addr, svc, rpcCodeName(s.Code()), s.Message())
		}
		return nil, fmt.Errorf("asking %s for %s by reflection: %w", addr, svc, err)
	}
	sd := fd.Services().ByName(protoreflect.FullName(svc).Name())
	if sd == nil {
		return nil, fmt.Errorf("%s: the file %s it gave for %s defines no such service", addr, fd.Path(), svc)
	}
	return sd, nil
}

// splitRPCPath splits "/package.Service/Method".
func splitRPCPath(path string) (svc, method string, err error) {
	svc, method, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if !ok || svc == "" || method == "" || strings.Contains(method, "/") {
		return "", "", fmt.Errorf("gRPC path %q: want /package.Service/Method", path)
	}
	return svc, method, nil
}

func listNames(ms protoreflect.MethodDescriptors) string {
	names := make([]string, ms.Len())
	for i := range names {
		names[i] = string(ms.Get(i).Name())
	}
	return orNone(names)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// rpcCodeName names a gRPC status code as the specification spells it.
func rpcCodeName(c codes.Code) string { return record.CodeName(record.GRPCCode(uint32(c))) }
