package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether a process with pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

type readyInfo struct {
	Entry string            `json:"entry"`
	Nodes map[string]string `json:"nodes"`
}

// graphUp starts "latlab graph up FILE" and waits for its ready file.
func startGraphUp(t *testing.T, bin, file string) (*exec.Cmd, readyInfo) {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready.json")
	cmd := exec.Command(bin, "graph", "up", file, "--ready-file", ready, "-q")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 300; i++ {
		if b, err := os.ReadFile(ready); err == nil && len(b) > 0 {
			var info readyInfo
			if err := json.Unmarshal(b, &info); err == nil {
				return cmd, info
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("graph up did not become ready:\n%s", out.String())
	return nil, readyInfo{}
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// nodePIDs finds the serve processes graph up started: the children of
// any of its threads.
func nodePIDs(t *testing.T, parent int) []int {
	t.Helper()
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", parent))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			var p int
			fmt.Sscan(f, &p)
			pids = append(pids, p)
		}
	}
	return pids
}

func TestGraphUp(t *testing.T) {
	bin := buildLatlab(t)
	cmd, info := startGraphUp(t, bin, "../../examples/graphs/chain.yaml")
	if len(info.Nodes) != 3 || info.Entry == "" {
		t.Fatalf("ready file %+v, want an entry and 3 nodes", info)
	}
	code, hdr, _ := get(t, info.Entry+"/busywork?ms=2")
	if code != 200 || !strings.Contains(hdr.Get("Server-Timing"), "work;dur=") {
		t.Errorf("busywork: %d, Server-Timing %q", code, hdr.Get("Server-Timing"))
	}
	for name, u := range info.Nodes {
		_, _, metrics := get(t, u+"/metrics")
		if !strings.Contains(metrics, `latlab_server_request_duration_seconds`) {
			t.Errorf("%s exposes no server histogram", name)
		}
	}
	pids := nodePIDs(t, cmd.Process.Pid)
	if len(pids) != 3 {
		t.Fatalf("graph up has %d children, want 3", len(pids))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("graph up did not stop on SIGTERM")
	}
	for _, p := range pids {
		if alive(p) {
			t.Errorf("node %d outlived graph up", p)
		}
	}
}

// TestGraphUpKilled kills graph up with SIGKILL: its nodes must not outlive it.
func TestGraphUpKilled(t *testing.T) {
	bin := buildLatlab(t)
	cmd, _ := startGraphUp(t, bin, "../../examples/graphs/chain.yaml")
	pids := nodePIDs(t, cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range pids {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(p) {
			t.Errorf("node %d outlived a killed graph up", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeTestapiEnv runs a root → branch → leaf chain configured only by
// testapi's environment variables.
func TestServeTestapiEnv(t *testing.T) {
	bin := buildLatlab(t)
	names := []string{"root", "branch", "leaf"}
	addrs := []string{freeAddr(t), freeAddr(t), freeAddr(t)}
	for i := len(names) - 1; i >= 0; i-- {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "SERVICE_NAME="+names[i], "UPSTREAM_URI=http://"+addrs[i], "PRIME_MAX=5000")
		if i+1 < len(names) {
			cmd.Env = append(cmd.Env, "DOWNSTREAM_URI=http://"+addrs[i+1])
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	for _, a := range addrs {
		for i := 0; i < 200; i++ {
			if resp, err := http.Get("http://" + a + "/healthz"); err == nil {
				resp.Body.Close()
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
	for _, route := range []string{"/", "/busywork?ms=1", "/prime", "/sleep?ms=1"} {
		if code, _, body := get(t, "http://"+addrs[0]+route); code != 200 {
			t.Errorf("%s: %d %s", route, code, body)
		}
	}
	_, _, metrics := get(t, "http://"+addrs[2]+"/metrics")
	if !strings.Contains(metrics, `service="leaf"`) || !strings.Contains(metrics, `route="/prime"`) {
		t.Errorf("the leaf did not see the forwarded routes:\n%.2000s", metrics)
	}
}

// TestServeTLSAdmission serves /admission over HTTPS with a certificate
// serve made in --tls-dir, which a client trusts through the CA written
// beside it.
func TestServeTLSAdmission(t *testing.T) {
	bin := buildLatlab(t)
	addr, dir := freeAddr(t), t.TempDir()
	cmd := exec.Command(bin, "serve", "--listen", addr, "--tls-dir", dir, "--admission-delay", "10ms", "--admission-user", "delay-adder")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var client *http.Client
	for i := 0; i < 400 && client == nil; i++ {
		if pemData, err := os.ReadFile(filepath.Join(dir, "ca.crt")); err == nil {
			pool := x509.NewCertPool()
			if pool.AppendCertsFromPEM(pemData) {
				client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	if client == nil {
		t.Fatal("serve wrote no ca.crt in --tls-dir")
	}
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","userInfo":{"username":"delay-adder"}}}`
	var body []byte
	for i := 0; i < 200; i++ {
		resp, err := client.Post("https://"+addr+"/admission", "application/json", strings.NewReader(review))
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if !strings.Contains(string(body), `"uid":"u1","allowed":true`) {
		t.Errorf("answer %q, want the review allowed", body)
	}
}
