package cluster

import (
	"testing"

	"k8s.io/client-go/rest"
)

func TestServiceProxyURL(t *testing.T) {
	c := &Cluster{Config: &rest.Config{Host: "https://198.18.0.1:6443"}}
	for _, tc := range []struct{ target, want string }{
		{"http://web:8080/", "https://198.18.0.1:6443/api/v1/namespaces/bench/services/web:8080/proxy/"},
		{"http://web.other.svc/a/b?x=1", "https://198.18.0.1:6443/api/v1/namespaces/other/services/web:80/proxy/a/b?x=1"},
		{"https://web.other.svc.cluster.local", "https://198.18.0.1:6443/api/v1/namespaces/other/services/https:web:443/proxy"},
		{"http://web.other:9090/debug/pprof", "https://198.18.0.1:6443/api/v1/namespaces/other/services/web:9090/proxy/debug/pprof"},
	} {
		u, err := c.ServiceProxyURL(tc.target, "bench")
		if err != nil || u.String() != tc.want {
			t.Errorf("ServiceProxyURL(%q) = %v, %v; want %s", tc.target, u, err, tc.want)
		}
	}
	for _, bad := range []string{"http://198.18.0.9:8080/", "http://a.b.c.d/", "ftp://web/", "http://Web_1/", "://"} {
		if u, err := c.ServiceProxyURL(bad, "bench"); err == nil {
			t.Errorf("ServiceProxyURL(%q) = %v; want an error", bad, u)
		}
	}
}
