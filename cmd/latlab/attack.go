package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// attackFlags holds the flags of latlab attack: the load's options are
// registered straight on the fields of load.Settings; the rest are the
// command line's own syntax (translated into Settings by config) and
// output.
type attackFlags struct {
	load.Settings

	stages     string   // Settings.Stages, as DURATION:RATE,...
	ramp       string   // Settings.Ramp, as BURST/EVERY
	sequential bool     // Settings.Mode sequential
	headers    []string // 'Name: value' lines, repeatable
	cpus       string

	format   string
	output   string
	progress bool
	gate     sloFlags
	pod      podFlags
	shards   shardFlags
}

func newAttack(stdout, stderr io.Writer) *cobra.Command {
	_, cmd := attackCommand(stdout, stderr)
	return cmd
}

// attackLong is latlab attack's help.
const attackLong = `attack sends HTTP requests to a URL (or the requests of a targets or
scenario file) under one load model and reports latency, service time and
lag, in 512 ns steps below 0.5 ms and to 3 significant digits above.

A URL grpc://HOST:PORT/package.Service/Method (grpcs:// over TLS) makes
each request a gRPC call: its message is -b in protobuf's JSON mapping,
its types come from --proto files or the server's reflection service, -H
headers are its metadata, and its status is counted by name (OK,
UNAVAILABLE, ...); see docs/grpc.md.

Load models:
  -r RATE              open loop: request i is due at start + i/RATE, whatever
                       the target does; -c caps requests in flight (10000)
  --stages 30s:100,... open loop along linear stages (duration:target rate),
                       starting from -r (default 0)
  -c N                 closed loop: N workers, each sends when its last request
                       finished (the default, with -c 50)
  --ramp B/EVERY -c N  closed loop starting B workers, B more every EVERY, up to N
  --sequential         one request at a time on one connection

Latency counts from the intended send time, so a target that makes requests
queue cannot hide it; service time counts from the actual send; lag is the
difference. The run stops at -n requests or after -d (default 10s), whichever
comes first. The first Ctrl-C stops sending, lets requests in flight finish
and prints the partial result (exit code 130); a second one exits at once.
Bad input exits with code 2; a run that completed exits 0 whatever the
target answered, unless it breaks --slo.

--slo 'p99<50ms,errors<1%' makes the attack a gate for CI pipelines: limits
on p50, p90, p95, p99, p99.9 or max of the latency from the intended send,
and on the percentage of requests that failed or got a non-success code.
After the result, an SLO block lists each limit with the run's value, the
bound judged and the verdict; when one is broken, attack exits 1, after
writing the result to stdout and to -o (with --format json the verdict is
the "slo" key of the JSON, and the broken rows go to stderr). One run has no
repetitions, so a limit counts as broken only when the lower bound of the
value's 95% interval is past it: the distribution-free interval between two
order statistics for a percentile, the Wilson interval for the error ratio
(max is judged on the largest sample). --slo-strict judges the run's values
themselves. A percentile with too few samples to exist (p99 needs 100)
breaks its limit; an interrupted attack is judged on what it measured and
still exits 130.

` + samplesHelp + `

` + podHelp + `

` + shardsHelp

// attackExample are latlab attack's examples.
const attackExample = `  # open loop, 1000 requests per second for 30 s, after 5 s of warm-up
  latlab attack http://127.0.0.1:8080/ -r 1000 -d 30s --warmup 5s

  # closed loop, 300 connections, one million requests, as ab -k -c 300 -n 1000000
  latlab attack http://127.0.0.1:8080/ -c 300 -n 1000000

  # step up to 3000 in flight, 300 more every 30 s, for 15 minutes
  latlab attack http://127.0.0.1:8080/ -c 3000 --ramp 300/30s -d 15m

  # ramping arrival rate: 0 → 100/s over 30 s, up to 1000/s, hold
  latlab attack http://127.0.0.1:8080/ --stages 30s:100,60s:1000,30s:1000

  # POST with headers, JSON on stdout and an HdrHistogram log on disk
  latlab attack http://127.0.0.1:8080/api -m POST -H 'Content-Type: application/json' \
      -b '{"a":1}' -r 200 -d 10s --format json -o run.hlog

  # gRPC: a unary call 2000 times a second, types from reflection, then from a .proto
  latlab attack grpc://127.0.0.1:50051/grpc.health.v1.Health/Check -r 2000 -d 30s
  latlab attack grpc://127.0.0.1:50051/shop.Cart/Add --proto protos/cart.proto \
      -b '{"sku": "BOOK-7", "quantity": 2}' -c 50 -d 30s

  # vegeta-format targets, round robin; an ordered CRUD scenario per iteration
  latlab attack --targets targets.txt -r 500 -d 1m
  latlab attack --scenario crud.yaml -c 20 -d 1m

  # store the attack, with its first million requests raw, in a results database
  latlab attack http://127.0.0.1:8080/ -c 50 -d 30s -o results.db
  latlab ls results.db

  # a CI gate: exit 1 when p99 is past 50 ms or more than 1% of requests fail
  latlab attack http://127.0.0.1:8080/ -r 500 -d 30s --slo 'p99<50ms,errors<1%'

  # the same gate on the run's own p99 and error ratio, not their 95% lower bounds
  latlab attack http://127.0.0.1:8080/ -r 500 -d 30s --slo 'p99<50ms,errors<1%' --slo-strict

  # from a pod of a Kubernetes cluster, to a Service as the pod sees it
  latlab attack http://web.shop.svc:8080/ -r 200 -d 30s --kubernetes --image ghcr.io/you/latlab:v1 -o results.db`

