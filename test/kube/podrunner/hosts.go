package main

import (
	"fmt"
	"strings"
)

// clusterDomain is the cluster's DNS domain, which the hosts files spell
// out since no DNS server expands names.
const clusterDomain = "cluster.local"

// serviceHost is a Service as the hosts files name it: its ClusterIP, or
// for a headless Service its ready endpoints, each with its hostname when
// it has one (a StatefulSet's pods do).
type serviceHost struct {
	namespace, name string
	ips             []string // the ClusterIP, or the endpoints' addresses
	hostnames       []string // beside ips, for headless Services; "" for none
}

// hostsFile returns the hosts file of the pod in sb given the cluster's
// Services, sorted by namespace and name. A Go or glibc resolver looks a
// name up in it as written, without trying the search domains, so every
// form a pod may use is there: NAME for Services of the pod's own
// namespace, NAME.NS, NAME.NS.svc and NAME.NS.svc.cluster.local for all.
func hostsFile(sb *sandbox, services []serviceHost) string {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file, written by latlab's pod runner: every\n")
	b.WriteString("# Service is listed since the test cluster has no DNS server.\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	if sb.fqdn != "" {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", sb.ip, sb.fqdn, sb.hostname)
	} else {
		fmt.Fprintf(&b, "%s\t%s\n", sb.ip, sb.hostname)
	}
	if len(sb.aliases) > 0 {
		b.WriteString("\n# Entries added by HostAliases.\n")
		for _, a := range sb.aliases {
			fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
		}
	}
	if len(services) > 0 {
		b.WriteString("\n# Services.\n")
	}
	for _, s := range services {
		names := serviceNames(s.name, s.namespace, sb.namespace)
		for i, addr := range s.ips {
			line := names
			if i < len(s.hostnames) && s.hostnames[i] != "" {
				line = append(serviceNames(s.hostnames[i]+"."+s.name, s.namespace, sb.namespace), names...)
			}
			fmt.Fprintf(&b, "%s\t%s\n", addr, strings.Join(line, " "))
		}
	}
	return b.String()
}

// serviceNames returns the names by which a pod of namespace from reaches
// name in namespace ns.
func serviceNames(name, ns, from string) []string {
	var names []string
	if ns == from {
		names = append(names, name)
	}
	return append(names, name+"."+ns, name+"."+ns+".svc", name+"."+ns+".svc."+clusterDomain)
}
