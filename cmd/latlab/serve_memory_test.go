package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/graph"
)

// startServe runs "latlab serve" on a free port of 127.0.0.1 and returns
// its process and base URL; the node is killed at the end of the test.
func startServe(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), " listening on "); ok {
				lines <- u
			}
		}
		close(lines)
	}()
	select {
	case u, ok := <-lines:
		if !ok {
			t.Fatal("latlab serve ended before it listened")
		}
		return cmd, u
	case <-time.After(30 * time.Second):
		t.Fatal("latlab serve did not say where it listens within 30 s")
	}
	return nil, ""
}

// procStatusBytes reads a field of /proc/PID/status given in kB, in bytes.
func procStatusBytes(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", field, line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no %s", pid, field)
	return 0
}

// generator is an endless body of printable bytes that costs its reader no
// memory: uploads are streamed from it, never held by the test.
type generator struct{}

func (generator) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a' + byte(i%26)
	}
	return len(p), nil
}

// TestServeUploadMemory sends 24 concurrent uploads of 60 MiB each to a
// latlab serve node with its default caps, and asserts that the node's
// memory stays within them. Object bytes, stored or being received, never
// exceed MaxStored, so the node's peak RSS (VmHWM) is at most
//
//	what it held before the uploads
//	+ MaxStored
//	+ MaxUploads × 1 MiB (the piece an upload of unknown length reads into)
//	+ 24 × 64 KiB (a connection's goroutine and buffers).
//
// A node that reads each body whole before checking the cap holds all 24
// at once, 1.4 GiB and what growing them costs. The outcomes must match
// the cap: as many uploads stored as MaxStored holds, the others refused
// with 507 naming it, or, only if a slot was not free within the wait, 503
// with Retry-After.
func TestServeUploadMemory(t *testing.T) {
	bin := buildLatlab(t)
	node, base := startServe(t, bin, "--name", "mem")
	caps := graph.DefaultCaps()
	const uploads, size = 24, 60 << 20
	if size > caps.MaxBody {
		t.Fatalf("uploads of %d bytes are over MaxBody (%d): the test needs them accepted", size, caps.MaxBody)
	}
	client := &http.Client{Transport: &http.Transport{
		// A large body waits for the node's go-ahead, as curl's does, so
		// that a refused upload is never sent.
		ExpectContinueTimeout: time.Minute,
		MaxIdleConnsPerHost:   uploads,
	}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	put := func(name string, n int64) (int, http.Header, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+"/objects/"+name, io.LimitReader(generator{}, n))
		if err != nil {
			return 0, nil, "", err
		}
		req.ContentLength = n
		req.Header.Set("Expect", "100-continue")
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b), err
	}
	// The baseline: the node after it has served an upload and a read.
	if code, _, body, err := put("warm-up", 1<<10); err != nil || code != http.StatusCreated {
		t.Fatalf("warm-up PUT: %d %q %v", code, body, err)
	}
	if code, _, _ := get(t, base+"/objects/warm-up"); code != http.StatusOK {
		t.Fatalf("warm-up GET: %d", code)
	}
	if code, _, body, err := put("warm-up", 0); err != nil || code != http.StatusOK {
		t.Fatalf("emptying the warm-up object: %d %q %v", code, body, err)
	}
	baseline := procStatusBytes(t, node.Process.Pid, "VmRSS")

	type outcome struct {
		code   int
		header http.Header
		body   string
		err    error
	}
	outcomes := make([]outcome, uploads)
	var wg sync.WaitGroup
	for i := range uploads {
		wg.Go(func() {
			o := &outcomes[i]
			o.code, o.header, o.body, o.err = put(fmt.Sprintf("o%02d", i), size)
		})
	}
	wg.Wait()
	peak := procStatusBytes(t, node.Process.Pid, "VmHWM")

	var stored, full, busy int
	for i, o := range outcomes {
		switch {
		case o.err != nil:
			t.Errorf("upload %d: %v", i, o.err)
		case o.code == http.StatusCreated:
			stored++
		case o.code == http.StatusInsufficientStorage && strings.Contains(o.body, "MaxStored"):
			full++
		case o.code == http.StatusServiceUnavailable && o.header.Get("Retry-After") != "":
			busy++
		default:
			t.Errorf("upload %d: %d %q, want 201, 507 naming MaxStored, or 503 with Retry-After", i, o.code, o.body)
		}
	}
	// What the node holds is what it said it stored, each object whole.
	_, _, list := get(t, base+"/objects")
	var held int
	for name := range strings.FieldsSeq(list) {
		if name == "warm-up" {
			continue
		}
		held++
		resp, err := client.Head(base + "/objects/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ContentLength != size {
			t.Errorf("object %s holds %d bytes, want %d", name, resp.ContentLength, size)
		}
	}
	fits := int(caps.MaxStored / size)
	t.Logf("%d uploads of %d MiB: %d stored, %d refused 507, %d refused 503; node RSS %.1f MiB before, peak %.1f MiB",
		uploads, size>>20, stored, full, busy, mib(baseline), mib(peak))
	if held != stored {
		t.Errorf("the node holds %d objects, it answered 201 to %d uploads", held, stored)
	}
	if int64(stored)*size > caps.MaxStored {
		t.Errorf("%d objects of %d bytes stored, over MaxStored (%d)", stored, size, caps.MaxStored)
	}
	// An upload reserves its size before it waits for a slot, so a 507
	// met the store full of objects stored or promised to uploads, some
	// of which may have waited in vain and got 503: with any 507, what
	// was stored and what waited in vain together reach what fits. With
	// no slot missed, exactly fits are stored.
	if full > 0 && stored+busy < fits {
		t.Errorf("%d uploads refused as over MaxStored with %d stored and %d refused 503, where %d fit", full, stored, busy, fits)
	}
	if busy == 0 && stored != min(fits, uploads) {
		t.Errorf("%d stored, want %d (MaxStored %d holds %d of %d bytes)", stored, min(fits, uploads), caps.MaxStored, fits, size)
	}
	const piece, perConn = 1 << 20, 64 << 10
	bound := baseline + caps.MaxStored + int64(caps.MaxUploads)*piece + uploads*perConn
	if peak > bound {
		t.Errorf("node peak RSS %.1f MiB, over the bound of %.1f MiB: %.1f MiB before + MaxStored %d MiB + MaxUploads %d × 1 MiB + %d connections × 64 KiB",
			mib(peak), mib(bound), mib(baseline), caps.MaxStored>>20, caps.MaxUploads, uploads)
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
