package kube

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/graph"
	"github.com/latlab/latlab/load"
)

// startWebhook serves a node's /admission over HTTPS on 127.0.0.1 with a
// CA of its own, delaying the users named; it returns the node's URL and
// its CA in PEM.
func startWebhook(t *testing.T, delay time.Duration, users ...string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	tc, err := graph.TLSDir(filepath.Join(dir, "tls"), []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "tls", graph.CAFile))
	if err != nil {
		t.Fatal(err)
	}
	node, err := graph.NewNode(graph.NodeConfig{Name: "webhook", Admission: &graph.Admission{Delay: delay, Users: users}, TLS: tc})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- node.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "https://" + ln.Addr().String(), ca
}

// TestAdmissionWebhookDelay makes a real kube-apiserver call latlab's
// admission webhook on every ConfigMap create, update and delete: the
// delay-adder user's mutating requests each take at least the webhook's
// delay, held inside the server as the study's delay adder held them,
// while its reads and the other users' requests are not delayed.
func TestAdmissionWebhookDelay(t *testing.T) {
	const delay = 2 * time.Second
	s := startAPIServer(t)
	s.allowConfigMaps(t)
	hook, ca := startWebhook(t, delay, "delay-adder")
	config := fmt.Sprintf(`{"metadata":{"name":"latlab-delay"},"webhooks":[{"name":"delay.latlab.test",
		"clientConfig":{"url":"%s/admission","caBundle":"%s"},
		"rules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],
		"sideEffects":"None","admissionReviewVersions":["v1"],"failurePolicy":"Fail","timeoutSeconds":10}]}`,
		hook, base64.StdEncoding.EncodeToString(ca))
	if code, b, err := s.do("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", "admin", []byte(config)); err != nil || code != http.StatusCreated {
		t.Fatalf("creating the webhook configuration: %d %v: %s", code, err, b)
	}
	// The configuration reaches the admission chain through a watch:
	// wait until a delay-adder create takes the delay.
	for deadline, i := time.Now().Add(time.Minute), 0; ; i++ {
		start := time.Now()
		body := fmt.Sprintf(`{"metadata":{"name":"probe-%d"}}`, i)
		code, b, err := s.do("POST", "/api/v1/namespaces/default/configmaps", "delay-adder", []byte(body))
		if err != nil || code != http.StatusCreated {
			t.Fatalf("delay-adder's create: %d %v: %s", code, err, b)
		}
		if time.Since(start) >= delay {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a minute after the webhook configuration, delay-adder's creates are still not delayed")
		}
		time.Sleep(200 * time.Millisecond)
	}

	for _, user := range []string{"alice", "delay-adder"} {
		sc, err := load.ParseScenario("crud.yaml", []byte(oneUser(user, s.url)), nil)
		if err != nil {
			t.Fatal(err)
		}
		const iterations = 6
		res, err := load.Attack(context.Background(), load.Config{
			Source:    sc,
			Model:     load.Closed{Workers: 3},
			Count:     iterations,
			KeepRaw:   4 * iterations,
			Transport: load.Options{TLS: s.client.Transport.(*http.Transport).TLSClientConfig, Timeout: 30 * time.Second},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 4*iterations || res.Codes[200]+res.Codes[201] != res.Requests {
			t.Fatalf("%s: %d requests, codes %v, errors %v", user, res.Requests, res.Codes, res.Errors)
		}
		// The least latency of each step: create, update, get, delete.
		least := make([]time.Duration, 4)
		for _, r := range res.Raw {
			if l := r.Done - r.Intended; least[r.Step] == 0 || l < least[r.Step] {
				least[r.Step] = l
			}
		}
		t.Logf("%s: least latency of create, update, get, delete: %v", user, least)
		for step, name := range []string{"create", "update", "get", "delete"} {
			delayed := user == "delay-adder" && name != "get"
			switch {
			case delayed && least[step] < delay:
				t.Errorf("%s's %s took %s at least, want the webhook's %s", user, name, least[step], delay)
			case !delayed && least[step] >= delay:
				t.Errorf("%s's %s never took less than %s: delayed, though the webhook names only delay-adder's mutations", user, name, least[step])
			}
		}
	}
}

// oneUser is the CRUD scenario as user alone, against the server at url.
func oneUser(user, url string) string {
	var kept []string
	lines := strings.Split(crud, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  - {name: ") && i < 4 && !strings.Contains(l, "name: "+user+",") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.ReplaceAll(strings.Join(kept, "\n"), "URL", url)
}
