package graph

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// NodeProto is the service definition of a gRPC node (node.proto).
//
//go:embed node.proto
var NodeProto string

// The gRPC node's names: its service and the paths of its methods.
const (
	NodeService   = "latlab.graph.v1.Node"
	RunMethod     = "/" + NodeService + "/Run"
	RunStreamPath = "/" + NodeService + "/RunStream"
)

// nodeTypes are node.proto's messages, compiled once.
var nodeTypes = mustCompileNode()

type nodeDescs struct {
	request protoreflect.MessageDescriptor
	reply   protoreflect.MessageDescriptor
	body    protoreflect.FieldDescriptor // Request.body
	text    protoreflect.FieldDescriptor // Reply.text
	payload protoreflect.FieldDescriptor // Reply.payload
}

// mustCompileNode compiles node.proto with protocompile and registers it
// with the process's descriptors, where grpc-go's reflection service
// finds it. The file is part of the binary: failing to compile it is a
// bug, found by every test.
func mustCompileNode() nodeDescs {
	const name = "latlab/graph/v1/node.proto"
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: func(path string) (io.ReadCloser, error) {
			if path != name {
				return nil, fmt.Errorf("%s: not found", path)
			}
			return io.NopCloser(bytes.NewReader([]byte(NodeProto))), nil
		},
	})}
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		panic(fmt.Sprintf("graph: compiling node.proto: %v", err))
	}
	fd := files[0]
	if _, err := protoregistry.GlobalFiles.FindFileByPath(name); err != nil {
		if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
			panic(fmt.Sprintf("graph: registering node.proto: %v", err))
		}
	}
	msgs := fd.Messages()
	req, reply := msgs.ByName("Request"), msgs.ByName("Reply")
	return nodeDescs{
		request: req, reply: reply,
		body:    req.Fields().ByName("body"),
		text:    reply.Fields().ByName("text"),
		payload: reply.Fields().ByName("payload"),
	}
}

// newRequest returns a Request whose body is size bytes of pattern.
func newRequest(size int64) *dynamicpb.Message {
	m := dynamicpb.NewMessage(nodeTypes.request)
	if size > 0 {
		m.Set(nodeTypes.body, protoreflect.ValueOfBytes(patternBytes(size)))
	}
	return m
}

// patternBytes returns size bytes of pattern, shared when pattern is long
// enough: a message's bytes are only read.
func patternBytes(size int64) []byte {
	if size <= int64(len(pattern)) {
		return pattern[:size:size]
	}
	b := make([]byte, size)
	for i := 0; i < len(b); i += len(pattern) {
		copy(b[i:], pattern)
	}
	return b
}

// rawCodec passes a proxied call's messages on as they came, undecoded.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*rawFrame)
	if !ok {
		return nil, fmt.Errorf("rawCodec: cannot send %T", v)
	}
	return f.data, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*rawFrame)
	if !ok {
		return fmt.Errorf("rawCodec: cannot read into %T", v)
	}
	data.Ref() // kept until it is sent on
	f.data = data
	return nil
}

func (rawCodec) Name() string { return "proto" }

// A rawFrame is one message of a proxied call.
type rawFrame struct{ data mem.BufferSlice }
