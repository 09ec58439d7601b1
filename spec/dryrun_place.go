package spec

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/load"
)

// writePlacement says where what a run measures runs, as latlab run
// --dry-run shows it after the totals: the CPUs of latlab and of what it
// starts, when the spec pins them; which variants latlab starts (their
// processes pinned and watched by the process probe); which it only sets
// up (a setup command, pinned, whose daemons nobody watches); and which
// are external targets, which latlab neither starts nor pins nor finds by
// itself, with how to pin them and how to name them to the probe.
func (s *Spec) writePlacement(w io.Writer) {
	var started, setUp, external, cluster []string
	for i := range s.Variants {
		v := &s.Variants[i]
		name := textsafe.Escape(v.Name)
		switch {
		case v.InCluster():
			cluster = append(cluster, name)
		case v.Graph != "" || v.Start != "":
			started = append(started, name)
		case v.Setup != "":
			setUp = append(setUp, name)
		default:
			external = append(external, name)
		}
	}
	c := s.CPUs
	pinned := c.Load != "" || c.Targets != ""
	targets := c.targetCPUs()
	if pinned {
		fmt.Fprintf(w, "cpus:     %s\n", c.describe(targets))
	}
	if len(started) > 0 {
		where := "not pinned"
		if pinned {
			where = "pinned to " + targets
		}
		fmt.Fprintf(w, "started:  %s: latlab starts them (graph nodes, start commands, all they start), %s, watched by the process probe\n",
			strings.Join(started, ", "), where)
	}
	if len(setUp) > 0 {
		where := "not pinned"
		if pinned {
			where = "pinned to " + targets + ", as is what they start"
		}
		fmt.Fprintf(w, "set up:   %s: latlab runs their setup commands (%s) but watches nothing they leave running: name such a server to the process probe\n",
			strings.Join(setUp, ", "), where)
	}
	if len(cluster) > 0 {
		fmt.Fprintf(w, "cluster:  %s: placed by the cluster, not by cpus:\n", strings.Join(cluster, ", "))
	}
	if len(external) == 0 {
		return
	}
	fmt.Fprintf(w, "external: %s: latlab does not start them, so it neither pins them nor finds their processes\n", strings.Join(external, ", "))
	if pinned {
		fmt.Fprintf(w, "          pin them yourself where latlab pins what it starts: taskset -c %s COMMAND, or taskset -cp %s PID for one running\n",
			targets, targets)
	}
	if p := s.Probes.Process; p != nil && (len(p.PIDs) > 0 || len(p.Names) > 0) {
		var named []string
		if len(p.Names) > 0 {
			named = append(named, "names "+textsafe.Escape(strings.Join(p.Names, ", ")))
		}
		if len(p.PIDs) > 0 {
			pids := make([]string, len(p.PIDs))
			for i, pid := range p.PIDs {
				pids[i] = strconv.Itoa(pid)
			}
			named = append(named, "PIDs "+strings.Join(pids, ", "))
		}
		fmt.Fprintf(w, "          the process probe watches %s: their CPU counts as the targets' (target_cpu_high)\n", strings.Join(named, "; "))
		return
	}
	fmt.Fprintf(w, "          their CPU is not measured: name them to the process probe, probes: {process: {names: [nginx], pids: [4242]}}\n")
}

// targetCPUs returns the CPUs of what latlab starts, as a CPU list: the
// spec's targets, else the CPUs latlab may use here but the load's, else,
// when those cannot be read, "the CPUs latlab may use but cpus.load".
func (c CPUs) targetCPUs() string {
	if c.Targets != "" {
		return c.Targets
	}
	allowed, err := load.AllowedCPUs()
	var loadCPUs []int
	if err == nil && c.Load != "" {
		loadCPUs, err = load.ParseCPUList(c.Load)
	}
	if err != nil {
		return "the CPUs latlab may use but cpus.load"
	}
	rest := CPUsBut(allowed, loadCPUs)
	if len(rest) == 0 {
		return "none: latlab may use no CPU but cpus.load"
	}
	return load.FormatCPUList(rest)
}

// describe says where the generator and the targets run, targets being
// the CPUs of what latlab starts (targetCPUs).
func (c CPUs) describe(targets string) string {
	loadCPUs := c.Load
	if loadCPUs == "" {
		loadCPUs = "any"
	}
	return fmt.Sprintf("latlab on %s, what it starts on %s", loadCPUs, targets)
}

// cpusBut returns the CPUs of allowed that are not in except: where what
// latlab starts goes when the spec gives only cpus.load.
func CPUsBut(allowed, except []int) []int {
	var rest []int
	for _, cpu := range allowed {
		if !slices.Contains(except, cpu) {
			rest = append(rest, cpu)
		}
	}
	return rest
}
