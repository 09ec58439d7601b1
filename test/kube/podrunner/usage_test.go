package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestParseStat(t *testing.T) {
	// The command may hold spaces and parentheses; the fields after it
	// are counted from its last ')'.
	line := "4242 (a) (b c)) S 1 4240 4240 0 -1 4194304 102 0 0 0 7 5 3 2 20 0 1 0 20735 3133440 400 18446744073709551615 0 0\n"
	pgrp, ticks, rss, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if pgrp != 4240 || ticks != 7+5+3+2 || rss != 400 {
		t.Errorf("pgrp %d, ticks %d, rss %d; want 4240, 17, 400", pgrp, ticks, rss)
	}
	for _, bad := range []string{"4242 no command", "4242 (a) S 1 2 3", "4242 (a) S 1 x 4240 0 -1 4194304 102 0 0 0 7 5 3 2 20 0 1 0 20735 3133440 400"} {
		if _, _, _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q): no error", bad)
		}
	}
}

// TestUsageBook checks that a busy container's process group is seen to
// use CPU and memory, over a window between two samples, and that a
// container is left out until it has one.
func TestUsageBook(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	in := &instance{pid: cmd.Process.Pid, exited: make(chan struct{})}
	b := &usageBook{resolution: 100 * time.Millisecond}
	uid := types.UID("pod-1")
	b.started(uid, "busy", in)
	if _, ok := b.pod(uid); ok {
		t.Fatal("a container never sampled has usage")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b.sample()
		if cs, ok := b.pod(uid); ok && cs[0].cores > 0 {
			if cs[0].name != "busy" || cs[0].memory <= 0 || cs[0].window <= 0 {
				t.Errorf("usage %+v; want busy's, with memory and a window", cs[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a busy loop showed no CPU in 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(in.exited)
	if cs, ok := b.pod(uid); ok {
		t.Errorf("an exited container has usage %+v", cs)
	}
	b.drop(uid)
}
