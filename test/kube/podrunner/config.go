package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// config is what the flags set.
type config struct {
	dir        string            // state: slot, pods, mount points
	kubeconfig string            // waited for: up.sh writes it after the slot is known
	cert, key  string            // the kubelet server's certificate
	clientCA   string            // CA of the API server's kubelet client certificate
	nodes      int               // how many nodes to register
	cpu        resource.Quantity // per node
	memory     resource.Quantity // per node
	maxPods    int64             // per node
	images     map[string]string // image name → local binary
	backoff    time.Duration     // first restart delay, doubled per restart
	maxBackoff time.Duration     // cap on the restart delay
	cleanup    bool              // remove the slot's leftovers and exit
	resolution time.Duration     // how often containers' usage is sampled
}

// imageFlag collects --image NAME=PATH.
type imageFlag map[string]string

func (f imageFlag) String() string { return "" }

func (f imageFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=PATH, got %q", v)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	f[name] = abs
	return nil
}

// quantityFlag is a resource quantity such as 4 or 8Gi.
type quantityFlag struct{ q *resource.Quantity }

func (f quantityFlag) String() string {
	if f.q == nil {
		return ""
	}
	return f.q.String()
}

func (f quantityFlag) Set(v string) error {
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return err
	}
	*f.q = q
	return nil
}

// parseFlags reads args; a usage error is printed to stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	c := config{
		images: map[string]string{},
		cpu:    resource.MustParse("4"),
		memory: resource.MustParse("8Gi"),
	}
	fs := flag.NewFlagSet("podrunner", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dir, "dir", "", "state directory of the cluster (required)")
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig of the API server, waited for until it exists")
	fs.StringVar(&c.cert, "cert", "", "the kubelet server's certificate (PEM)")
	fs.StringVar(&c.key, "key", "", "the kubelet server's key (PEM)")
	fs.StringVar(&c.clientCA, "client-ca", "", "CA that signs the API server's kubelet client certificate")
	fs.IntVar(&c.nodes, "nodes", 2, "nodes to register")
	fs.Var(quantityFlag{&c.cpu}, "node-cpu", "cpu of each node (default 4)")
	fs.Var(quantityFlag{&c.memory}, "node-memory", "memory of each node (default 8Gi)")
	fs.Int64Var(&c.maxPods, "node-pods", 110, "pods each node takes")
	fs.Var(imageFlag(c.images), "image", "run image NAME as the local binary PATH: NAME=PATH (repeatable)")
	fs.DurationVar(&c.backoff, "restart-backoff", 10*time.Second, "delay before the first restart of a container or pull, doubled each time")
	fs.DurationVar(&c.maxBackoff, "max-restart-backoff", 5*time.Minute, "cap on that delay")
	fs.DurationVar(&c.resolution, "metrics-resolution", time.Second, "how often the metrics API samples the containers' CPU and memory")
	fs.BoolVar(&c.cleanup, "cleanup", false, "remove what a runner of --dir left behind, then exit")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if c.dir == "" {
		errs = append(errs, errors.New("--dir is required"))
	}
	if !c.cleanup {
		for _, f := range []struct{ name, v string }{{"kubeconfig", c.kubeconfig}, {"cert", c.cert}, {"key", c.key}, {"client-ca", c.clientCA}} {
			if f.v == "" {
				errs = append(errs, fmt.Errorf("--%s is required", f.name))
			}
		}
		if c.nodes < 1 || c.nodes > 100 {
			errs = append(errs, fmt.Errorf("--nodes %d: want 1 to 100", c.nodes))
		}
		if c.resolution < 100*time.Millisecond {
			errs = append(errs, fmt.Errorf("--metrics-resolution %s: want at least 100ms", c.resolution))
		}
		if c.backoff <= 0 || c.maxBackoff < c.backoff {
			errs = append(errs, errors.New("--restart-backoff must be positive and at most --max-restart-backoff"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "podrunner: %v\n", err)
		return c, err
	}
	return c, nil
}
