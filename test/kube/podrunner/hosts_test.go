package main

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestHostsFile(t *testing.T) {
	sb := &sandbox{
		ip: netip.MustParseAddr("198.18.3.7"), namespace: "demo", hostname: "web-1",
		aliases: []corev1.HostAlias{{IP: "198.18.3.9", Hostnames: []string{"alias-a", "alias-b"}}},
	}
	services := []serviceHost{
		{namespace: "default", name: "kubernetes", ips: []string{"198.19.3.1"}},
		{namespace: "demo", name: "web", ips: []string{"198.19.3.20"}},
		{namespace: "demo", name: "db", ips: []string{"198.18.3.11", "198.18.3.12"}, hostnames: []string{"db-0", ""}},
	}
	want := `# Kubernetes-managed hosts file, written by latlab's pod runner: every
# Service is listed since the test cluster has no DNS server.
127.0.0.1	localhost
::1	localhost ip6-localhost ip6-loopback
198.18.3.7	web-1

# Entries added by HostAliases.
198.18.3.9	alias-a	alias-b

# Services.
198.19.3.1	kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local
198.19.3.20	web web.demo web.demo.svc web.demo.svc.cluster.local
198.18.3.11	db-0.db db-0.db.demo db-0.db.demo.svc db-0.db.demo.svc.cluster.local db db.demo db.demo.svc db.demo.svc.cluster.local
198.18.3.12	db db.demo db.demo.svc db.demo.svc.cluster.local
`
	if diff := cmp.Diff(want, hostsFile(sb, services)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
