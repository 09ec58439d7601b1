package cluster

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// serveDiscovery gives api the discovery documents of a server of the
// core group, apps/v1 and a group example.com whose preferred v1 lacks a
// resource its v1beta1 has.
func serveDiscovery(api *fakeAPI) {
	rw := []string{"create", "delete", "get", "list"}
	api.set("/version", version.Info{Major: "1", Minor: "34", GitVersion: "v1.34.2"})
	api.set("/api", metav1.APIVersions{Versions: []string{"v1"}})
	api.set("/apis", metav1.APIGroupList{Groups: []metav1.APIGroup{
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}},
		{Name: "example.com", Versions: []metav1.GroupVersionForDiscovery{
			{GroupVersion: "example.com/v1beta1", Version: "v1beta1"}, {GroupVersion: "example.com/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v1", Version: "v1"}},
		{Name: "metrics.k8s.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "metrics.k8s.io/v1beta1", Version: "v1beta1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "metrics.k8s.io/v1beta1", Version: "v1beta1"}},
	}})
	api.set("/api/v1", metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: rw},
		{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: []string{"get"}},
		{Name: "namespaces", Kind: "Namespace", Verbs: rw},
		{Name: "events", Kind: "Event", Namespaced: true, Verbs: rw},
		{Name: "endpoints", Kind: "Endpoints", Namespaced: true, Verbs: rw},
		{Name: "bindings", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}},
	}})
	api.set("/apis/apps/v1", metav1.APIResourceList{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: rw},
		{Name: "deployments/scale", Kind: "Scale", Namespaced: true, Verbs: []string{"get"}},
	}})
	api.set("/apis/example.com/v1", metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
		{Name: "widgets", Kind: "Widget", Verbs: rw},
	}})
	api.set("/apis/example.com/v1beta1", metav1.APIResourceList{GroupVersion: "example.com/v1beta1", APIResources: []metav1.APIResource{
		{Name: "widgets", Kind: "Widget", Verbs: rw},
		{Name: "gadgets", Kind: "Gadget", Namespaced: true, Verbs: rw},
	}})
	// metrics.k8s.io is registered, but its server is down: 404 here.
}

// TestListable holds what Leftovers lists: every resource that can be
// listed and deleted, in its group's preferred version where served,
// without events, v1 Endpoints and subresources, and despite a group
// that cannot be described.
func TestListable(t *testing.T) {
	api, c := newFakeAPI(t)
	serveDiscovery(api)
	ctx := context.Background()
	if v, err := c.ServerVersion(ctx); err != nil || v.GitVersion != "v1.34.2" {
		t.Errorf("ServerVersion = %+v, %v; want v1.34.2", v, err)
	}
	rs, err := c.listable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.kind+" "+r.gvr.String())
	}
	want := []string{
		"Pod /v1, Resource=pods",
		"Namespace /v1, Resource=namespaces",
		"Widget example.com/v1, Resource=widgets",
		"Gadget example.com/v1beta1, Resource=gadgets",
		"Deployment apps/v1, Resource=deployments",
	}
	// The order is the server's, groups and all; Leftovers sorts.
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listable (-want +got):\n%s", diff)
	}
}

// TestMapping holds how Apply finds the resource of a kind: from its group
// version's discovery document, read once, and read again for a kind not
// in it, which an object applied before may have defined.
func TestMapping(t *testing.T) {
	api, c := newFakeAPI(t)
	serveDiscovery(api)
	ctx := context.Background()
	for _, tc := range []struct {
		gvk        schema.GroupVersionKind
		want       string
		namespaced bool
		err        string
	}{
		{gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, want: "apps/v1, Resource=deployments", namespaced: true},
		{gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, want: "apps/v1, Resource=deployments", namespaced: true},
		{gvk: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, want: "/v1, Resource=namespaces"},
		{gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}, err: "the server has no kind Gadget in example.com/v1"},
		{gvk: schema.GroupVersionKind{Group: "nowhere.io", Version: "v1", Kind: "Thing"}, err: "the server has no kind Thing in nowhere.io/v1"},
	} {
		gvr, namespaced, err := c.mapping(ctx, tc.gvk)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("mapping(%v) = %v, %v; want error %q", tc.gvk, gvr, err, tc.err)
			}
			continue
		}
		if err != nil || gvr.String() != tc.want || namespaced != tc.namespaced {
			t.Errorf("mapping(%v) = %v, %v, %v; want %s, %v", tc.gvk, gvr, namespaced, err, tc.want, tc.namespaced)
		}
	}
	// Defined since: a kind not known is looked up again.
	api.set("/apis/example.com/v1", metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
		{Name: "widgets", Kind: "Widget", Verbs: []string{"list"}},
		{Name: "gadgets", Kind: "Gadget", Namespaced: true, Verbs: []string{"list"}},
	}})
	if gvr, _, err := c.mapping(ctx, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}); err != nil || gvr.Resource != "gadgets" {
		t.Errorf("mapping Gadget once defined = %v, %v; want gadgets", gvr, err)
	}
	n := map[string]int{}
	for _, r := range api.requests() {
		n[r]++
	}
	want := map[string]int{"GET /apis/apps/v1": 1, "GET /api/v1": 1, "GET /apis/example.com/v1": 2, "GET /apis/nowhere.io/v1": 1}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
