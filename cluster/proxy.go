package cluster

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// PodURL returns the URL of port on pod through the API server's pod
// proxy (scheme "http" or "https", the pod's), to which a request made
// with HTTPClient goes as if it were made inside the cluster: no
// connection to the pod, nor to latlab, is needed beyond the API server.
// Whoever makes it needs RBAC's get and create on pods/proxy.
func (c *Cluster) PodURL(namespace, pod string, port int, scheme string) (*url.URL, error) {
	name := pod + ":" + strconv.Itoa(port)
	if scheme == "https" {
		name = "https:" + name
	}
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		return nil, fmt.Errorf("API server URL %q: %w", c.Config.Host, err)
	}
	if u.Scheme == "" { // a host:port without a scheme, as client-go allows
		if u, err = url.Parse("https://" + c.Config.Host); err != nil {
			return nil, fmt.Errorf("API server URL %q: %w", c.Config.Host, err)
		}
	}
	return u.JoinPath("api", "v1", "namespaces", namespace, "pods", name, "proxy"), nil
}

// HTTPClient returns the HTTP client of the API server, with its
// credentials, for the URLs PodURL returns. It has no timeout of its own:
// its requests end with their context.
func (c *Cluster) HTTPClient() *http.Client { return c.http }