// attackCommand returns the attack command and the flags it parses into.
func attackCommand(stdout, stderr io.Writer) (*attackFlags, *cobra.Command) {
	f := &attackFlags{}
	cmd := &cobra.Command{
		Use:     "attack [URL]",
		Short:   "Send HTTP load and measure latency",
		Long:    attackLong,
		Example: attackExample,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("attack takes one URL, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.Context(), cmd, args, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.VarP(rateValue{&f.Rates}, "rate", "r", "open loop: requests (scenario iterations) per second, or per a period: 100, 100/s, 6000/m")
	fl.StringVar(&f.Arrivals, "arrivals", load.ConstantArrivals, "open-loop arrivals: constant or poisson")
	fl.StringVar(&f.stages, "stages", "", "open loop along stages DURATION:RATE,... (linear in between)")
	fl.VarP(levelValue{&f.Concurrency}, "concurrency", "c", "closed loop: workers (default 50); open loop: cap on requests in flight (default 10000)")
	fl.StringVar(&f.ramp, "ramp", "", "closed loop step-up: BURST/EVERY, such as 300/30s, up to -c")
	fl.BoolVar(&f.sequential, "sequential", false, "one request at a time on one connection")
	fl.Int64VarP(&f.Requests, "requests", "n", 0, "stop after this many requests (scenario iterations)")
	fl.DurationVarP(&f.Duration, "duration", "d", 0, "stop sending after this long (default 10s when -n is not given)")
	fl.DurationVar(&f.Warmup, "warmup", 0, "run the same load this long first, never counted")
	fl.StringVar(&f.cpus, "cpus", "", "pin latlab to these CPUs, such as 0 or 2-3")
	fl.Uint64Var(&f.Seed, "seed", load.DefaultSeed, "seed of the Poisson arrivals")
	fl.StringVarP(&f.Method, "method", "m", http.MethodGet, "request method")
	fl.StringArrayVarP(&f.headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	fl.StringVarP(&f.Body, "body", "b", "", "request body")
	fl.StringVar(&f.BodyFile, "body-file", "", "read the request body from this file")
	fl.DurationVar(&f.Timeout, "timeout", load.DefaultTimeout, "per request, from send to the last byte")
	fl.BoolVar(&f.NoKeepAlive, "no-keepalive", false, "open a new connection for every request")
	fl.IntVar(&f.Connections, "connections", 0, "cap on open connections (default: the in-flight cap)")
	fl.IntVar(&f.Pool, "pool", 0, "open loop: connections opened before the load and kept (default: rate × 2 ms)")
	fl.Var(&f.Realtime, "realtime", "open loop: when the event loops run as real-time threads (SCHED_FIFO; root or CAP_SYS_NICE): auto (while the fair scheduler wakes a loop late and it uses under a quarter of a CPU, where allowed), true (always) or false (never)")
	fl.Lookup("realtime").NoOptDefVal = "true"
	fl.Lookup("realtime").DefValue = "auto"
	fl.IntVar(&f.Threads, "threads", 0, "event loops (threads) of the lean HTTP/1.1 client; 0 chooses from the load and where the target is (see the README)")
	fl.BoolVar(&f.HTTP2, "http2", false, "HTTP/2 over TLS (ALPN h2)")
	fl.BoolVar(&f.H2C, "h2c", false, "HTTP/2 over cleartext TCP (prior knowledge)")
	fl.IntVar(&f.Streams, "streams", load.DefaultStreams, "concurrent streams per HTTP/2 or gRPC connection (over gRPC, 100 caps nothing)")
	fl.StringVar(&f.UnixSocket, "unix-socket", "", "connect to this unix socket instead of the URL's host")
	fl.StringVar(&f.Client, "client", load.LeanClient, "HTTP/1.1 client: lean, or nethttp (Go's net/http, for reference)")
	fl.BoolVarP(&f.Insecure, "insecure", "k", false, "do not verify the server's certificate")
	fl.StringVar(&f.CACert, "cacert", "", "trust the CA certificates in this PEM file")
	fl.StringVar(&f.Cert, "cert", "", "client certificate (PEM), for mutual TLS")
	fl.StringVar(&f.Key, "key", "", "key of the client certificate (PEM)")
	fl.StringVar(&f.Success, "success", "", "status codes that count as success, such as 200-299,304 or OK,NOT_FOUND for gRPC (default: below 400, and gRPC's OK)")
	fl.StringArrayVar(&f.Proto, "proto", nil, "gRPC: the method's types from this .proto file (repeatable; default: ask the server's reflection service)")
	fl.IntVar(&f.Messages, "messages", 0, "gRPC: messages a client- or bidirectional-streaming call sends (default 1)")
	fl.DurationVar(&f.MessageGap, "message-interval", 0, "gRPC: time between a streaming call's messages")
	fl.StringArrayVar(&f.ImportPaths, "import-path", nil, "gRPC: look for --proto files and their imports in this folder (repeatable; default: each file's folder)")
	fl.StringVar(&f.Targets, "targets", "", "send the requests of this file (vegeta http format) round robin")
	fl.StringVar(&f.Scenario, "scenario", "", "run the steps of this YAML scenario in order per iteration")
	fl.DurationVar(&f.Interval, "interval", load.DefaultInterval, "length of one interval of the time series")
	fl.StringVar(&f.format, "format", "text", "output on stdout: text or json")
	fl.StringVarP(&f.output, "output", "o", "", "also write the result to FILE.json, FILE.hlog (HdrHistogram log) or FILE.db (results database)")
	fl.Int64Var(&f.Samples, "samples", load.DefaultSamples, "with -o FILE.db: keep this many requests raw; 0 keeps none")
	fl.BoolVar(&f.progress, "progress", false, "show live progress on stderr even when it is not a terminal")
	f.gate.register(fl, "")
	f.pod.register(fl)
	f.shards.register(fl)
	_ = cmd.RegisterFlagCompletionFunc("arrivals", cobra.FixedCompletions([]string{load.ConstantArrivals, load.PoissonArrivals}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("client", cobra.FixedCompletions([]string{load.LeanClient, load.NetHTTPClient}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.MarkFlagFilename("targets")
	_ = cmd.MarkFlagFilename("scenario", "yaml", "yml")
	_ = cmd.MarkFlagFilename("body-file")
	_ = cmd.MarkFlagFilename("proto", "proto")
	_ = cmd.MarkFlagDirname("import-path")
	return f, cmd
}

func (f *attackFlags) run(ctx context.Context, cmd *cobra.Command, args []string, stdout, stderr io.Writer) error {
	if err := f.pod.check(f.podSet(cmd.Flags().Changed)); err != nil {
		return err
	}
	if err := f.shards.check(cmd.Flags().Changed, f.pod.on); err != nil {
		return err
	}
	cfg, target, err := f.config(cmd, args)
	if err != nil {
		return err
	}
	slo, err := f.gate.parse(cmd.Flags().Changed("slo"), analysis.SLO{})
	if err != nil {
		return err
	}
	sender, err := f.sender(ctx, args, &cfg)
	if err != nil {
		return err
	}
	db, err := f.openDB(ctx, cmd, args) // before the run, like out
	if err != nil {
		return err
	}
	if db != nil {
		defer func() { _ = db.close() }()
	}
	var out io.WriteCloser
	if f.output != "" && db == nil { // open it now: a bad path should fail before the run, not after
		if out, err = os.Create(f.output); err != nil {
			return usagef("-o: %v", err)
		}
		defer out.Close()
	}
	var line *report.Line[report.AttackStatus]
	if f.progress || isTerminal(stderr) {
		line = report.NewLine[report.AttackStatus](stderr)
	}
	stopLive := liveAttack(&cfg, line)
	defer lean(cfg)() // the result is written with the run's heap goal too
	started := time.Now()
	res, err := sender.send(ctx, line, stderr)
	ended := time.Now()
	stopLive()
	if err != nil {
		return err
	}
	if s, e := sender.window(); !s.IsZero() {
		started, ended = s, e
	}
	shards := sender.shardResults()
	verdict := f.gate.judge(res, slo)
	if err := f.writeResult(stdout, out, res, verdict, shards, target); err != nil {
		return err
	}
	if db != nil {
		db.shards = shards
		if err := db.write(ctx, res, started, ended); err != nil {
			return err
		}
		if err := db.close(); err != nil {
			return err
		}
	}
	if res.Interrupted {
		return errInterrupted
	}
	return attackVerdict(verdict, f.format, stderr)
}

// An attackSender sends an attack's load one of three ways: from this
// process (localAttack), from a load pod (podAttack) or from local
// shards (shardAttack).
type attackSender interface {
	// send runs the attack, showing its progress on line when there is
	// one; its errors are ready to return from the command.
	send(ctx context.Context, line *report.Line[report.AttackStatus], stderr io.Writer) (*record.Result, error)
	// window is when the load was sent, after send, when the sender knows
	// it better than the command's own clock; zero times otherwise.
	window() (started, ended time.Time)
	// shardResults are the results of each process that sent part of
	// the load, after send; none when one process sent it all.
	shardResults() []store.Shard
}

// sender chooses how the attack of cfg is sent: from a pod (--pod), from
// shards (--shards) or from this process, pinned to --cpus.
func (f *attackFlags) sender(ctx context.Context, args []string, cfg *load.Config) (attackSender, error) {
	switch {
	case f.pod.on:
		return f.podAttack(ctx, args, *cfg)
	case f.shards.n > 0:
		// --cpus is dealt among the shards.
		return f.shardAttack(args, *cfg)
	}
	if err := pinCPUs(f.cpus); err != nil {
		return nil, err
	}
	return localAttack{cfg}, nil
}

// A localAttack sends the load from this process. It holds the config so
// that the live line's hook, set after it is chosen, is the one it runs.
type localAttack struct{ cfg *load.Config }

func (l localAttack) send(ctx context.Context, _ *report.Line[report.AttackStatus], _ io.Writer) (*record.Result, error) {
	res, err := load.Attack(ctx, *l.cfg)
	if err != nil {
		return nil, usageError{err}
	}
	return res, nil
}

func (localAttack) window() (started, ended time.Time) { return time.Time{}, time.Time{} }

func (localAttack) shardResults() []store.Shard { return nil }

func (p *podAttack) send(ctx context.Context, line *report.Line[report.AttackStatus], stderr io.Writer) (*record.Result, error) {
	return p.run(ctx, line, stderr) // the pod's or a shard's failure, or errInterrupted
}

func (p *podAttack) window() (started, ended time.Time) { return p.started, p.ended }

func (p *podAttack) shardResults() []store.Shard { return p.shards }

func (sa *shardAttack) send(ctx context.Context, line *report.Line[report.AttackStatus], stderr io.Writer) (*record.Result, error) {
	return sa.run(ctx, line, stderr) // a shard's failure, or errInterrupted
}

func (*shardAttack) window() (started, ended time.Time) { return time.Time{}, time.Time{} }

func (sa *shardAttack) shardResults() []store.Shard { return sa.shards }

// liveAttack shows the attack's progress on line once a second while a
// local attack of cfg runs, through cfg.Started; a pod's or the shards'
// attack shows its own. The returned func stops it and clears the line.
func liveAttack(cfg *load.Config, line *report.Line[report.AttackStatus]) (stop func()) {
	if line == nil {
		return func() {}
	}
	stopLive := make(chan struct{})
	var liveDone sync.WaitGroup
	cfg.Started = func(rec *record.Recorder) {
		liveDone.Add(1)
		go func() {
			defer liveDone.Done()
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					line.Show(report.AttackStatus{Progress: rec.Snapshot(), Total: cfg.Duration})
				case <-stopLive:
					line.Clear()
					return
				}
			}
		}()
	}
	return func() {
		close(stopLive)
		liveDone.Wait()
	}
}

// writeResult writes res to stdout in --format, and to the -o file out
// when there is one, as an hlog or as JSON by its extension.
func (f *attackFlags) writeResult(stdout io.Writer, out io.WriteCloser, res *record.Result, verdict *analysis.AttackSLO, shards []store.Shard, target string) error {
	var err error
	if f.format == "json" {
		err = report.WriteAttackJSON(stdout, res, verdict, shards)
	} else if err = report.Attack(stdout, res, target); err == nil {
		if err = report.WriteAttackShards(stdout, shards); err == nil && verdict != nil {
			err = report.WriteAttackSLO(stdout, verdict)
		}
	}
	if err != nil {
		return fmt.Errorf("writing result: %w", err)
	}
	if out == nil {
		return nil
	}
	if strings.EqualFold(filepath.Ext(f.output), ".hlog") {
		err = record.WriteHlog(out, res)
	} else {
		err = report.WriteAttackJSON(out, res, verdict, shards)
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.output, err)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
