package graph

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// doWork runs f as one piece of work of kind: in a span, timed into the
// request's Server-Timing and latlab_work_duration_seconds, and, for work
// asked to take a time (asked > 0), into latlab_work_ratio.
func (n *Node) doWork(ctx context.Context, ex *exchange, kind StepKind, asked time.Duration, f func(context.Context) error) error {
	ctx, span := n.tr.startSpan(ctx, string(kind), trace.SpanKindInternal)
	start := time.Now()
	err := f(ctx)
	d := time.Since(start)
	ex.tm.addWork(d)
	if err == nil {
		n.m.work.WithLabelValues(string(kind)).Observe(d.Seconds())
		if asked > 0 {
			n.m.ratio.WithLabelValues(string(kind)).Observe(float64(d) / float64(asked))
		}
	}
	if span.IsRecording() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.SetAttributes(attribute.Float64("latlab.work.asked_ms", float64(asked)/1e6))
	}
	span.End()
	return err
}

// spin keeps the CPU busy for d of wall time, reading the monotonic clock
// in a tight loop. On Linux time.Now is a vDSO call of about 25 ns, so the
// spin ends within a microsecond of d unless the thread is descheduled at
// its very end; a spin that is descheduled in the middle still ends on
// time, having burnt less CPU than d. ctx is checked about every 25 µs.
func spin(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	done := ctx.Done()
	for i := 0; ; i++ {
		if !time.Now().Before(deadline) {
			return nil
		}
		if i&1023 == 0 && done != nil {
			select {
			case <-done:
				return ctx.Err()
			default:
			}
		}
	}
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// segment is how many odd numbers countPrimes sieves at once: 32 KiB of
// flags, which stays in a level-1 cache.
const segment = 1 << 15

// countPrimes counts the primes ≤ n with a segmented sieve of
// Eratosthenes over odd numbers. It needs O(√n) memory besides one
// segment and checks ctx between segments.
func countPrimes(ctx context.Context, n int64) (int64, error) {
	if n < 2 {
		return 0, nil
	}
	r := int64(math.Sqrt(float64(n)))
	for r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	// Odd primes up to √n by a plain sieve: all any segment needs.
	small := make([]bool, r+1)
	var primes []int64
	for i := int64(3); i <= r; i += 2 {
		if small[i] {
			continue
		}
		primes = append(primes, i)
		for j := i * i; j <= r; j += 2 * i {
			small[j] = true
		}
	}
	next := make([]int64, len(primes)) // next odd multiple of each prime to cross out
	for k, p := range primes {
		next[k] = p * p
	}
	composite := make([]bool, segment)
	count := int64(1) // 2
	for lo := int64(3); lo <= n; lo += 2 * segment {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		hi := min(lo+2*(segment-1), n) // the segment holds lo, lo+2, …, ≤ hi
		clear(composite)
		for k, p := range primes {
			j := next[k]
			for ; j <= hi; j += 2 * p {
				composite[(j-lo)/2] = true
			}
			next[k] = j
		}
		for i := int64(0); lo+2*i <= hi; i++ {
			if !composite[i] {
				count++
			}
		}
	}
	return count, nil
}

// runCommand runs argv to its end, its output discarded except the tail of
// its standard error, which an error quotes. When ctx ends the process gets
// SIGTERM (stress-ng then stops its workers), and SIGKILL 5 s later.
func runCommand(ctx context.Context, argv []string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	// Dies with the node, even when the node is killed; stress-ng passes
	// its own parent-death signal on to its stressors.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if len(stderr.b) > 0 {
			return fmt.Errorf("%s: %w: %s", argv[0], err, stderr.b)
		}
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}

// tail keeps the last 512 bytes written to it.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 512; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// stressCommand is the command running a stress-ng job file.
func stressCommand(file string) []string { return []string{"stress-ng", "--job", file} }

// runArgv runs a configured command through n.run and turns a missing
// program into 503.
func (n *Node) runArgv(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return statusError(http.StatusInternalServerError, "empty command")
	}
	if err := lookPath(argv[0]); err != nil {
		return err
	}
	if err := n.run(ctx, argv); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return statusError(http.StatusInternalServerError, "running %s: %v", argv[0], err)
	}
	return nil
}

// lookPath answers 503 naming the program when it is not installed.
func lookPath(program string) error {
	if _, err := exec.LookPath(program); err != nil {
		return statusError(http.StatusServiceUnavailable, "%s is not installed: %v", program, err)
	}
	return nil
}

// jobArgv checks that the job file exists, and returns the command running
// it. The file is not read here: the job runner reads it anew each run.
func (n *Node) jobArgv(file string) ([]string, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, statusError(http.StatusInternalServerError, "job file: %v", err)
	}
	return n.jobCmd(file), nil
}

// pattern is what payloads are made of: printable, so a payload can be
// looked at, and allocated once.
var pattern = func() []byte {
	b := make([]byte, 32<<10)
	for i := range b {
		b[i] = "0123456789abcdefghijklmnopqrstuvwxyz\n"[i%37]
	}
	return b
}()

// writePayload streams size bytes of pattern to w.
func writePayload(w io.Writer, size int64) (int64, error) {
	var written int64
	for written < size {
		k, err := w.Write(pattern[:min(size-written, int64(len(pattern)))])
		written += int64(k)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// payloadReader returns a request body of size bytes.
func payloadReader(size int64) io.Reader {
	return io.LimitReader(repeatReader{}, size)
}

type repeatReader struct{}

func (repeatReader) Read(p []byte) (int, error) { return copy(p, pattern), nil }

// pick returns the value called name in m, or with name "" the one of the
// lexically first name; what names the map in messages.
func pick[V any](m map[string]V, name, what string) (V, string, error) {
	var zero V
	if len(m) == 0 {
		return zero, "", statusError(http.StatusNotFound, "%s: none configured", what)
	}
	if name == "" {
		for k := range m {
			if name == "" || k < name {
				name = k
			}
		}
	}
	v, ok := m[name]
	if !ok {
		return zero, "", statusError(http.StatusBadRequest, "name: no %s called %s", what, strconv.Quote(name))
	}
	return v, name, nil
}
