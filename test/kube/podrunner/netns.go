package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

	mu    sync.Mutex // guards hosts and the file
	hosts string     // the hosts file as last written

	removed bool // by its pod's worker, which alone reads this
}

// etcDir holds the files "ip netns exec NAME" mounts over /etc.
func (sb *sandbox) etcDir() string { return filepath.Join("/etc/netns", sb.name) }

// setupNetwork makes sb's namespace and veth pair: the pod has its
// address on eth0, a route to the gateway on the link and a default route
// through it; the host has the gateway's address on its end, a /32 route
// to the pod in the main table and in the slot's table, and forwards what
// comes in from the pod (the slot's rule keeps that inside the cluster).
func setupNetwork(ctx context.Context, s slot, sb *sandbox) error {
	gw, pod := s.gateway().String(), sb.ip.String()
	table := strconv.Itoa(s.table())
	host := []string{
		"netns add " + sb.name,
		"link add " + sb.veth + " type veth peer name eth0 netns " + sb.name,
		"link set dev " + sb.veth + " addrgenmode none",
		"addr add " + gw + "/32 dev " + sb.veth,
		"link set dev " + sb.veth + " up",
		"route add " + pod + "/32 dev " + sb.veth + " src " + gw,
		"route add " + pod + "/32 dev " + sb.veth + " table " + table,
	}
	if err := ipBatch(ctx, "", host); err != nil {
		return fmt.Errorf("making the pod's network: %w", err)
	}
	inside := []string{
		"link set dev eth0 addrgenmode none",
		"link set dev lo up",
		"addr add " + pod + "/32 dev eth0",
		"link set dev eth0 up",
		"route add " + gw + "/32 dev eth0 scope link",
		"route add default via " + gw + " dev eth0",
	}
	if err := ipBatch(ctx, sb.name, inside); err != nil {
		return fmt.Errorf("making the pod's network: %w", err)
	}
	if err := sysctl("net/ipv4/conf/"+sb.veth+"/forwarding", "1"); err != nil {
		return fmt.Errorf("making the pod's network: %w", err)
	}
	return nil
}

// removeNetwork kills whatever still runs in network namespace name and
// removes it, its veth and its files in /etc/netns. What is already gone
// is no error.
func removeNetwork(ctx context.Context, name, veth string) error {
	var errs []error
	if err := killNetns(ctx, name); err != nil {
		errs = append(errs, err)
	}
	if _, err := os.Stat("/sys/class/net/" + veth); err == nil {
		if _, err := ipCmd(ctx, "link", "del", veth); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := os.Stat("/run/netns/" + name); err == nil {
		if _, err := ipCmd(ctx, "netns", "del", name); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(filepath.Join("/etc/netns", name)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// killNetns SIGKILLs every process in network namespace name and waits,
// a few seconds at most, until none is left.
func killNetns(ctx context.Context, name string) error {
	if _, err := os.Stat("/run/netns/" + name); err != nil {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := ipCmd(ctx, "netns", "pids", name)
		if err != nil {
			return err
		}
		pids := strings.Fields(out)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %s in %s outlive SIGKILL", strings.Join(pids, " "), name)
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
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
	if content == sb.hosts {
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
