package cluster

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// fakeAPI is an API server in memory, as much of one as the tests need:
// it answers a GET of a path it holds with what it holds there (an object,
// a list or a discovery document, whatever the query), creates what is
// posted to a collection, deletes, and answers 404 otherwise. It records
// every request.
type fakeAPI struct {
	t    *testing.T
	mu   sync.Mutex
	objs map[string]any // by URL path
	reqs []string       // "METHOD path?query"
}

// newFakeAPI starts a fakeAPI and returns it and a Cluster connected to
// it.
func newFakeAPI(t *testing.T) (*fakeAPI, *Cluster) {
	t.Helper()
	api := &fakeAPI{t: t, objs: map[string]any{}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	c, err := connect(&rest.Config{Host: srv.URL}, "fake")
	if err != nil {
		t.Fatal(err)
	}
	return api, c
}

// set puts obj at path.
func (a *fakeAPI) set(path string, obj any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.objs[path] = obj
}

// get returns what is at path, nil if nothing.
func (a *fakeAPI) get(path string) any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.objs[path]
}

// requests returns the requests so far.
func (a *fakeAPI) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.reqs...)
}

func (a *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r.Method+" "+r.URL.RequestURI())
	p := r.URL.Path
	switch r.Method {
	case http.MethodGet:
		if obj, ok := a.objs[p]; ok {
			a.write(w, http.StatusOK, obj)
			return
		}
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			a.t.Error(err)
			return
		}
		cs, err := typedCodecs()
		if err != nil {
			a.t.Error(err)
			return
		}
		obj, _, err := cs.factory.UniversalDeserializer().Decode(body, nil, nil)
		if err != nil {
			a.t.Errorf("POST %s: %v", p, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			a.t.Error(err)
			return
		}
		at := p + "/" + m.GetName()
		if _, ok := a.objs[at]; ok {
			st := apierrors.NewAlreadyExists(schema.GroupResource{Resource: path.Base(p)}, m.GetName()).ErrStatus
			a.write(w, http.StatusConflict, &st)
			return
		}
		m.SetUID(types.UID("uid-" + m.GetName()))
		a.objs[at] = obj
		a.write(w, http.StatusCreated, obj)
		return
	case http.MethodDelete:
		if obj, ok := a.objs[p]; ok {
			delete(a.objs, p)
			a.write(w, http.StatusOK, obj)
			return
		}
	}
	st := apierrors.NewNotFound(schema.GroupResource{Resource: path.Base(path.Dir(p))}, path.Base(p)).ErrStatus
	a.write(w, http.StatusNotFound, &st)
}

// write answers obj as JSON, with its kind when the scheme knows it.
func (a *fakeAPI) write(w http.ResponseWriter, code int, obj any) {
	if o, ok := obj.(runtime.Object); ok {
		cs, err := typedCodecs()
		if err != nil {
			a.t.Error(err)
			return
		}
		if gvks, _, err := cs.scheme.ObjectKinds(o); err == nil {
			o.GetObjectKind().SetGroupVersionKind(gvks[0])
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if err := json.NewEncoder(w).Encode(obj); err != nil {
		a.t.Error(err)
	}
}

// hasRequest says whether a request began with prefix.
func hasRequest(reqs []string, prefix string) bool {
	for _, r := range reqs {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}
