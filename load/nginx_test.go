package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startNginx runs nginx with one worker on a free 127.0.0.1 port and
// returns its URL; the test is skipped where nginx is not installed.
func startNginx(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
			t.Skip("nginx is not installed")
		}
		bin = "/usr/sbin/nginx"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	conf := fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path %[1]s;
  keepalive_requests 100;
  server {
    listen %[2]s;
    location / { return 200 "ok\n"; }
  }
}
`, dir, addr)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", path, "-p", dir)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	t.Cleanup(func() {
		// SIGTERM: nginx's master stops its workers too; SIGKILL would
		// leave them behind.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	url := "http://" + addr + "/"
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return url
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("nginx did not come up")
	return ""
}

// TestNginx attacks a real nginx, which closes every connection after 100
// requests ("Connection: close"), with both clients and two load models.
func TestNginx(t *testing.T) {
	url := startNginx(t)
	for _, cl := range clients {
		t.Run(cl.name+"/closed", func(t *testing.T) {
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, url),
				Model:     Closed{Workers: 10},
				Count:     5000,
				Transport: cl.opts,
			})
			if res.Codes[200] != 5000 || res.ErrorsTotal != 0 {
				t.Errorf("200s %d, errors %d (%v); want 5000 and 0", res.Codes[200], res.ErrorsTotal, res.ErrorExample)
			}
			// 5000 requests at 100 per connection: at least 50 connections,
			// opened before the load (the event loops' pool) or during it.
			// (net/http may hand a dial to another request than the one
			// that traced it, so only the lean client is held to this.)
			if n := res.Pool + res.Connect.TotalCount(); n < 50 && !cl.opts.NetHTTP {
				t.Errorf("%d connections opened, want at least 50", n)
			}
		})
		t.Run(cl.name+"/open", func(t *testing.T) {
			res := attack(t, context.Background(), Config{
				Source:    staticTo(t, url),
				Model:     Open{Pacer: Constant{Rate: 1000}},
				Duration:  time.Second,
				Transport: cl.opts,
			})
			// A busy machine may fall behind the schedule; what it could
			// not send by the end shows as unsent. Every request sent
			// must succeed, across nginx's connection closes.
			if res.Sent+res.Unsent != 1000 || res.Sent < 1 || res.Codes[200] != res.Sent || res.ErrorsTotal != 0 {
				t.Errorf("sent %d, unsent %d, 200s %d, errors %d (%v); want 1000 due, all sent answered 200",
					res.Sent, res.Unsent, res.Codes[200], res.ErrorsTotal, res.ErrorExample)
			}
		})
	}
}
