package kube

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/probe"
)

// crud is the study's load: each iteration creates, updates, reads and
// deletes one ConfigMap, as one of three users in turn.
const crud = `users:
  - {name: alice, token: alice-token}
  - {name: bob, token: bob-token}
  - {name: delay-adder, token: delay-token}
steps:
  - name: create
    method: POST
    url: "URL/api/v1/namespaces/default/configmaps"
    headers: {Authorization: "Bearer {{.User.Token}}", Content-Type: application/json}
    body: '{"metadata":{"name":"cm-{{.User.Name}}-{{.Seq}}"},"data":{"n":"0"}}'
  - name: update
    method: PUT
    url: "URL/api/v1/namespaces/default/configmaps/cm-{{.User.Name}}-{{.Seq}}"
    headers: {Authorization: "Bearer {{.User.Token}}", Content-Type: application/json}
    body: '{"metadata":{"name":"cm-{{.User.Name}}-{{.Seq}}"},"data":{"n":"1"}}'
  - name: get
    url: "URL/api/v1/namespaces/default/configmaps/cm-{{.User.Name}}-{{.Seq}}"
    headers: {Authorization: "Bearer {{.User.Token}}"}
  - name: delete
    method: DELETE
    url: "URL/api/v1/namespaces/default/configmaps/cm-{{.User.Name}}-{{.Seq}}"
    headers: {Authorization: "Bearer {{.User.Token}}"}
`

// bearerTransport sends one user's token.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// TestConfigMapLoadAndFilterLatency runs the study's ConfigMap load, as
// three users, against a real kube-apiserver with priority and fairness
// on, and scrapes its /metrics over HTTPS with a bearer token: every
// request succeeds, and the APF filter's own latency histogram
// (apiserver_request_filter_duration_seconds{filter="priorityandfairness"})
// and its queue wait are read with windowed quantiles.
func TestConfigMapLoadAndFilterLatency(t *testing.T) {
	s := startAPIServer(t)
	s.allowConfigMaps(t)
	// The binding reaches the authorizer through a watch: wait for it.
	for deadline := time.Now().Add(time.Minute); ; {
		code, _, err := s.do("GET", "/api/v1/namespaces/default/configmaps", "alice", nil)
		if err == nil && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice cannot list ConfigMaps a minute after the binding: %d %v", code, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	scraper := &probe.Scraper{
		URLs:      []string{s.url + "/metrics"},
		Interval:  time.Second,
		Window:    time.Hour, // the whole test in one window
		Quantiles: []float64{0.9, 0.99},
		Timeout:   time.Minute, // not the interval: a busy server answers late, and every scrape counts
		Client:    &http.Client{Transport: bearerTransport{token: token("admin"), next: s.client.Transport}},
	}
	ctx := context.Background()
	began := time.Now()
	if up := find(scraper.Scrape(ctx, 0), "up", nil); up == nil || up.Value != 1 {
		t.Fatalf("first scrape of %s/metrics: %+v", s.url, up)
	}

	sc, err := load.ParseScenario("crud.yaml", []byte(strings.ReplaceAll(crud, "URL", s.url)), nil)
	if err != nil {
		t.Fatal(err)
	}
	const iterations = 60
	res, err := load.Attack(ctx, load.Config{
		Source:    sc,
		Model:     load.Closed{Workers: 6},
		Count:     iterations,
		Transport: load.Options{TLS: s.client.Transport.(*http.Transport).TLSClientConfig, Timeout: 30 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 4*iterations || res.Codes[200]+res.Codes[201] != res.Requests {
		t.Fatalf("%d requests, codes %v, errors %v; want %d, every one 200 or 201", res.Requests, res.Codes, res.Errors, 4*iterations)
	}

	points := scraper.Scrape(ctx, time.Since(began)+time.Second)
	filter := map[string]string{"filter": "priorityandfairness"}
	for _, q := range []string{":p90", ":p99", ":p100"} {
		p := find(points, "apiserver_request_filter_duration_seconds"+q, filter)
		if p == nil || !(p.Value > 0) {
			t.Errorf("apiserver_request_filter_duration_seconds%s{filter=priorityandfairness}: %+v; want a positive latency", q, p)
		}
	}
	if p := find(points, "apiserver_request_filter_duration_seconds:rate", filter); p == nil || !(p.Value > 0) {
		t.Errorf("the APF filter's histogram counted nothing: %+v", p)
	}
	wait := find(points, "apiserver_flowcontrol_request_wait_duration_seconds:p99", nil)
	if wait == nil {
		t.Fatalf("no queue wait quantile (apiserver_flowcontrol_request_wait_duration_seconds) in %d points", len(points))
	}
	if p := find(points, "apiserver_request_filter_duration_seconds:p99", filter); p != nil {
		t.Logf("%d requests; APF filter latency p99 %.6f s; queue wait p99 %.6f s %v", res.Requests, p.Value, wait.Value, wait.Labels)
	}
}

// find returns the first point of series whose labels include want.
func find(points []probe.Point, series string, want map[string]string) *probe.Point {
	i := slices.IndexFunc(points, func(p probe.Point) bool {
		if p.Series != series {
			return false
		}
		for k, v := range want {
			if p.Labels[k] != v {
				return false
			}
		}
		return true
	})
	if i < 0 {
		return nil
	}
	return &points[i]
}
