package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
