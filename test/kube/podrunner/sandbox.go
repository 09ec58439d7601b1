package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// sandbox is a pod's network: a namespace with the pod's address on
// eth0, the host end of its veth pair, and the files "ip netns exec"
// mounts over /etc/hosts and /etc/resolv.conf.
type sandbox struct {
	n    int    // the last byte of ip
	name string // the network namespace
	veth string // its host end
	ip   netip.Addr

	// What the hosts file says besides the Services.
	namespace, hostname, fqdn string
	aliases                   []corev1.HostAlias

	mu     sync.Mutex // guards hosts, closed and the file
	hosts  string     // the hosts file as last written
	closed bool       // its files are gone, or going

	removed bool // by its pod's worker, which alone reads this
}

// etcDir holds the files "ip netns exec NAME" mounts over /etc.
func (sb *sandbox) etcDir() string { return filepath.Join("/etc/netns", sb.name) }

// newSandbox makes a network for pod and writes its /etc files.
func (r *runner) newSandbox(ctx context.Context, pod *corev1.Pod, hostname, fqdn string) (*sandbox, error) {
	n, err := r.ips.take()
	if err != nil {
		return nil, err
	}
	sb := &sandbox{
		n: n, name: r.slot.netns(n), veth: r.slot.veth(n), ip: r.slot.podIP(n),
		namespace: pod.Namespace, hostname: hostname, fqdn: fqdn, aliases: pod.Spec.HostAliases,
	}
	// Leftovers of a sandbox of this number would be a stale pod's.
	rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = removeNetwork(rctx, sb.name, sb.veth)
	err = setupNetwork(ctx, r.slot, sb)
	if err == nil {
		err = sb.writeEtc(hostsFile(sb, r.proxy.hosts()))
	}
	if err != nil {
		_ = removeNetwork(rctx, sb.name, sb.veth)
		r.ips.give(n)
		return nil, err
	}
	r.mu.Lock()
	r.sandboxes[sb] = true
	r.mu.Unlock()
	return sb, nil
}

// removeSandbox removes sb's network and files and frees its address.
func (r *runner) removeSandbox(sb *sandbox) {
	r.mu.Lock()
	delete(r.sandboxes, sb)
	r.mu.Unlock()
	// The Service proxy may be writing its hosts file still.
	sb.mu.Lock()
	sb.closed = true
	sb.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := removeNetwork(ctx, sb.name, sb.veth); err != nil {
		r.log.Warn("removing a pod's network", "netns", sb.name, "err", err)
	}
	r.ips.give(sb.n)
}

// liveSandboxes returns the sandboxes that exist now.
func (r *runner) liveSandboxes() []*sandbox {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*sandbox
	for sb := range r.sandboxes {
		out = append(out, sb)
	}
	return out
}

// writeEtc writes the pod's resolv.conf, and its hosts file with hosts.
// There is no DNS server: resolv.conf names 127.0.0.1, the pod's own
// loopback, so a name the hosts file lacks fails at once instead of
// waiting for a server that is not there.
func (sb *sandbox) writeEtc(hosts string) error {
	if err := os.MkdirAll(sb.etcDir(), 0o755); err != nil {
		return err
	}
	resolv := fmt.Sprintf("search %s.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5 attempts:1 timeout:1\n", sb.namespace)
	if err := os.WriteFile(filepath.Join(sb.etcDir(), "resolv.conf"), []byte(resolv), 0o644); err != nil {
		return err
	}
	return sb.writeHosts(hosts)
}

// writeHosts rewrites the pod's hosts file when content differs from what
// it holds. It writes in place: the running pod sees the file through a
// bind mount of its inode, which a rename would leave behind.
func (sb *sandbox) writeHosts(content string) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if content == sb.hosts || sb.closed {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(sb.etcDir(), "hosts"), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	// Writing before truncating leaves a reader at worst a stale tail,
	// never an empty file.
	_, err = f.WriteAt([]byte(content), 0)
	if err == nil {
		err = f.Truncate(int64(len(content)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		sb.hosts = content
	}
	return err
}
