package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// setupSlotRouting adds the rule that makes what comes from the slot's
// pods use the slot's table, and the table's unreachable default: pods
// reach each other, the host and the ClusterIPs (local addresses, found
// before the rule), and nothing else.
func setupSlotRouting(ctx context.Context, s slot) error {
	t := strconv.Itoa(s.table())
	return ipBatch(ctx, "", []string{
		"route replace unreachable default table " + t,
		"rule add from " + s.podNet().String() + " lookup " + t + " pref " + t,
	})
}

// cleanSlot removes everything a runner of slot s may have left: the
// processes in its network namespaces, the namespaces, their veths and
// files in /etc/netns, the ClusterIPs on lo, the routing rule and table,
// and the mount points it made that nothing uses. The caller holds s.
func cleanSlot(s slot, mounts *mountPoints) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var errs []error
	namespaces, _ := os.ReadDir("/run/netns")
	for _, e := range namespaces {
		if rest, ok := strings.CutPrefix(e.Name(), s.netnsPrefix()); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				errs = append(errs, removeNetwork(ctx, e.Name(), s.veth(n)))
			}
		}
	}
	links, _ := os.ReadDir("/sys/class/net")
	for _, e := range links {
		if strings.HasPrefix(e.Name(), s.vethPrefix()) {
			if _, err := ipCmd(ctx, "link", "del", e.Name()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	etc, _ := os.ReadDir("/etc/netns")
	for _, e := range etc {
		if strings.HasPrefix(e.Name(), s.netnsPrefix()) {
			errs = append(errs, os.RemoveAll(filepath.Join("/etc/netns", e.Name())))
		}
	}
	// /etc/netns goes too once empty; ip made it for no one else.
	_ = os.Remove("/etc/netns")
	out, err := ipCmd(ctx, "-o", "-4", "addr", "show", "dev", "lo")
	if err != nil {
		errs = append(errs, err)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] != "inet" {
				continue
			}
			if p, err := netip.ParsePrefix(f[i+1]); err == nil && s.serviceNet().Contains(p.Addr()) {
				if _, err := ipCmd(ctx, "addr", "del", f[i+1], "dev", "lo"); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	t := strconv.Itoa(s.table())
	for range 100 {
		if _, err := ipCmd(ctx, "rule", "del", "pref", t); err != nil {
			break // no rule left
		}
	}
	if _, err := ipCmd(ctx, "route", "flush", "table", t); err != nil && !strings.Contains(err.Error(), "table") {
		errs = append(errs, err)
	}
	errs = append(errs, mounts.prune())
	return errors.Join(errs...)
}

// cleanupDir removes what the runner of the cluster in dir left, holding
// its slot meanwhile; when another runner holds that slot now, it is that
// runner's to clean and nothing is done.
func cleanupDir(dir string, log *slog.Logger) error {
	s, err := readSlot(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil // no runner ever started there
	}
	if err != nil {
		return err
	}
	lock, err := holdSlot(s)
	if err != nil {
		log.Info("not cleaning", "dir", dir, "why", err)
		return nil
	}
	defer lock.Close()
	if err := cleanSlot(s, loadMountPoints(filepath.Join(dir, "mountpoints"))); err != nil {
		return fmt.Errorf("cleaning slot %d: %w", s, err)
	}
	return nil
}
