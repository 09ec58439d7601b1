package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// ServerVersion returns the API server's version; a first call that says
// whether it answers.
func (c *Cluster) ServerVersion(ctx context.Context) (*version.Info, error) {
	var v version.Info
	if err := c.getJSON(ctx, "/version", &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// getJSON reads the JSON document at path of the API server into v.
func (c *Cluster) getJSON(ctx context.Context, path string, v any) error {
	body, err := c.coreV1.rest.Get().AbsPath(path).Do(ctx).Raw()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

// groupVersionPath is where the server says what it serves of gv.
func groupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// served returns the resources, subresources included, the server serves
// in gv: none when it does not serve gv.
func (c *Cluster) served(ctx context.Context, gv schema.GroupVersion) ([]metav1.APIResource, error) {
	var l metav1.APIResourceList
	err := c.getJSON(ctx, groupVersionPath(gv), &l)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("asking the API server what it serves in %s: %w", gv, err)
	}
	return l.APIResources, nil
}

// kindCache is what the server serves, by group version, as far as Apply
// has asked.
type kindCache struct {
	mu   sync.Mutex
	byGV map[schema.GroupVersion][]metav1.APIResource
}

// mapping returns the resource of gvk and whether it is namespaced,
// asking the server again if it is not known, since an object applied
// before may have defined it.
func (c *Cluster) mapping(ctx context.Context, gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, error) {
	gv := gvk.GroupVersion()
	c.kinds.mu.Lock()
	defer c.kinds.mu.Unlock()
	if r, ok := kindIn(c.kinds.byGV[gv], gvk.Kind); ok {
		return gv.WithResource(r.Name), r.Namespaced, nil
	}
	rs, err := c.served(ctx, gv)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	if c.kinds.byGV == nil {
		c.kinds.byGV = map[schema.GroupVersion][]metav1.APIResource{}
	}
	c.kinds.byGV[gv] = rs
	if r, ok := kindIn(rs, gvk.Kind); ok {
		return gv.WithResource(r.Name), r.Namespaced, nil
	}
	return schema.GroupVersionResource{}, false, fmt.Errorf("the server has no kind %s in %s", gvk.Kind, gv)
}

// kindIn returns the resource of kind in rs, not a subresource.
func kindIn(rs []metav1.APIResource, kind string) (metav1.APIResource, bool) {
	for _, r := range rs {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return r, true
		}
	}
	return metav1.APIResource{}, false
}

// A servedResource is a resource of a group version.
type servedResource struct {
	gv schema.GroupVersion
	metav1.APIResource
}

// preferredResources returns every resource the server serves, not
// subresources, each in the preferred version of its group if served
// there, else in the first version of the group that serves it, as
// client-go's discovery ServerPreferredResources chooses. Group versions
// the server could not describe, such as an aggregated API whose server
// is down, are left out and their errors returned with the rest.
func (c *Cluster) preferredResources(ctx context.Context) ([]servedResource, error) {
	var core metav1.APIVersions
	if err := c.getJSON(ctx, "/api", &core); err != nil {
		return nil, err
	}
	var groups metav1.APIGroupList
	if err := c.getJSON(ctx, "/apis", &groups); err != nil {
		return nil, err
	}
	if len(core.Versions) > 0 {
		g := metav1.APIGroup{PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: core.Versions[0], Version: core.Versions[0]}}
		for _, v := range core.Versions {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
		}
		groups.Groups = append([]metav1.APIGroup{g}, groups.Groups...)
	}

	type answer struct {
		rs  []metav1.APIResource
		err error
	}
	answers := map[schema.GroupVersion]*answer{}
	var wg sync.WaitGroup
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			a := &answer{}
			answers[gv] = a
			wg.Go(func() { a.rs, a.err = c.served(ctx, gv) })
		}
	}
	wg.Wait()

	var out []servedResource
	var errs []error
	for _, g := range groups.Groups {
		at := map[string]int{} // resource name → its index in out
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			a := answers[gv]
			if a.err != nil {
				errs = append(errs, a.err)
				continue
			}
			for _, r := range a.rs {
				if strings.Contains(r.Name, "/") {
					continue
				}
				i, seen := at[r.Name]
				switch {
				case !seen:
					at[r.Name] = len(out)
					out = append(out, servedResource{gv, r})
				case v.Version == g.PreferredVersion.Version:
					out[i] = servedResource{gv, r}
				}
			}
		}
	}
	return out, errors.Join(errs...)
}
