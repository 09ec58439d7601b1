package main

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// serviceProxy is the runner's kube-proxy: each Service's ClusterIP on
// the host's lo, a TCP proxy per ClusterIP:port, and the Services' names
// in every pod's hosts file. Its state changes only in its run
// goroutine; hosts is safe for concurrent use.
type serviceProxy struct {
	r    *runner
	wake chan struct{}

	listeners map[string]*proxyListener // by ClusterIP:port
	addrs     map[netip.Addr]bool       // the ClusterIPs on lo

	mu    sync.Mutex
	names []serviceHost // for the hosts files
}

func newServiceProxy(r *runner) *serviceProxy {
	return &serviceProxy{r: r, wake: make(chan struct{}, 1), listeners: map[string]*proxyListener{}, addrs: map[netip.Addr]bool{}}
}

// changed makes the proxy sync again.
func (p *serviceProxy) changed() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// hosts returns the Services as the hosts files name them.
func (p *serviceProxy) hosts() []serviceHost {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.names
}

// run syncs at every change of a Service or an EndpointSlice until ctx
// ends, then closes every proxy and removes every ClusterIP from lo.
func (p *serviceProxy) run(ctx context.Context) {
	defer p.stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		p.sync(ctx)
	}
}

// sync makes the proxies, the addresses on lo and the hosts files match
// the Services and their ready endpoints.
func (p *serviceProxy) sync(ctx context.Context) {
	svcs, err := p.r.services.List(labels.Everything())
	if err != nil {
		return
	}
	slices.SortFunc(svcs, func(a, b *corev1.Service) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	want, wantAddrs, names := p.desired(svcs)
	errs := p.apply(ctx, want, wantAddrs)
	p.mu.Lock()
	p.names = names
	p.mu.Unlock()
	for _, sb := range p.r.liveSandboxes() {
		if err := sb.writeHosts(hostsFile(sb, names)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil && ctx.Err() == nil {
		p.r.log.Warn("syncing Services", "err", err)
	}
}

// desired returns what svcs ask of the proxy: the backends of each
// ClusterIP and port (TCP only), the ClusterIPs to hold, and the names
// sandboxes resolve, headless Services' among them.
func (p *serviceProxy) desired(svcs []*corev1.Service) (want map[string][]string, wantAddrs map[netip.Addr]bool, names []serviceHost) {
	want, wantAddrs = map[string][]string{}, map[netip.Addr]bool{}
	for _, s := range svcs {
		switch ip := s.Spec.ClusterIP; {
		case s.Spec.Type == corev1.ServiceTypeExternalName || ip == "":
		case ip == corev1.ClusterIPNone:
			if h := p.headless(s); len(h.ips) > 0 {
				names = append(names, h)
			}
		default:
			addr, err := netip.ParseAddr(ip)
			if err != nil || !p.r.slot.serviceNet().Contains(addr) {
				continue
			}
			names = append(names, serviceHost{namespace: s.Namespace, name: s.Name, ips: []string{ip}})
			for _, port := range s.Spec.Ports {
				if port.Protocol != "" && port.Protocol != corev1.ProtocolTCP {
					continue // only TCP is proxied
				}
				want[net.JoinHostPort(ip, strconv.Itoa(int(port.Port)))] = p.backends(s, port)
				wantAddrs[addr] = true
			}
		}
	}
	return want, wantAddrs, names
}

// apply makes the ClusterIPs on lo and the proxies' listeners those of
// want and wantAddrs, and returns what failed.
func (p *serviceProxy) apply(ctx context.Context, want map[string][]string, wantAddrs map[netip.Addr]bool) []error {
	var errs []error
	for a := range wantAddrs {
		if !p.addrs[a] {
			if _, err := ipCmd(ctx, "addr", "replace", a.String()+"/32", "dev", "lo"); err != nil {
				errs = append(errs, err)
				continue
			}
			p.addrs[a] = true
		}
	}
	for key, backends := range want {
		if l := p.listeners[key]; l != nil {
			l.setBackends(backends)
			continue
		}
		l, err := listenProxy(key, backends)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.listeners[key] = l
	}
	for key, l := range p.listeners {
		if _, ok := want[key]; !ok {
			l.close()
			delete(p.listeners, key)
		}
	}
	for a := range p.addrs {
		if !wantAddrs[a] {
			if _, err := ipCmd(ctx, "addr", "del", a.String()+"/32", "dev", "lo"); err != nil {
				errs = append(errs, err)
			}
			delete(p.addrs, a)
		}
	}
	return errs
}

// stop closes every proxy and removes every ClusterIP from lo.
func (p *serviceProxy) stop() {
	for key, l := range p.listeners {
		l.close()
		delete(p.listeners, key)
	}
	ctx := context.Background()
	for a := range p.addrs {
		_, _ = ipCmd(ctx, "addr", "del", a.String()+"/32", "dev", "lo")
		delete(p.addrs, a)
	}
}

// endpoints calls f with each ready endpoint of Service s and its slice.
func (p *serviceProxy) endpoints(s *corev1.Service, f func(*discoveryv1.EndpointSlice, discoveryv1.Endpoint)) {
	sel := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: s.Name})
	eps, err := p.r.slices.EndpointSlices(s.Namespace).List(sel)
	if err != nil {
		return
	}
	for _, es := range eps {
		if es.AddressType != discoveryv1.AddressTypeIPv4 {
			continue
		}
		for _, ep := range es.Endpoints {
			if len(ep.Addresses) == 0 || (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) {
				continue
			}
			f(es, ep)
		}
	}
}

// backends returns the ready endpoints of port of Service s as
// address:port, sorted. The kubernetes Service's is the API server's
// address itself: its endpoint is the host's advertised address, where
// an API server on 127.0.0.1 does not listen; so is the metrics API's,
// the runner's own metrics server.
func (p *serviceProxy) backends(s *corev1.Service, port corev1.ServicePort) []string {
	if s.Namespace == "default" && s.Name == "kubernetes" {
		return []string{p.r.apiHost}
	}
	if s.Namespace == metricsNamespace && s.Name == metricsService {
		return []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(p.r.metricsPort))}
	}
	var out []string
	p.endpoints(s, func(es *discoveryv1.EndpointSlice, ep discoveryv1.Endpoint) {
		for _, sp := range es.Ports {
			name := ""
			if sp.Name != nil {
				name = *sp.Name
			}
			if name != port.Name || sp.Port == nil || (sp.Protocol != nil && *sp.Protocol != corev1.ProtocolTCP) {
				continue
			}
			out = append(out, net.JoinHostPort(ep.Addresses[0], strconv.Itoa(int(*sp.Port))))
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// headless returns a headless Service's ready endpoints for the hosts
// files.
func (p *serviceProxy) headless(s *corev1.Service) serviceHost {
	h := serviceHost{namespace: s.Namespace, name: s.Name}
	seen := map[string]bool{}
	p.endpoints(s, func(_ *discoveryv1.EndpointSlice, ep discoveryv1.Endpoint) {
		a := ep.Addresses[0]
		if seen[a] || strings.Contains(a, ":") {
			return
		}
		seen[a] = true
		host := ""
		if ep.Hostname != nil {
			host = *ep.Hostname
		}
		h.ips = append(h.ips, a)
		h.hostnames = append(h.hostnames, host)
	})
	return h
}
