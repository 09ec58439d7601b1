package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestProvenanceMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	p := CollectProvenance(t.Context(), t.TempDir(), "v9.9.9", 42)
	host, _ := os.Hostname()
	for _, c := range []struct{ field, got, want string }{
		{"host", p.Host, host},
		{"go version", p.GoVersion, runtime.Version()},
		{"latlab version", p.LatlabVersion, "v9.9.9"},
		{"git SHA of a folder outside git", p.GitSHA, ""},
	} {
		if c.got != c.want {
			t.Errorf("%s %q, want %q", c.field, c.got, c.want)
		}
	}
	if !strings.HasPrefix(p.Kernel, "Linux ") || len(strings.Fields(p.Kernel)) < 3 {
		t.Errorf("kernel %q, want Linux, the release and the version", p.Kernel)
	}
	if p.CPUModel == "" {
		t.Errorf("CPU model empty, want a name or %q", unknownFact)
	}
	if p.CPUCount < 1 || p.CPUCount > runtime.NumCPU() {
		t.Errorf("CPU count %d, want 1 to runtime.NumCPU() = %d", p.CPUCount, runtime.NumCPU())
	}
	if p.Governor == "" {
		t.Errorf("governor empty, want a name or %q", unknownFact)
	}
	if p.Seed != 42 {
		t.Errorf("seed %d, want 42", p.Seed)
	}
	if a := p.LoadAverage; a[0] < 0 || a[1] < 0 || a[2] < 0 {
		t.Errorf("load average %v, want none negative", a)
	}
	// An idle machine may show 0.00 for a while, but not all three while
	// /proc/loadavg says otherwise.
	if data, err := os.ReadFile("/proc/loadavg"); err == nil && p.LoadAverage == [3]float64{} &&
		!strings.HasPrefix(string(data), "0.00 0.00 0.00") {
		t.Errorf("load average %v; /proc/loadavg says %q", p.LoadAverage, data)
	}
	if p.Extra["go_num_cpu"] == "" {
		t.Errorf("extra %v: want go_num_cpu", p.Extra)
	}
}

func TestProvenanceGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	provGit(t, dir, "init", "-q")
	spec := filepath.Join(dir, "spec.yaml")
	writeProvFile(t, spec, "version: 1\n")
	provGit(t, dir, "add", "spec.yaml")
	provGit(t, dir, "commit", "-q", "-m", "spec")
	head := provGit(t, dir, "rev-parse", "HEAD")
	sub := filepath.Join(dir, "graphs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	if got := CollectProvenance(ctx, dir, "dev", 0).GitSHA; got != head {
		t.Errorf("clean work tree: git SHA %q, want %q", got, head)
	}
	if got := CollectProvenance(ctx, sub, "dev", 0).GitSHA; got != head {
		t.Errorf("a folder inside the work tree: git SHA %q, want %q", got, head)
	}
	// Untracked files, such as the results database, leave it clean.
	writeProvFile(t, filepath.Join(dir, "results.db"), "x")
	if got := CollectProvenance(ctx, dir, "dev", 0).GitSHA; got != head {
		t.Errorf("with an untracked file: git SHA %q, want %q", got, head)
	}
	writeProvFile(t, spec, "version: 1\nname: changed\n")
	if got, want := CollectProvenance(ctx, dir, "dev", 0).GitSHA, head+"+dirty"; got != want {
		t.Errorf("after an edit: git SHA %q, want %q", got, want)
	}
	if !regexp.MustCompile(`^[0-9a-f]{40,64}$`).MatchString(head) {
		t.Errorf("rev-parse HEAD gave %q", head)
	}
}

func TestProvenanceNoGit(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		if got := CollectProvenance(ctx, dir, "dev", 0).GitSHA; got != "" {
			t.Errorf("%s: git SHA %q, want none", dir, got)
		}
	}
	// Without git on the PATH, the rest is still collected.
	t.Setenv("PATH", t.TempDir())
	p := CollectProvenance(ctx, ".", "dev", 0)
	if p.GitSHA != "" || p.GoVersion == "" {
		t.Errorf("without git: git SHA %q, Go version %q; want none and one", p.GitSHA, p.GoVersion)
	}
}

// provGit runs git in dir, which must succeed, and returns its output.
func provGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir,
		"-c", "user.name=latlab", "-c", "user.email=latlab@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeProvFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
