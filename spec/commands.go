package spec

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/latlab/latlab/internal/textsafe"
)

// A Command is a program a spec has latlab run, or a cluster run for it.
type Command struct {
	Variant string // the variant it belongs to
	// When says when it runs: a variant's "setup", "start", "configure"
	// or "teardown"; "graph", a graph's nodes; "fork NODE/NAME" and
	// "stress NODE/NAME", what a node runs for its fork and stress steps
	// (and its /fork, /stress-ng and /load routes); "manifests", what a
	// cluster runs.
	When string
	Run  string // the command as written, an argv, or what is applied
}

// Commands returns every program s runs, variant by variant in the
// spec's order, each variant's in the order they run: its setup, start,
// configure and teardown commands, which latlab runs with sh -c in the
// spec's folder; for a graph, its nodes (latlab serve, one per service)
// and the commands and stress-ng jobs those nodes run; for manifests, the
// file applied to the cluster, whose containers run there.
//
// A spec is code, as a Makefile is: these run with the privileges of
// whoever runs latlab, which is why latlab run --dry-run lists them.
func (s *Spec) Commands() []Command {
	var out []Command
	for i := range s.Variants {
		v := &s.Variants[i]
		add := func(when, run string) {
			if run != "" {
				out = append(out, Command{Variant: v.Name, When: when, Run: run})
			}
		}
		add("setup", v.Setup)
		add("start", v.Start)
		if t := v.Topology; t != nil {
			var names []string
			for _, svc := range t.Services {
				names = append(names, svc.Name)
			}
			each := "a process"
			if v.InCluster() {
				each = "a pod of " + s.image() + " on the cluster"
			}
			add("graph", fmt.Sprintf("latlab serve, %s for each service of %s: %s", each, v.Graph, strings.Join(names, ", ")))
			for _, svc := range t.Services {
				for _, name := range SortedKeys(svc.Commands) {
					add("fork "+svc.Name+"/"+name, shellJoin(svc.Commands[name]))
				}
				for _, name := range SortedKeys(svc.Jobs) {
					add("stress "+svc.Name+"/"+name, shellJoin([]string{"stress-ng", "--job", svc.Jobs[name]}))
				}
			}
		}
		if k := v.Kubernetes; k != nil && k.Manifests != "" {
			add("manifests", k.Manifests+" applied to the cluster: what it deploys runs there")
		}
		add("configure", v.Configure)
		add("teardown", v.Teardown)
	}
	return out
}

// image is the container image of a graph's pods on a cluster.
func (s *Spec) image() string {
	if s.Kubernetes != nil && s.Kubernetes.Image != "" {
		return s.Kubernetes.Image
	}
	return "latlab's image"
}

// shellJoin writes argv as a shell would take it back: each argument
// that holds anything but letters, digits and -_./=:,+@% quoted.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) {
			parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// writeCommands writes the commands the spec runs, as latlab run
// --dry-run shows them: one line each, control characters and newlines
// escaped so that what is shown is what runs.
func (s *Spec) writeCommands(w io.Writer) {
	cmds := s.Commands()
	if len(cmds) == 0 {
		fmt.Fprint(w, "commands: none: latlab only sends its variants requests\n\n")
		return
	}
	var when string
	switch s.Restart {
	case PerRun:
		when = "each trial sets its variant up and tears it down"
	case PerRate:
		when = "a variant is set up again when its rate changes"
	default:
		when = "each variant is set up once and kept warm"
	}
	fmt.Fprintf(w, "commands: a spec is code, as a Makefile is: latlab runs these with your privileges; shell commands\n"+
		"with sh -c in %s; %s\n", textsafe.Escape(cmp.Or(s.Dir, ".")), when)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  variant\twhen\tcommand")
	for _, c := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", textsafe.Escape(c.Variant), textsafe.Escape(c.When), textsafe.Escape(c.Run))
	}
	tw.Flush()
	fmt.Fprintln(w)
}
