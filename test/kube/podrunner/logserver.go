package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// logBook maps pods' containers to their logs, for the log server. It is
// safe for concurrent use.
type logBook struct {
	mu   sync.Mutex
	pods map[string]*podLogs // by namespace/name
}

// podLogs are the logs of one pod: every run of every container.
type podLogs struct {
	uid  types.UID
	runs map[string][]*logFile // by container, oldest first
}

// add records run l of container c of the pod, replacing the logs of an
// older pod of the same name.
func (b *logBook) add(ns, name string, uid types.UID, c string, l *logFile) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pods == nil {
		b.pods = map[string]*podLogs{}
	}
	key := ns + "/" + name
	p := b.pods[key]
	if p == nil || p.uid != uid {
		p = &podLogs{uid: uid, runs: map[string][]*logFile{}}
		b.pods[key] = p
	}
	p.runs[c] = append(p.runs[c], l)
}

// drop forgets the logs of the pod with uid.
func (b *logBook) drop(ns, name string, uid types.UID) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p := b.pods[ns+"/"+name]; p != nil && p.uid == uid {
		delete(b.pods, ns+"/"+name)
	}
}

// find returns the current run's log of a container, or with previous
// the one before it.
func (b *logBook) find(ns, name, c string, previous bool) (*logFile, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pods[ns+"/"+name]
	if p == nil {
		return nil, fmt.Errorf("pod %s/%s is not running on this node, or has not started a container", ns, name)
	}
	runs := p.runs[c]
	if len(runs) == 0 {
		return nil, fmt.Errorf("container %q in pod %q is waiting to start", c, name)
	}
	if previous {
		if len(runs) < 2 {
			return nil, fmt.Errorf("previous terminated container %q in pod %q not found", c, name)
		}
		return runs[len(runs)-2], nil
	}
	return runs[len(runs)-1], nil
}

// serveKubelet serves the kubelet's API, as far as the runner has one,
// over HTTPS on 127.0.0.1, to clients with a certificate of clientCA (the
// API server's kubelet client). It returns the port.
func (r *runner) serveKubelet(ctx context.Context) (int, error) {
	cert, err := tls.LoadX509KeyPair(r.cfg.cert, r.cfg.key)
	if err != nil {
		return 0, fmt.Errorf("kubelet certificate: %w", err)
	}
	caPEM, err := os.ReadFile(r.cfg.clientCA)
	if err != nil {
		return 0, fmt.Errorf("kubelet client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return 0, fmt.Errorf("kubelet client CA %s: no certificate", r.cfg.clientCA)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", r.serveLogs)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	r.serveTLS(ctx, "kubelet server", ln, mux, &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
	})
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serveTLS serves h over HTTPS on ln with cfg until ctx ends, logging an
// error as name's.
func (r *runner) serveTLS(ctx context.Context, name string, ln net.Listener, h http.Handler, cfg *tls.Config) {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         cfg,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.log.Error(name, "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
}

// serveLogs is GET /containerLogs/NAMESPACE/POD/CONTAINER, with the
// kubelet's parameters follow, previous, timestamps, tailLines,
// limitBytes, sinceSeconds and sinceTime.
func (r *runner) serveLogs(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	var opt logOptions
	var errs []error
	flag := func(name string) bool {
		v := q.Get(name)
		if v == "" {
			return false
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: want true or false", name, v))
		}
		return b
	}
	number := func(name string, def int64) int64 {
		v := q.Get(name)
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a number of at least 0", name, v))
		}
		return n
	}
	opt.follow = flag("follow")
	previous := flag("previous")
	opt.timestamps = flag("timestamps")
	opt.tail = number("tailLines", -1)
	opt.limit = number("limitBytes", 0)
	if s := number("sinceSeconds", 0); s > 0 {
		opt.since = time.Now().Add(-time.Duration(s) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("sinceTime=%q: %v", v, err))
		}
		opt.since = t
	}
	if err := errors.Join(errs...); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l, err := r.logs.find(req.PathValue("namespace"), req.PathValue("pod"), req.PathValue("container"), previous)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if err := writeLog(w, flush, l, opt, req.Context().Done()); err != nil {
		r.log.Debug("writing a log", "path", l.path, "err", err)
	}
}
