package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/graph"
)

func newGraph(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Start, export or draw a synthetic service graph",
		Long: `graph works with topology files: YAML lists of services that do calibrated
work and call each other in any DAG, behind measured filters.`,
		Example: `  latlab graph up examples/graphs/chain.yaml
  latlab graph manifests examples/graphs/filters.yaml --image ghcr.io/you/latlab:v1 > graph.k8s.yaml
  latlab graph dot examples/graphs/filters.yaml | dot -Tsvg > graph.svg
  latlab graph proto > node.proto     # what a gRPC service serves, for clients without reflection`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown graph command %q; want up, manifests, dot or proto", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newGraphUp(stdout, stderr), newGraphManifests(stdout), newGraphDot(stdout), newGraphProto(stdout))
	return cmd
}

func newGraphProto(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "proto",
		Short: "Print the service definition a gRPC service of a graph serves",
		Long: `proto prints node.proto, the service every gRPC service of a graph (protocol:
grpc in its topology) serves: Run runs its script once, RunStream once per
message. The nodes serve it by reflection too, so latlab attack, ghz and
grpcurl need no copy; give this one to a client that cannot use reflection.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(stdout, graph.NodeProto)
			return err
		},
	}
}

// oneFile checks that a command got exactly one file argument.
func oneFile(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("want one topology file, got %d arguments", len(args))
	}
	return nil
}

func readTopology(path string) (*graph.Topology, error) {
	t, err := graph.ReadTopology(path)
	if err != nil {
		return nil, usageError{err}
	}
	return t, nil
}

func newGraphUp(stdout, stderr io.Writer) *cobra.Command {
	var (
		readyFile string
		cpus      string
		otlp      string
		zipkin    string
		ready     time.Duration
		quiet     bool
	)
	cmd := &cobra.Command{
		Use:   "up FILE",
		Short: "Start every service of a topology as local processes",
		Long: `up starts every service of the topology as its own "latlab serve" process on
127.0.0.1 (on a free port unless the file fixes one), waits until each answers
/healthz, and prints the entry URL and a table of nodes. It runs until Ctrl-C
or SIGTERM, then stops them all; the nodes die with it even if it is killed.`,
		Example: `  latlab graph up examples/graphs/chain.yaml --ready-file /tmp/graph.json
  latlab attack "$(jq -r .entry /tmp/graph.json)/busywork" --sequential -n 1000`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := readTopology(args[0])
			if err != nil {
				return err
			}
			opts := graph.LaunchOptions{Ready: ready}
			if !quiet {
				opts.Output = stderr
			}
			if cpus != "" {
				opts.Args = append(opts.Args, "--cpus", cpus)
			}
			if otlp != "" {
				opts.Args = append(opts.Args, "--otlp-endpoint", otlp)
			}
			if zipkin != "" {
				opts.Args = append(opts.Args, "--zipkin-endpoint", zipkin)
			}
			return graphUp(cmd.Context(), t, opts, readyFile, stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&readyFile, "ready-file", "", `once every node is up, write {"entry": URL, "nodes": {NAME: URL}} here`)
	fl.StringVar(&cpus, "cpus", "", "pin the nodes to these CPUs, such as 1 or 2-3")
	fl.StringVar(&otlp, "otlp-endpoint", "", "nodes export traces over OTLP/HTTP to this URL")
	fl.StringVar(&zipkin, "zipkin-endpoint", "", "nodes export traces to this Zipkin collector")
	fl.DurationVar(&ready, "ready-timeout", 30*time.Second, "how long a node may take to answer /healthz")
	fl.BoolVarP(&quiet, "quiet", "q", false, "do not relay the nodes' own output to stderr")
	return cmd
}

// graphUp runs the cluster until ctx ends or a node dies.
func graphUp(ctx context.Context, t *graph.Topology, opts graph.LaunchOptions, readyFile string, stdout io.Writer) error {
	c, err := graph.Launch(ctx, t, opts)
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Fprintf(stdout, "entry %s\n", c.Entry)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "service\turl\tpid")
	nodes := map[string]string{}
	for _, p := range c.Nodes {
		fmt.Fprintf(tw, "%s\t%s\t%d\n", p.Name, p.URL, p.PID)
		nodes[p.Name] = p.URL
	}
	tw.Flush()
	if readyFile != "" {
		b, _ := json.MarshalIndent(map[string]any{"entry": c.Entry, "nodes": nodes}, "", "  ")
		if err := os.WriteFile(readyFile, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing --ready-file: %w", err)
		}
		defer os.Remove(readyFile)
	}
	select {
	case <-ctx.Done():
		if err := c.Stop(); err != nil {
			return err
		}
		return errInterrupted
	case p := <-c.Exited():
		return fmt.Errorf("service %s (pid %d) exited: %w; stopping the others", p.Name, p.PID, p.Err())
	}
}

func newGraphManifests(stdout io.Writer) *cobra.Command {
	var image string
	cmd := &cobra.Command{
		Use:   "manifests FILE",
		Short: "Write Kubernetes manifests for a topology",
		Long: `manifests writes a Deployment and a Service per service of the topology, and a
ConfigMap with the topology and its job files, as multi-document YAML. Services
with resources get requests equal to limits (Guaranteed QoS); pods carry
Prometheus scrape annotations. The Dockerfile at the repository root builds an
image to run them.`,
		Example: `  latlab graph manifests examples/graphs/filters.yaml --image ghcr.io/you/latlab:v1 | kubectl apply -f -`,
		Args:    oneFile,
		RunE: func(_ *cobra.Command, args []string) error {
			t, err := readTopology(args[0])
			if err != nil {
				return err
			}
			b, err := graph.Manifests(t, image)
			if err != nil {
				return usageError{err}
			}
			_, err = stdout.Write(b)
			return err
		},
	}
	cmd.Flags().StringVar(&image, "image", "ghcr.io/latlab/latlab:latest", "container image with latlab as its entrypoint")
	return cmd
}

func newGraphDot(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "dot FILE",
		Short: "Write a topology as Graphviz",
		Example: `  latlab graph dot examples/graphs/filters.yaml | dot -Tsvg > graph.svg
  latlab graph proto > node.proto     # what a gRPC service serves, for clients without reflection`,
		Args: oneFile,
		RunE: func(_ *cobra.Command, args []string) error {
			t, err := readTopology(args[0])
			if err != nil {
				return err
			}
			_, err = stdout.Write(graph.Dot(t))
			return err
		},
	}
}
