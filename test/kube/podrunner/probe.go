package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probeKind is which of a container's probes a result is of.
type probeKind string

const (
	startupProbe   probeKind = "Startup"
	readinessProbe probeKind = "Readiness"
	livenessProbe  probeKind = "Liveness"
)

// startProbes starts the probes of run in of c: the startup probe alone
// while there is one that has not passed, else readiness and liveness.
func (w *podWorker) startProbes(ctx context.Context, c *container, in *instance) {
	pctx, cancel := context.WithCancel(ctx)
	prev := in.probes
	in.probes = func() { prev(); cancel() }
	probe := func(kind probeKind, p *corev1.Probe) {
		if p == nil {
			return
		}
		pr := &prober{kind: kind, probe: p, podIP: w.sb.ip.String(), ports: c.spec.Ports, pid: in.pid, env: in.env}
		go pr.loop(pctx, func(ok bool, msg string) {
			w.do(pctx, func() { w.probed(ctx, c, in, kind, ok, msg) })
		})
	}
	if !c.started {
		probe(startupProbe, c.spec.StartupProbe)
		return
	}
	probe(readinessProbe, c.spec.ReadinessProbe)
	probe(livenessProbe, c.spec.LivenessProbe)
}

// probed takes a probe's verdict on run in of c, when it changes.
func (w *podWorker) probed(ctx context.Context, c *container, in *instance, kind probeKind, ok bool, msg string) {
	if c.run != in || c.ended() {
		return
	}
	if !ok {
		w.r.event(w.pod, corev1.EventTypeWarning, "Unhealthy", fmt.Sprintf("%s probe failed: %s", kind, msg))
	}
	switch kind {
	case readinessProbe:
		c.ready = ok
	case startupProbe:
		if ok {
			c.started = true
			c.ready = c.spec.ReadinessProbe == nil
			w.startProbes(ctx, c, in)
			return
		}
		fallthrough
	case livenessProbe:
		if ok {
			return
		}
		w.r.event(w.pod, corev1.EventTypeNormal, "Killing", fmt.Sprintf("Container %s failed %s probe, will be restarted", c.spec.Name, kind))
		in.probes()
		// The run's end comes back through exited, which restarts it.
		go in.stop(w.grace())
	}
}

// grace is the pod's termination grace period.
func (w *podWorker) grace() time.Duration {
	if g := w.pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	return 30 * time.Second
}

// prober runs one probe of one run of a container at its period.
type prober struct {
	kind  probeKind
	probe *corev1.Probe
	podIP string
	ports []corev1.ContainerPort
	pid   int      // the container's process, whose namespaces exec probes enter
	env   []string // the container's environment, for exec probes
}

// loop probes until ctx ends, calling report when the verdict changes
// (after successThreshold passes or failureThreshold failures in a row);
// a readiness probe starts failed, the others passed.
func (p *prober) loop(ctx context.Context, report func(ok bool, msg string)) {
	period := seconds(p.probe.PeriodSeconds, 10)
	success := int(max(p.probe.SuccessThreshold, 1))
	failure := int(max(p.probe.FailureThreshold, 1))
	if p.probe.FailureThreshold == 0 {
		failure = 3
	}
	verdict := p.kind == livenessProbe // readiness and startup have to pass first
	passes, fails := 0, 0
	wait := time.Duration(p.probe.InitialDelaySeconds) * time.Second
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = period
		err := p.once(ctx)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			passes, fails = passes+1, 0
			if !verdict && passes >= success {
				verdict = true
				report(true, "")
				if p.kind == startupProbe {
					return // readiness and liveness take over
				}
			}
			continue
		}
		passes, fails = 0, fails+1
		if fails >= failure && (verdict || p.kind != readinessProbe) {
			verdict = false
			report(false, err.Error())
			if p.kind != readinessProbe {
				return // the run is killed
			}
		}
	}
}

// seconds returns n seconds, or def seconds when n is 0.
func seconds(n, def int32) time.Duration {
	if n <= 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}

// once runs the probe one time.
func (p *prober) once(ctx context.Context) error {
	timeout := seconds(p.probe.TimeoutSeconds, 1)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := p.probe.ProbeHandler
	switch {
	case h.HTTPGet != nil:
		return p.httpGet(ctx, h.HTTPGet)
	case h.TCPSocket != nil:
		port, err := p.port(h.TCPSocket.Port)
		if err != nil {
			return err
		}
		host := h.TCPSocket.Host
		if host == "" {
			host = p.podIP
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return err
		}
		return conn.Close()
	case h.Exec != nil:
		return p.exec(ctx, h.Exec.Command)
	}
	return errors.New("unsupported probe: the pod runner has httpGet, tcpSocket and exec")
}

// port resolves a probe's port, a number or the name of a container port.
func (p *prober) port(v intstr.IntOrString) (int, error) {
	if v.Type == intstr.Int {
		return v.IntValue(), nil
	}
	for _, cp := range p.ports {
		if cp.Name == v.StrVal {
			return int(cp.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("no container port named %s", v.StrVal)
}

func (p *prober) httpGet(ctx context.Context, g *corev1.HTTPGetAction) error {
	port, err := p.port(g.Port)
	if err != nil {
		return err
	}
	host := g.Host
	if host == "" {
		host = p.podIP
	}
	scheme := "http"
	if g.Scheme == corev1.URISchemeHTTPS {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(host, strconv.Itoa(port)), g.Path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "kube-probe/1.34")
	for _, h := range g.HTTPHeaders {
		req.Header.Set(h.Name, h.Value)
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // as the kubelet's probes
		DisableKeepAlives: true,
	}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 10<<10))
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("HTTP probe failed with statuscode: %d", resp.StatusCode)
	}
	return nil
}

// exec runs the command in the container's namespaces, with its
// environment; exit 0 passes.
func (p *prober) exec(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("exec probe without a command")
	}
	args := append([]string{"--target", strconv.Itoa(p.pid), "--net", "--mount", "--uts", "--"}, argv...)
	cmd := exec.CommandContext(ctx, "nsenter", args...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("command %q: %v: %s", argv, err, out)
	}
	return nil
}
