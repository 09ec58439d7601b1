package kube

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// users are the identities of the tests' token file: admin is in
// system:masters (exempt from priority and fairness), the others in the
// group latlab, which the tests allow ConfigMaps.
var users = []struct{ name, token, group string }{
	{"admin", "admin-token", "system:masters"},
	{"alice", "alice-token", "latlab"},
	{"bob", "bob-token", "latlab"},
	{"delay-adder", "delay-token", "latlab"},
}

// binaries returns the directory holding kube-apiserver, or skips t.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a real kube-apiserver takes a minute to start; not with -short")
	}
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("etcd is not installed: apt-get install etcd-server")
	}
	if d := os.Getenv("LATLAB_KUBE_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "kube-apiserver")); err != nil {
			t.Fatalf("LATLAB_KUBE_BIN=%s: %v", d, err)
		}
		return d
	}
	out, err := exec.Command("bash", "build.sh", "--cached").Output()
	if err != nil {
		t.Skip("kube-apiserver is not built: run test/kube/build.sh (5 to 15 minutes), or set LATLAB_KUBE_BIN")
	}
	return strings.TrimSpace(string(out))
}

// start runs cmd until the test ends, its output in dir/name.log.
func start(t *testing.T, dir, name string, cmd *exec.Cmd) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		log.Close()
	})
}

// tail returns the end of dir/name.log, for a failure's message.
func tail(dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name+".log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// apiServer is a kube-apiserver with its etcd, both on 127.0.0.1.
type apiServer struct {
	url    string // https://127.0.0.1:PORT
	caFile string // the serving certificate it made itself
	dir    string
	client *http.Client // trusts caFile
}

// startAPIServer starts etcd and kube-apiserver and waits until the API
// server is ready (at most two minutes on a busy machine).
func startAPIServer(t *testing.T, extra ...string) *apiServer {
	t.Helper()
	bin := binaries(t)
	dir := t.TempDir()
	// Below the ephemeral range, so that no connection made meanwhile
	// takes one before etcd and kube-apiserver listen on it.
	ports := freePorts(t, 3)
	client, peer, secure := ports[0], ports[1], ports[2]
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	start(t, dir, "etcd", exec.Command("etcd", "--name", "latlab", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "latlab="+peerURL))

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	saKey := filepath.Join(dir, "sa.key")
	writeFile(t, saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	var tokens bytes.Buffer
	for i, u := range users {
		fmt.Fprintf(&tokens, "%s,%s,%d,%q\n", u.token, u.name, i+1, u.group)
	}
	tokenFile := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokenFile, tokens.Bytes())
	certDir := filepath.Join(dir, "certs")
	args := append([]string{
		"--etcd-servers", etcdURL,
		"--secure-port", fmt.Sprint(secure), "--bind-address", "127.0.0.1",
		"--cert-dir", certDir,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", saKey, "--service-account-signing-key-file", saKey,
		"--token-auth-file", tokenFile,
		"--authorization-mode", "RBAC",
		"--service-cluster-ip-range", "10.96.0.0/24",
	}, extra...)
	start(t, dir, "kube-apiserver", exec.Command(filepath.Join(bin, "kube-apiserver"), args...))

	s := &apiServer{url: fmt.Sprintf("https://127.0.0.1:%d", secure), caFile: filepath.Join(certDir, "apiserver.crt"), dir: dir}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if s.client == nil {
			if pem, err := os.ReadFile(s.caFile); err == nil {
				pool := x509.NewCertPool()
				if pool.AppendCertsFromPEM(pem) {
					s.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
				}
			}
		}
		if s.client != nil {
			if code, _, err := s.do("GET", "/readyz", "admin", nil); err == nil && code == http.StatusOK {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready in 2 minutes; its log ends:\n%s\netcd's:\n%s", tail(dir, "kube-apiserver"), tail(dir, "etcd"))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// token returns the bearer token of the user called name.
func token(name string) string {
	for _, u := range users {
		if u.name == name {
			return u.token
		}
	}
	panic("no user " + name)
}

// do sends a request as user and returns the status and body.
func (s *apiServer) do(method, path, user string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(context.Background(), method, s.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token(user))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// allowConfigMaps lets the group latlab do anything with ConfigMaps.
func (s *apiServer) allowConfigMaps(t *testing.T) {
	t.Helper()
	for _, o := range []struct{ path, body string }{
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles",
			`{"metadata":{"name":"latlab-configmaps"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["*"]}]}`},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
			`{"metadata":{"name":"latlab-configmaps"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"latlab-configmaps"},` +
				`"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"latlab"}]}`},
	} {
		code, b, err := s.do("POST", o.path, "admin", []byte(o.body))
		if err != nil || code != http.StatusCreated {
			t.Fatalf("POST %s: %d %v: %s", o.path, code, err, b)
		}
	}
}
