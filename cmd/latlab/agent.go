package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/remote"
)

// agentLong is latlab agent's help.
const agentLong = `agent runs the trials of an experiment that a controller (latlab run
elsewhere) sends it over HTTP, so that their load leaves from where the agent
runs: in a pod, the network path is the cluster's. Only the controller makes
requests, directly or through the Kubernetes API server's pod proxy; the
results come back exact, histograms and raw samples included, and are stored
as if the trial had run on the controller's machine.

It acts only for its controller: every request but GET /healthz must carry
the token of --token-file in a Latlab-Agent-Token header, and one that does
not is answered 401 before its body is read. latlab run and latlab attack
make a token per load pod, in a Secret only that pod mounts, and hand one
to a local shard down a pipe; to run an agent by hand, put at least 32
random characters in a file only you can read (openssl rand -hex 32).

The API:

  GET  /healthz     200 "ok"
  GET  /clock       the agent's wall clock, for a coordinator of shards
  POST /trial       a trial bundle (JSON): the spec, every file it names, the
                    trial; 202 and the trial's status, 400 naming what is
                    wrong with the bundle, 409 while another trial runs
  GET  /trial       the trial's status (JSON): state (idle, warming, waiting,
                    measuring, done), live figures of the load, its error
  POST /trial/stop  stop the trial, keeping what it measured (interrupted)
  GET  /result      once done: multipart/form-data, parts warmup and measure
                    (each a result's exact encoding), points (the trace
                    points' exact encoding, JSON) and error (text)
  POST /exit        answer, then exit 0

With --otlp-http or --otlp-grpc it receives spans there (OTLP, no TLS), as
latlab run does for a spec with traces: true, so that the graph's nodes can
export theirs to the agent: a trial whose spec asks for traces sends back the
per-hop times of the spans that started during its measured load.

It runs one trial at a time, never runs a spec's commands, and never lingers:
it exits 1 after --idle without a request and after --lifetime whatever it
does.`

// agentExample are latlab agent's examples.
const agentExample = `  # on this machine, for a controller here
  (umask 077; openssl rand -hex 32 >token)
  latlab agent --listen 127.0.0.1:7070 --token-file token

  # in a pod, reached through the API server's pod proxy
  latlab agent --listen :7070 --token-file /var/run/latlab/token --idle 5m --lifetime 2h

  # in a pod that receives the cluster's spans
  latlab agent --listen :7070 --token-file /var/run/latlab/token --otlp-http :4318 --otlp-grpc :4317`

func newAgent(stderr io.Writer) *cobra.Command {
	var (
		listen             string
		otlpHTTP, otlpGRPC string
		idle, lifetime     time.Duration
		listenFD           int
		tokenFile          string
	)
	cmd := &cobra.Command{
		Use:     "agent",
		Short:   "Run trials that latlab run sends from elsewhere, such as to a pod",
		Long:    agentLong,
		Example: agentExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("agent takes no arguments, got %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tokenFile == "" {
				return usagef("--token-file: give the file of the token this agent's controller presents (at least 32 characters)")
			}
			token, err := remote.ReadToken(tokenFile)
			if err != nil {
				return usagef("--token-file: %v", err)
			}
			if idle <= 0 || lifetime <= 0 {
				return usagef("--idle and --lifetime: want positive durations, got %s and %s", idle, lifetime)
			}
			for _, f := range []struct{ name, addr string }{{"--otlp-http", otlpHTTP}, {"--otlp-grpc", otlpGRPC}} {
				if f.addr == "" {
					continue
				}
				if _, _, err := net.SplitHostPort(f.addr); err != nil {
					return usagef("%s: %v", f.name, err)
				}
			}
			var ln net.Listener
			if listenFD > 0 {
				file := os.NewFile(uintptr(listenFD), "listener")
				if ln, err = net.FileListener(file); err != nil {
					return usagef("--listen-fd %d: %v", listenFD, err)
				}
				file.Close()
			} else if ln, err = net.Listen("tcp", listen); err != nil {
				return usagef("--listen: %v", err)
			}
			a := &remote.Agent{Token: token, Idle: idle, Lifetime: lifetime, Log: stderr, OTLPHTTP: otlpHTTP, OTLPGRPC: otlpGRPC}
			err = a.Serve(cmd.Context(), ln)
			if cmd.Context().Err() != nil && errors.Is(err, context.Canceled) {
				return errInterrupted
			}
			if err != nil {
				return fmt.Errorf("agent: %w", err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVar(&listen, "listen", "127.0.0.1:7070", "address to listen on; :7070 in a pod")
	fl.StringVar(&tokenFile, "token-file", "", "the file of the token every request must carry (required)")
	fl.IntVar(&listenFD, "listen-fd", 0, "serve on this inherited listening socket")
	_ = fl.MarkHidden("listen-fd")
	fl.DurationVar(&idle, "idle", remote.DefaultAgentIdle, "exit after this long without a request")
	fl.DurationVar(&lifetime, "lifetime", remote.DefaultAgentLifetime, "exit this long after starting, whatever it does")
	fl.StringVar(&otlpHTTP, "otlp-http", "", "receive spans over OTLP/HTTP at this address, such as :4318; none if empty")
	fl.StringVar(&otlpGRPC, "otlp-grpc", "", "receive spans over OTLP/gRPC at this address, such as :4317; none if empty")
	return cmd
}
