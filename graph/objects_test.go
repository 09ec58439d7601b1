package graph

import (
	"strings"
	"testing"
)

func TestObjects(t *testing.T) {
	_, leaf := startNode(t, NodeConfig{Name: "leaf"})
	root, srv := startNode(t, NodeConfig{Name: "root", Downstreams: []string{leaf.URL},
		Caps: Caps{MaxObjects: 2, MaxBody: 10, MaxStored: 15}})
	steps := []struct {
		method, path, body string
		code               int
		want               string // the body, or what it contains for errors
	}{
		{"GET", "/objects", "", 200, ""},
		{"GET", "/objects/a", "", 404, `object "a" not found`},
		{"POST", "/objects/a", "hello", 201, ""},
		{"POST", "/objects/a", "again", 409, `object "a" exists`},
		{"GET", "/objects/a", "", 200, "hello"},
		{"PUT", "/objects/a", "hello, you", 200, ""},
		{"GET", "/objects/a", "", 200, "hello, you"},
		{"PUT", "/objects/b", "12345678901", 400, "body: over MaxBody (10 bytes)"},
		{"PUT", "/objects/b", "123456", 400, "MaxStored is 15"},
		{"PUT", "/objects/b", "12345", 201, ""},
		{"POST", "/objects/c", "", 400, "MaxObjects is 2"},
		{"GET", "/objects", "", 200, "a\nb\n"},
		{"DELETE", "/objects/a", "", 204, ""},
		{"DELETE", "/objects/a", "", 404, `object "a" not found`},
		{"POST", "/objects/c", "1234567890", 201, ""},
		{"GET", "/objects", "", 200, "b\nc\n"},
		{"PATCH", "/objects/c", "", 405, ""},
		{"POST", "/objects", "", 405, ""},
		{"GET", "/objects/" + strings.Repeat("n", 256), "", 400, "name: longer than 255 bytes"},
		{"GET", "/objects/", "", 404, ""},
	}
	for _, s := range steps {
		a := do(t, s.method, srv.URL+s.path, s.body)
		if a.code != s.code {
			t.Errorf("%s %s = %d %q, want %d", s.method, s.path, a.code, a.body, s.code)
			continue
		}
		if s.code < 300 && a.body != s.want || s.code >= 300 && !strings.Contains(a.body, s.want) {
			t.Errorf("%s %s body = %q, want %q", s.method, s.path, a.body, s.want)
		}
	}
	if got := do(t, "GET", srv.URL+"/objects/c", "").header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("Content-Type of an object stored without one = %q", got)
	}
	do(t, "PUT", srv.URL+"/objects/b", "{}", "Content-Type", "application/json")
	if got := do(t, "GET", srv.URL+"/objects/b", "").header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want the one it was stored with", got)
	}
	// Objects are local: nothing reached the downstream.
	if a := get(t, leaf.URL+"/objects"); a.body != "" {
		t.Errorf("the downstream holds objects %q", a.body)
	}
	if got := metricCount(t, root.Registry(), "latlab_client_request_duration_seconds", nil); got != 0 {
		t.Errorf("root made %v downstream calls for objects, want 0", got)
	}
	if got := metricCount(t, root.Registry(), "latlab_server_request_duration_seconds", map[string]string{"route": "/objects/{name}"}); got < 10 {
		t.Errorf("object requests counted %v times under /objects/{name}", got)
	}
}
