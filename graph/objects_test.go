package graph

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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
		{"PUT", "/objects/b", "12345678901", 413, "body: over MaxBody (10 bytes)"},
		{"PUT", "/objects/b", "123456", 507, "10 bytes stored and 0 being received, 6 more would be over MaxStored (15)"},
		{"PUT", "/objects/b", "12345", 201, ""},
		// A replacement needs room while the object it replaces is stored.
		{"PUT", "/objects/b", "1", 507, "15 bytes stored and 0 being received, 1 more would be over MaxStored (15)"},
		{"POST", "/objects/c", "", 507, "MaxObjects is 2"},
		{"PUT", "/objects/c", "", 507, "MaxObjects is 2"},
		{"PUT", "/objects/b?v=2", "12345", 400, `query: unknown parameter "v": /objects/b takes none`},
		{"GET", "/objects/b?x", "", 400, `unknown parameter "x"`},
		{"GET", "/objects?a;b", "", 400, `query: "a;b" holds ";"`},
		{"DELETE", "/objects/b?force=1", "", 400, `unknown parameter "force"`},
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
	do(t, "DELETE", srv.URL+"/objects/c", "")
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

// TestObjectUploadCaps holds an upload's caps while other uploads are in
// flight: bytes being received count against MaxStored, a body of unknown
// length reserves MaxBody, an upload that finds no free slot within
// MaxUploadWait is 503 with Retry-After, and every refusal gives back what
// it reserved.
func TestObjectUploadCaps(t *testing.T) {
	const kib = 1 << 10
	n, srv := startNode(t, NodeConfig{Name: "caps", Caps: Caps{
		MaxBody: 1024 * kib, MaxStored: 1536 * kib, MaxUploads: 1, MaxUploadWait: 50 * time.Millisecond,
	}})
	s := &n.objects
	put := func(name string, body io.Reader, size int64) answer {
		t.Helper()
		req, err := http.NewRequest(http.MethodPut, srv.URL+"/objects/"+name, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = size
		if size > 0 {
			// Sent only once the node reads it: a refused body never is.
			req.Header.Set("Expect", "100-continue")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("PUT %s: %v", name, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, string(b), resp.Header}
	}
	state := func() (bytes, reserved int64, uploads int) {
		s.mu.RLock()
		defer s.mu.RUnlock()
		return s.bytes, s.reserved, len(s.uploads)
	}

	// An upload of unknown length holds the one slot and MaxBody.
	pr, pw := io.Pipe()
	first := make(chan answer, 1)
	go func() { first <- put("first", pr, -1) }()
	if _, err := pw.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, reserved, uploads := state(); reserved == 1024*kib && uploads == 1 {
			break
		}
		if time.Now().After(deadline) {
			b, r, u := state()
			t.Fatalf("the first upload is not being read: %d bytes stored, %d reserved, %d uploads", b, r, u)
		}
	}
	steps := []struct {
		name string
		size int64
		code int
		want string
	}{
		{"over", 1024*kib + 1, 413, "body: over MaxBody (1048576 bytes)"},
		{"full", 768 * kib, 507, "0 bytes stored and 1048576 being received, 786432 more would be over MaxStored (1572864)"},
		{"busy", 512 * kib, 503, "MaxUploads (1) uploads are being received, none ended within 50ms"},
	}
	for _, st := range steps {
		a := put(st.name, io.LimitReader(repeatReader{}, st.size), st.size)
		if a.code != st.code || !strings.Contains(a.body, st.want) {
			t.Errorf("PUT %s of %d bytes while another is read = %d %q, want %d %q", st.name, st.size, a.code, a.body, st.code, st.want)
		}
		if got := a.header.Get("Retry-After"); (st.code == 503) != (got != "") {
			t.Errorf("PUT %s: %d with Retry-After %q", st.name, a.code, got)
		}
		if _, reserved, _ := state(); reserved != 1024*kib {
			t.Errorf("after PUT %s, %d bytes reserved, want the first upload's %d alone", st.name, reserved, 1024*kib)
		}
	}

	// The first ends: its reservation becomes what it stored.
	body := make([]byte, 100*kib)
	for i := range body {
		body[i] = byte(i % 251)
	}
	if _, err := pw.Write(body[1:]); err != nil {
		t.Fatal(err)
	}
	body[0] = 'x'
	pw.Close()
	if a := <-first; a.code != http.StatusCreated {
		t.Fatalf("first upload = %d %q, want 201", a.code, a.body)
	}
	if b, r, u := state(); b != 100*kib || r != 0 || u != 0 {
		t.Errorf("after the first upload: %d bytes stored, %d reserved, %d uploads; want %d, 0, 0", b, r, u, 100*kib)
	}
	if a := get(t, srv.URL+"/objects/first"); a.code != 200 || a.body != string(body) {
		t.Errorf("GET first = %d with %d bytes, want the %d bytes uploaded", a.code, len(a.body), len(body))
	}

	if a := put("busy", io.LimitReader(repeatReader{}, 512*kib), 512*kib); a.code != http.StatusCreated {
		t.Errorf("PUT busy once the slot is free = %d %q, want 201", a.code, a.body)
	}
	// 612 KiB stored: a body of unknown length would need MaxBody more.
	if a := put("unknown", strings.NewReader("small"), -1); a.code != 507 || !strings.Contains(a.body, "send its Content-Length") {
		t.Errorf("PUT of unknown length with less than MaxBody free = %d %q, want 507 asking for a Content-Length", a.code, a.body)
	}
	do(t, "DELETE", srv.URL+"/objects/busy", "")
	if a := put("unknown", io.LimitReader(repeatReader{}, 1024*kib+1), -1); a.code != 413 || !strings.Contains(a.body, "over MaxBody") {
		t.Errorf("PUT of unknown length over MaxBody = %d %q, want 413", a.code, a.body)
	}
	if b, r, u := state(); b != 100*kib || r != 0 || u != 0 {
		t.Errorf("at the end: %d bytes stored, %d reserved, %d uploads; want %d, 0, 0", b, r, u, 100*kib)
	}
}
