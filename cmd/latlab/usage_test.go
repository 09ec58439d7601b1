package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkUsageError checks that a run exited with exitUsage, printed nothing
// on stdout and one line on stderr: "latlab: " and a text holding every
// one of want.
func checkUsageError(t *testing.T, code int, stdout, stderr string, want ...string) {
	t.Helper()
	if code != exitUsage {
		t.Errorf("exit code %d, want %d", code, exitUsage)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if !strings.HasPrefix(stderr, "latlab: ") || !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting with \"latlab: \"", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not contain %q", stderr, w)
		}
	}
}

func TestAttackBadInput(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	url := srv.URL
	dir := t.TempDir()
	targets := writeIn(t, dir, "targets.txt", fmt.Sprintf("GET %s/\n", url))
	// Both fail to parse before anything is sent to their URLs.
	badTargets := filepath.Join("testdata", "bad-header.targets")
	badScenario := filepath.Join("testdata", "unknown-field.yaml")
	txt := filepath.Join(dir, "out.txt")
	bare := filepath.Join(dir, "json")

	// Cases give -n 1 where they can, so that one wrongly accepted stops
	// after a request.
	tests := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"unknown flag", []string{url, "-n", "1", "--bogus"}, []string{"unknown flag: --bogus"}},
		{"mistyped flag", []string{url, "-n", "1", "--warmpu", "1s"}, []string{"unknown flag: --warmpu; did you mean --warmup?"}},
		{"ftp URL", []string{"ftp://x", "-n", "1"}, []string{`URL: expected an absolute http, https, grpc or grpcs URL, got "ftp://x"`}},
		{"not a URL", []string{"not a url", "-n", "1"}, []string{`got "not a url"`}},
		{"URL without host", []string{"http:///path", "-n", "1"}, []string{`got "http:///path"`}},
		{"URL without scheme", []string{"127.0.0.1:18080/x", "-n", "1"}, []string{`did you mean "http://127.0.0.1:18080/x"?`}},
		{"two URLs", []string{url, url, "-n", "1"}, []string{"one URL", "got 2"}},
		{"negative rate", []string{url, "-r", "-5", "-n", "1"}, []string{"-r", "-5"}},
		{"zero rate", []string{url, "-r", "0", "-n", "1"}, []string{"-r", "got 0"}},
		{"zero duration", []string{url, "-d", "0s"}, []string{"-d", "0s"}},
		{"negative count", []string{url, "-n", "-1"}, []string{"-n", "-1"}},
		{"zero workers", []string{url, "-c", "0", "-n", "1"}, []string{"-c", "got 0"}},
		{"malformed ramp", []string{url, "-c", "4", "--ramp", "3", "-n", "1"}, []string{`--ramp "3"`, "BURST/EVERY"}},
		{"ramp with a bad period", []string{url, "-c", "4", "--ramp", "3/soon", "-n", "1"}, []string{`--ramp "3/soon"`, `"soon"`}},
		{"ramp without -c", []string{url, "--ramp", "3/1s", "-n", "1"}, []string{"--ramp needs -c"}},
		{"ramp with -r", []string{url, "-c", "4", "--ramp", "3/1s", "-r", "10", "-n", "1"}, []string{"--ramp", "-r"}},
		{"sequential with -c", []string{url, "--sequential", "-c", "2", "-n", "1"}, []string{"--sequential"}},
		{"stages without rate", []string{url, "--stages", "10s", "-n", "1"}, []string{"--stages", `"10s"`, "DURATION:RATE"}},
		{"arrivals with -r", []string{url, "-r", "10", "--arrivals", "weird", "-n", "1"}, []string{"--arrivals", `"weird"`}},
		{"arrivals alone", []string{url, "--arrivals", "weird", "-n", "1"}, []string{"--arrivals", `"weird"`}},
		{"success below 100", []string{url, "--success", "99", "-n", "1"}, []string{"--success", `"99"`}},
		{"success backwards", []string{url, "--success", "299-200", "-n", "1"}, []string{"--success", "backwards"}},
		{"format xml", []string{url, "--format", "xml", "-n", "1"}, []string{"--format", `"xml"`}},
		{"output txt", []string{url, "-o", txt, "-n", "1"}, []string{"-o", "out.txt"}},
		{"output without extension", []string{url, "-o", bare, "-n", "1"}, []string{"-o", bare}},
		{"header without colon", []string{url, "-H", "novalue", "-n", "1"}, []string{`-H "novalue"`, "Name: value"}},
		{"body and body file", []string{url, "-b", "x", "--body-file", targets, "-n", "1"}, []string{"-b", "--body-file"}},
		{"missing body file", []string{url, "--body-file", filepath.Join(dir, "nope"), "-n", "1"}, []string{"--body-file", "nope"}},
		{"URL and targets", []string{url, "--targets", targets, "-n", "1"}, []string{"only one of a URL, --targets and --scenario"}},
		{"no URL", []string{"-n", "1"}, []string{"give a URL, --targets FILE or --scenario FILE"}},
		{"http2 and h2c", []string{url, "--http2", "--h2c", "-n", "1"}, []string{"--http2", "--h2c"}},
		{"cert without key", []string{url, "--cert", filepath.Join(dir, "c.pem"), "-n", "1"}, []string{"--cert", "--key"}},
		{"missing cacert", []string{url, "--cacert", filepath.Join(dir, "nope.pem"), "-n", "1"}, []string{"nope.pem"}},
		{"cacert without PEM", []string{url, "--cacert", targets, "-n", "1"}, []string{targets, "PEM"}},
		{"client curl", []string{url, "--client", "curl", "-n", "1"}, []string{"--client", `"curl"`}},
		{"zero timeout", []string{url, "--timeout", "0s", "-n", "1"}, []string{"--timeout"}},
		{"output in a missing folder", []string{url, "-o", filepath.Join(dir, "no", "run.json"), "-n", "1"}, []string{"-o", "run.json"}},
		{"zero interval", []string{url, "--interval", "0s", "-n", "1"}, []string{"--interval"}},
		{"negative warm-up", []string{url, "--warmup", "-1s", "-n", "1"}, []string{"--warmup"}},
		{"zero streams", []string{url, "--streams", "0", "-n", "1"}, []string{"--streams"}},
		{"negative connections", []string{url, "--connections", "-1", "-n", "1"}, []string{"--connections"}},
		{"method with a space", []string{url, "-m", "GET X", "-n", "1"}, []string{"-m", `"GET X"`}},
		// The bounds are judged before --format, so that an attack let
		// through by mistake stops at --format, without a million workers.
		{"method not a token", []string{url, "-m", "GET(1)", "-n", "1", "--format", "xml"}, []string{"-m", `"GET(1)" is not an HTTP method`}},
		{"workers past the bound", []string{url, "-c", "1000001", "-n", "1", "--format", "xml"}, []string{"-c: want at most 1000000, got 1000001"}},
		{"rate past the bound", []string{url, "-r", "2e9", "-n", "1", "--format", "xml"}, []string{"-r: want at most 1e+09, got 2e+09"}},
		{"requests past the bound", []string{url, "-n", "1000000000001", "--format", "xml"}, []string{"-n: want at most 1000000000000"}},
		{"timeout past the bound", []string{url, "--timeout", "25h", "-n", "1", "--format", "xml"}, []string{"--timeout: want at most 24h0m0s, got 25h0m0s"}},
		{"streams past the bound", []string{url, "--h2c", "--streams", "10001", "-n", "1", "--format", "xml"}, []string{"--streams: want at most 10000, got 10001"}},
		{"connections past the bound", []string{url, "--connections", "1000001", "-n", "1", "--format", "xml"}, []string{"--connections: want at most 1000000"}},
		{"cpus not a list", []string{url, "--cpus", "abc", "-n", "1"}, []string{"--cpus", `"abc"`}},
		{"cpus missing", []string{url, "--cpus", "1023", "-n", "1"}, []string{"--cpus", "1023"}},
		{"targets syntax", []string{"--targets", badTargets, "-n", "1"}, []string{badTargets + ":3:", "header", "no colon here"}},
		{"missing targets", []string{"--targets", filepath.Join(dir, "nope.txt"), "-n", "1"}, []string{"nope.txt"}},
		{"scenario unknown field", []string{"--scenario", badScenario, "-n", "1"}, []string{badScenario + ":5:", "steps[0].retries", "unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "cpus missing" && runtime.NumCPU() > 1023 {
				t.Skip("CPU 1023 exists: the run would pin the test process")
			}
			code, stdout, stderr := runCLI(t, append([]string{"attack"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests: bad input must not start an attack", n)
	}
	for _, path := range []string{txt, bare} {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s was created: a rejected -o must not be written", path)
		}
	}
}

func TestBadCommandLine(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"atack"}, `unknown command "atack"; did you mean attack?`},
		{"unknown command, nothing near", []string{"xyzzy"}, `unknown command "xyzzy"; run "latlab help" for the commands`},
		{"mistyped flag of a command", []string{"report", "x.db", "--formta", "json"}, "unknown flag: --formta; did you mean --format?"},
		{"version with an argument", []string{"version", "x"}, `"x"`},
		{"unknown root flag", []string{"--bogus"}, "unknown flag: --bogus"},
		{"serve on a bad CPU list", []string{"serve", "--listen", "127.0.0.1:0", "--cpus", "abc"}, `--cpus: `},
		{"serve an admission user without delay", []string{"serve", "--listen", "127.0.0.1:0", "--admission-user", "bob"}, "--admission-user needs --admission-delay"},
		{"serve a negative admission delay", []string{"serve", "--listen", "127.0.0.1:0", "--admission-delay", "-1s"}, "--admission-delay: want a duration of 0 or more, got -1s"},
		{"serve an empty admission user", []string{"serve", "--listen", "127.0.0.1:0", "--admission-delay", "1s", "--admission-user", ""}, "--admission-user: empty"},
		{"serve TLS from a file", []string{"serve", "--listen", "127.0.0.1:0", "--tls-dir", "/dev/null"}, "--tls-dir: "},
		{"ls of two databases", []string{"ls", "a.db", "b.db"}, "ls takes one results database, got 2 arguments"},
		{"report of no database", []string{"report"}, "report takes one results database, got 0 arguments"},
		{"scale of two files", []string{"scale", "a.csv", "b.csv"}, "scale takes one file, got 2 arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			checkUsageError(t, code, stdout, stderr, tt.want)
		})
	}
}

func TestAttackOutputBareName(t *testing.T) {
	srv := newServer(t, plainHTTP, http.StatusOK, 0)
	dir := t.TempDir()
	t.Chdir(dir)
	// "-o json" looks like --format json; the check for .json must not
	// take the whole name for the extension.
	for _, name := range []string{"json", "hlog"} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "attack", srv.URL, "-n", "1", "-o", name)
			checkUsageError(t, code, stdout, stderr, "-o", name)
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("file %s was created", name)
			}
		})
	}
}
