package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const grpcSpec = `version: 1
name: greet
variants:
  - name: direct
    target: grpc://127.0.0.1:50051/latlab.test.Greeter/SayHello
load:
  rates: [100]
  duration: 1s
  body: '{"name": "ada"}'
  proto: [protos/greet.proto]
  import_paths: [protos]
`

func writeProtos(t *testing.T, greet string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"protos/greet.proto": greet,
		"protos/common/name.proto": `syntax = "proto3";
package latlab.test;
message Name { string given = 1; }
`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const greetProto = `syntax = "proto3";
package latlab.test;
import "common/name.proto";
service Greeter { rpc SayHello(Hello) returns (Hello); }
message Hello { string name = 1; Name full = 2; }
`

// TestParseSpecProto reads a gRPC study's spec: its proto files compile,
// and every file they import is among the files a bundle carries.
func TestParseSpecProto(t *testing.T) {
	dir := writeProtos(t, greetProto)
	s, err := ParseSpec(filepath.Join(dir, "spec.yaml"), []byte(grpcSpec), dir)
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, f := range s.Files() {
		if f.Sum == "" {
			t.Errorf("%s: read by the parse, but no sum", f.Written)
		}
		written = append(written, f.Written)
	}
	for _, want := range []string{"protos/greet.proto", "protos/common/name.proto"} {
		if !slices.Contains(written, want) {
			t.Errorf("files %q lack %s", written, want)
		}
	}
	l := s.Variants[0].Load
	if got := len(l.Settings().Inputs().Proto); got != 2 {
		t.Errorf("the load holds %d proto files read, want 2: a load built in a bundle's folder compiles them after the folder is gone", got)
	}
	if len(l.Proto) != 1 || !strings.HasSuffix(l.Proto[0], "protos/greet.proto") || len(l.ImportPaths) != 1 {
		t.Errorf("proto %q, import paths %q", l.Proto, l.ImportPaths)
	}
}

func TestParseSpecProtoErrors(t *testing.T) {
	for _, tc := range []struct{ name, proto, spec, want string }{
		{"does not compile", strings.Replace(greetProto, "string name", "strin name", 1), grpcSpec,
			`spec.yaml:10: load.proto: greet.proto:5:17: field latlab.test.Hello.name: unknown type strin`},
		{"import missing", strings.Replace(greetProto, "common/name.proto", "common/nope.proto", 1), grpcSpec,
			`protos/common/nope.proto: no such file or directory`},
		{"file missing", greetProto, strings.Replace(grpcSpec, "protos/greet.proto", "protos/gone.proto", 1),
			`spec.yaml:10: load.proto[0]: `},
		{"no messages", greetProto, strings.Replace(grpcSpec, "duration: 1s", "duration: 1s\n  messages: 0", 1),
			`spec.yaml:9: load.messages: want at least 1, got 0`},
		{"interval negative", greetProto, strings.Replace(grpcSpec, "duration: 1s", "duration: 1s\n  message_interval: -1ms", 1),
			`spec.yaml:9: load.message_interval: `},
		{"not a method", greetProto, strings.Replace(grpcSpec, "Greeter/SayHello", "Greeter", 1),
			`spec.yaml:5: variants[0].target: "grpc://127.0.0.1:50051/latlab.test.Greeter" names no gRPC method`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProtos(t, tc.proto)
			_, err := ParseSpec(filepath.Join(dir, "spec.yaml"), []byte(tc.spec), dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one that says %q", err, tc.want)
			}
		})
	}
}
