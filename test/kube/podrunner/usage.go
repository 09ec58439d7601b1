package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// userHZ is the unit of CPU times in /proc/PID/stat: USER_HZ, 100 on
// every Linux that matters.
const userHZ = 100

// usageBook is the runner's cAdvisor: the running containers of every
// pod, and their CPU and memory sampled from /proc every resolution. It
// is safe for concurrent use.
type usageBook struct {
	resolution time.Duration

	mu   sync.Mutex
	pods map[types.UID]map[string]*containerUsage // by pod, then container
}

// containerUsage is one run of a container and its last two samples.
type containerUsage struct {
	in         *instance
	prev, last usageSample
	samples    int
}

// usageSample is a container's process group at one instant: CPU time
// used by its processes and those they reaped, and resident memory.
type usageSample struct {
	at    time.Time
	ticks uint64
	rss   int64
}

// containerMetrics is a container's usage over its last window.
type containerMetrics struct {
	name   string
	cores  float64 // CPU over the window, in cores
	memory int64   // resident memory at its end, bytes
	at     time.Time
	window time.Duration
}

// started records run in of container name of pod uid, replacing its
// previous run.
func (b *usageBook) started(uid types.UID, name string, in *instance) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pods == nil {
		b.pods = map[types.UID]map[string]*containerUsage{}
	}
	if b.pods[uid] == nil {
		b.pods[uid] = map[string]*containerUsage{}
	}
	b.pods[uid][name] = &containerUsage{in: in}
}

// drop forgets pod uid.
func (b *usageBook) drop(uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pods, uid)
}

// pod returns the usage of the running containers of pod uid, false
// when it has none or one of them has not been sampled twice yet (as
// metrics-server leaves out a pod it cannot give a whole window of).
func (b *usageBook) pod(uid types.UID) ([]containerMetrics, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []containerMetrics
	for name, c := range b.pods[uid] {
		if !c.in.running() {
			continue
		}
		if c.samples < 2 {
			return nil, false
		}
		d := c.last.at.Sub(c.prev.at)
		out = append(out, containerMetrics{name: name, at: c.last.at, window: d, memory: c.last.rss,
			cores: float64(c.last.ticks-c.prev.ticks) / userHZ / d.Seconds()})
	}
	return out, len(out) > 0
}

// run samples every resolution until ctx ends.
func (b *usageBook) run(ctx context.Context) {
	t := time.NewTicker(b.resolution)
	defer t.Stop()
	for {
		b.sample()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sample reads /proc once and takes a sample of every running container:
// its process group, which it leads (the runner starts each in a group
// of its own).
func (b *usageBook) sample() {
	groups := processGroups()
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, pod := range b.pods {
		for _, c := range pod {
			g, ok := groups[c.in.pid]
			if !ok || !c.in.running() {
				continue
			}
			if c.samples > 0 && g.ticks < c.last.ticks {
				c.samples = 0 // a process left the group with its time
			}
			c.prev, c.last = c.last, usageSample{at: now, ticks: g.ticks, rss: g.rss}
			c.samples++
		}
	}
}

// processGroups sums the CPU time and resident memory of the machine's
// processes by process group.
func processGroups() map[int]usageSample {
	out := map[int]usageSample{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	page := int64(os.Getpagesize())
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		pgrp, ticks, rss, err := parseStat(b)
		if err != nil {
			continue
		}
		g := out[pgrp]
		g.ticks += ticks
		g.rss += rss * page
		out[pgrp] = g
	}
	return out
}

// parseStat reads a process's group, CPU time (utime, stime, cutime and
// cstime, in ticks) and resident pages from /proc/PID/stat, whose second
// field, the command, may hold spaces and parentheses.
func parseStat(b []byte) (pgrp int, ticks uint64, rss int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("no command in %q", b)
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, the state
	if len(f) < 22 {
		return 0, 0, 0, fmt.Errorf("%d fields after the command, want at least 22", len(f))
	}
	num := func(k int) uint64 {
		v, e := strconv.ParseUint(string(f[k-3]), 10, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("field %d: %w", k, e)
		}
		return v
	}
	pgrp = int(num(5))
	ticks = num(14) + num(15) + num(16) + num(17)
	rss = int64(num(24))
	return pgrp, ticks, rss, err
}
