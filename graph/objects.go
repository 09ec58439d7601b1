package graph

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// objectStore is a node's in-memory key-value store behind /objects: a
// stand-in for the state a real service reads and writes. It is local to
// the node and never forwarded.
type objectStore struct {
	mu    sync.RWMutex
	m     map[string]object
	bytes int64 // of all data together
}

type object struct {
	data        []byte
	contentType string
}

func (s *objectStore) init() { s.m = map[string]object{} }

// maxObjectName bounds the length of an object's name in bytes.
const maxObjectName = 255

// objectRoutes registers the CRUD routes:
//
//	GET    /objects         200, the names stored, sorted, one per line
//	GET    /objects/{name}  200 with the body and Content-Type stored, or 404
//	POST   /objects/{name}  201 created, or 409 when name exists
//	PUT    /objects/{name}  200 replaced, or 201 created (create-or-replace)
//	DELETE /objects/{name}  204, or 404
//
// A body over MaxBody, an object beyond MaxObjects or bytes beyond
// MaxStored are 400 naming the cap; any other method is 405.
func (n *Node) objectRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /objects", n.listObjects)
	mux.HandleFunc("GET /objects/{name}", n.getObject)
	mux.HandleFunc("POST /objects/{name}", func(w http.ResponseWriter, r *http.Request) { n.storeObject(w, r, false) })
	mux.HandleFunc("PUT /objects/{name}", func(w http.ResponseWriter, r *http.Request) { n.storeObject(w, r, true) })
	mux.HandleFunc("DELETE /objects/{name}", n.deleteObject)
}

func (n *Node) listObjects(w http.ResponseWriter, _ *http.Request) {
	s := &n.objects
	s.mu.RLock()
	names := make([]string, 0, len(s.m))
	for k := range s.m {
		names = append(names, k)
	}
	s.mu.RUnlock()
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, b.String())
}

func objectName(r *http.Request) (string, error) {
	name := r.PathValue("name")
	if len(name) > maxObjectName {
		return "", badRequest("name: longer than %d bytes", maxObjectName)
	}
	return name, nil
}

func (n *Node) getObject(w http.ResponseWriter, r *http.Request) {
	name, err := objectName(r)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	n.objects.mu.RLock()
	o, ok := n.objects.m[name]
	n.objects.mu.RUnlock()
	if !ok {
		writeError(w, n.cfg.Name, statusError(http.StatusNotFound, "object %q not found", name))
		return
	}
	h := w.Header()
	h.Set("Content-Type", o.contentType)
	h.Set("Content-Length", strconv.Itoa(len(o.data)))
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(o.data)
}

// storeObject creates an object, or with replace creates or replaces it.
func (n *Node) storeObject(w http.ResponseWriter, r *http.Request, replace bool) {
	name, err := objectName(r)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, n.cfg.Caps.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			err = badRequest("body: over MaxBody (%d bytes)", tooBig.Limit)
		} else {
			err = badRequest("body: %v", err)
		}
		writeError(w, n.cfg.Name, err)
		return
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/octet-stream"
	}
	code, err := n.objects.store(name, object{data: data, contentType: ct}, replace, n.cfg.Caps)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	w.WriteHeader(code)
}

// store saves o under name within caps and returns the status to answer.
func (s *objectStore) store(name string, o object, replace bool, caps Caps) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.m[name]
	if exists && !replace {
		return 0, statusError(http.StatusConflict, "object %q exists", name)
	}
	if !exists && len(s.m) >= caps.MaxObjects {
		return 0, badRequest("objects: %d stored, MaxObjects is %d", len(s.m), caps.MaxObjects)
	}
	bytes := s.bytes - int64(len(old.data)) + int64(len(o.data))
	if bytes > caps.MaxStored {
		return 0, badRequest("objects: %d bytes would be stored, MaxStored is %d", bytes, caps.MaxStored)
	}
	s.m[name] = o
	s.bytes = bytes
	if exists {
		return http.StatusOK, nil
	}
	return http.StatusCreated, nil
}

func (n *Node) deleteObject(w http.ResponseWriter, r *http.Request) {
	name, err := objectName(r)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	s := &n.objects
	s.mu.Lock()
	o, ok := s.m[name]
	if ok {
		delete(s.m, name)
		s.bytes -= int64(len(o.data))
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, n.cfg.Name, statusError(http.StatusNotFound, "object %q not found", name))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
