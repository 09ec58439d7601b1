package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/latlab/latlab/internal/textsafe"
)

// kubeLeftover is one object ls --kubernetes lists; its JSON form is ls
// --kubernetes --format json's.
type kubeLeftover struct {
	Experiment string    `json:"experiment"`
	Variant    string    `json:"variant,omitempty"`
	Role       string    `json:"role,omitempty"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"created_at"`
}

// lsKubernetes lists what latlab made in the cluster and left there.
func (f *lsFlags) lsKubernetes(ctx context.Context, stdout io.Writer) error {
	c, err := f.kube.connect()
	if err != nil {
		return usageError{err}
	}
	left, err := c.Leftovers(ctx, f.name)
	if err != nil && len(left) == 0 {
		return err
	}
	out := make([]kubeLeftover, 0, len(left))
	for _, l := range left {
		out = append(out, kubeLeftover{Experiment: l.Experiment, Variant: l.Variant, Role: l.Role,
			Kind: l.Kind, Namespace: l.Namespace, Name: l.Name, CreatedAt: l.Created.UTC()})
	}
	if f.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(struct {
			Cluster string         `json:"cluster"`
			Objects []kubeLeftover `json:"objects"`
		}{c.Where, out}); jerr != nil {
			return jerr
		}
		return err
	}
	if werr := writeKubeLs(stdout, c.Where, out); werr != nil {
		return werr
	}
	return err // some kinds could not be listed: say so after what could
}

// writeKubeLs writes the objects as a table.
func writeKubeLs(w io.Writer, where string, objs []kubeLeftover) error {
	w = textsafe.NewWriter(w)
	if len(objs) == 0 {
		_, err := fmt.Fprintf(w, "%s: nothing of latlab's\n", where)
		return err
	}
	fmt.Fprintf(w, "%s: %d objects of latlab's\n", where, len(objs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "experiment\tvariant\tkind\tnamespace\tname\tage")
	now := time.Now()
	for _, o := range objs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", textsafe.OrDash(o.Experiment), textsafe.OrDash(o.Variant), o.Kind,
			textsafe.OrDash(o.Namespace), textsafe.OrDash(o.Name), now.Sub(o.CreatedAt).Round(time.Second))
	}
	return tw.Flush()
}
