package cluster

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
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
	return c.proxyURL(namespace, "pods", name)
}

// proxyURL returns the URL of the API server's proxy of resource
// ("pods" or "services") NAME in namespace, NAME being [scheme:]name:port.
func (c *Cluster) proxyURL(namespace, resource, name string) (*url.URL, error) {
	u, err := url.Parse(c.Config.Host)
	if err != nil {
		return nil, fmt.Errorf("API server URL %q: %w", c.Config.Host, err)
	}
	if u.Scheme == "" { // a host:port without a scheme, as client-go allows
		if u, err = url.Parse("https://" + c.Config.Host); err != nil {
			return nil, fmt.Errorf("API server URL %q: %w", c.Config.Host, err)
		}
	}
	return u.JoinPath("api", "v1", "namespaces", namespace, resource, name, "proxy"), nil
}

// ServiceProxyURL returns, for target, a URL as a pod in the cluster
// reaches a Service (see ParseServiceURL; the namespace defaults to
// namespace), the same URL through the API server's service proxy, which
// sends it to one of the Service's ready pods; requests go with
// HTTPClient. Whoever makes them needs RBAC's get on services/proxy.
func (c *Cluster) ServiceProxyURL(target, namespace string) (*url.URL, error) {
	t, name, ns, err := ParseServiceURL(target)
	if err != nil {
		return nil, err
	}
	ref := name + ":" + t.Port()
	if t.Scheme == "https" {
		ref = "https:" + ref
	}
	u, err := c.proxyURL(cmp.Or(ns, namespace), "services", ref)
	if err != nil {
		return nil, err
	}
	u = u.JoinPath(t.Path)
	if strings.HasSuffix(t.Path, "/") && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery = t.RawQuery
	return u, nil
}

// ParseServiceURL reads target as a URL by which a pod reaches a
// Service: http or https://NAME[.NAMESPACE[.svc[.cluster.local]]][:PORT]/PATH.
// It returns the URL with its port made explicit (80 or 443 by default),
// the Service's name and its namespace, "" when the host does not say.
func ParseServiceURL(target string) (u *url.URL, name, namespace string, err error) {
	u, err = url.Parse(target)
	if err != nil {
		return nil, "", "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", "", fmt.Errorf("%s: not an http or https URL", target)
	}
	host := strings.TrimSuffix(strings.TrimSuffix(u.Hostname(), "."), ".cluster.local")
	name, namespace, _ = strings.Cut(strings.TrimSuffix(host, ".svc"), ".")
	if len(validation.IsDNS1035Label(name)) > 0 || strings.Contains(namespace, ".") || net.ParseIP(u.Hostname()) != nil {
		return nil, "", "", fmt.Errorf("%s: its host is not a Service as pods name it (NAME, NAME.NAMESPACE or NAME.NAMESPACE.svc)", target)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	return u, name, namespace, nil
}

// HTTPClient returns the HTTP client of the API server, with its
// credentials, for the URLs PodURL and ServiceProxyURL return. It has no
// timeout of its own: its requests end with their context.
func (c *Cluster) HTTPClient() *http.Client { return c.http }
