package graph

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

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
// A body over MaxBody is 413 (at once when its Content-Length says so); an
// object beyond MaxObjects or bytes beyond MaxStored are 507, before the
// body is read; an upload that found none of MaxUploads free within
// MaxUploadWait is 503 with Retry-After. Each names its cap. A query is
// 400, any other method 405.
func (n *Node) objectRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /objects", n.listObjects)
	mux.HandleFunc("GET /objects/{name}", n.getObject)
	mux.HandleFunc("POST /objects/{name}", func(w http.ResponseWriter, r *http.Request) { n.storeObject(w, r, false) })
	mux.HandleFunc("PUT /objects/{name}", func(w http.ResponseWriter, r *http.Request) { n.storeObject(w, r, true) })
	mux.HandleFunc("DELETE /objects/{name}", n.deleteObject)
}

func (n *Node) listObjects(w http.ResponseWriter, r *http.Request) {
	if _, err := parseQuery("/objects", r.URL.RawQuery); err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	var b strings.Builder
	for _, k := range n.objects.names() {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, b.String())
}

// objectName returns the name of the object a request is about, which
// takes no query.
func objectName(r *http.Request) (string, error) {
	if _, err := parseQuery(r.URL.Path, r.URL.RawQuery); err != nil {
		return "", err
	}
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
	o, ok := n.objects.get(name)
	if !ok {
		writeError(w, n.cfg.Name, statusError(http.StatusNotFound, "object %q not found", name))
		return
	}
	h := w.Header()
	h.Set("Content-Type", o.contentType)
	h.Set("Content-Length", strconv.FormatInt(o.size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	for _, p := range o.data {
		if _, err := w.Write(p); err != nil {
			return
		}
	}
}

// storeObject creates an object, or with replace creates or replaces it.
// Everything that can refuse it before its body is read does so: the name,
// MaxBody against the Content-Length, the name taken or MaxObjects, then
// the reservation against MaxStored and a slot among MaxUploads.
func (n *Node) storeObject(w http.ResponseWriter, r *http.Request, replace bool) {
	code, err := n.receiveObject(w, r, replace)
	if err != nil {
		var re *requestError
		if errors.As(err, &re) && re.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, n.cfg.Name, err)
		return
	}
	w.WriteHeader(code)
}

func (n *Node) receiveObject(w http.ResponseWriter, r *http.Request, replace bool) (int, error) {
	caps := n.cfg.Caps
	name, err := objectName(r)
	if err != nil {
		return 0, err
	}
	size := r.ContentLength // -1 when unknown
	if size > caps.MaxBody {
		return 0, tooLarge(caps.MaxBody)
	}
	s := &n.objects
	if err := s.check(name, replace, caps); err != nil {
		return 0, err
	}
	need := size
	if size < 0 {
		need = caps.MaxBody
	}
	if err := s.reserve(need, caps); err != nil {
		if size < 0 {
			err = statusError(http.StatusInsufficientStorage, "%v; a body of unknown length takes MaxBody (%d): send its Content-Length", err, caps.MaxBody)
		}
		return 0, err
	}
	if !s.acquire(r.Context(), caps.MaxUploadWait) {
		s.release(need)
		if err := r.Context().Err(); err != nil {
			return 0, err
		}
		return 0, statusError(http.StatusServiceUnavailable, "objects: MaxUploads (%d) uploads are being received, none ended within %v",
			caps.MaxUploads, caps.MaxUploadWait)
	}
	data, got, err := readBody(http.MaxBytesReader(w, r.Body, caps.MaxBody), size)
	s.releaseSlot()
	if err != nil {
		s.release(need)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return 0, tooLarge(tooBig.Limit)
		}
		return 0, badRequest("body: %v", err)
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "application/octet-stream"
	}
	return s.store(name, object{data: data, size: got, contentType: ct}, replace, need, caps)
}

// tooLarge is the answer to a body over MaxBody.
func tooLarge(limit int64) error {
	return statusError(http.StatusRequestEntityTooLarge, "body: over MaxBody (%d bytes)", limit)
}

func (n *Node) deleteObject(w http.ResponseWriter, r *http.Request) {
	name, err := objectName(r)
	if err != nil {
		writeError(w, n.cfg.Name, err)
		return
	}
	if !n.objects.delete(name) {
		writeError(w, n.cfg.Name, statusError(http.StatusNotFound, "object %q not found", name))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
