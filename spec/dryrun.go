package spec

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/textsafe"
	"github.com/latlab/latlab/units"
)

// WritePlan writes trials, a plan of s or what is left of one, as latlab run
// --dry-run shows it: every command the spec runs (Commands), one line per
// trial with its position, variant, load, repetition, length and warm-up,
// then the totals and the time they take
// (graph start-up, readiness and teardown not counted). A trial that ends
// at a request count is timed by estimate, and the output says what that
// assumes.
func (s *Spec) WritePlan(w io.Writer, trials []Trial) error {
	ew := textsafe.NewSticky(textsafe.NewWriter(w))
	runs := units.Count(s.Runs, "run")
	if s.Auto != nil {
		runs = "runs " + s.Auto.String()
	}
	fmt.Fprintf(ew, "experiment %s: %s, %s, order %s, restart %s, baseline %s\n\n",
		textsafe.Escape(s.Name), units.Count(len(s.Variants), "variant"), runs, s.Order, s.Restart, textsafe.Escape(s.Baseline))
	s.writeCommands(ew)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tvariant\tload\trep\tlength\twarm-up")
	for _, tr := range trials {
		v := s.Variant(tr.Variant)
		if v == nil {
			fmt.Fprintf(tw, "%d\t%s\t?\t%d\t?\t?\n", tr.Position, textsafe.Escape(tr.Variant), tr.Rep)
			continue
		}
		l := &v.Load
		wu := "-"
		if s.Warmup != nil {
			wu = s.Warmup.Duration.String() + " at " + s.warmupLevel(l, tr)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", tr.Position, textsafe.Escape(tr.Variant), l.level(tr), tr.Rep, l.lengthText(), wu)
	}
	tw.Flush()
	t := s.Totals(trials)
	t.write(ew, len(trials))
	s.writePlacement(ew)
	return ew.Err()
}

// totals add up the time of a plan's trials.
type totals struct {
	exact     time.Duration // trials whose length the spec fixes
	estimated time.Duration // trials that end at a request count, as estimated
	capped    time.Duration // those trials at their duration caps, when all have one
	uncapped  int           // estimated trials without a cap
	unknown   int           // estimated trials whose graph's work is not known
	count     int           // estimated trials
	warm      time.Duration
	missing   int // trials of variants the spec no longer has
}

// Totals adds up the time of trials.
func (s *Spec) Totals(trials []Trial) *totals {
	t := &totals{}
	for _, tr := range trials {
		v := s.Variant(tr.Variant)
		if v == nil {
			t.missing++
			continue
		}
		t.add(v, tr)
		if s.Warmup != nil {
			t.warm += s.Warmup.Duration
		}
	}
	return t
}

func (t *totals) add(v *Variant, tr Trial) {
	d, kind := estimate(v, tr)
	if kind == lengthExact {
		t.exact += d
		return
	}
	t.count++
	t.estimated += d
	if v.Load.Duration > 0 {
		t.capped += v.Load.Duration
	} else {
		t.uncapped++
	}
	if _, _, known := requestTime(v); !known {
		t.unknown++
	}
}

// Total is the whole plan's expected time.
func (t *totals) Total(trials int) time.Duration {
	return t.exact + t.estimated + t.warm + time.Duration(trials)*trialOverhead
}

func (t *totals) write(w io.Writer, trials int) {
	between := time.Duration(trials) * trialOverhead
	load := "about " + units.Round(t.exact+t.estimated).String()
	all := "about " + units.Round(t.Total(trials)).String()
	if t.count == 0 {
		load = units.Round(t.exact).String()
	} else if t.uncapped == 0 {
		all += ", at most " + units.Round(t.exact+t.capped+t.warm+between).String() + " (every trial to its duration)"
	}
	if t.missing > 0 {
		all += fmt.Sprintf(" and %s of variants no longer in the spec", units.Count(t.missing, "trial"))
	}
	fmt.Fprintf(w, "\n%s\nload:     %s\nwarm-up:  %s\nbetween:  %s (%s a trial: storing it, reading probes)\n"+
		"in all:   %s, not counting graph start-up, readiness and teardown\n",
		units.Count(trials, "trial"), load, units.Round(t.warm), units.Round(between), trialOverhead, all)
	if t.count == 0 {
		return
	}
	note := fmt.Sprintf("%s at a request count. A request is timed at the fixed work on its path "+
		"(the graph's sleeps, busywork and delays for the load's user) plus %s a hop; W workers at the "+
		"longer of that divided by W and %s of CPU per process per request on %d CPUs. A busy machine takes longer.",
		units.Count(t.count, "trial ends", "trials end"), hopCost, cpuPerProcess, estimateCPUs())
	if t.unknown > 0 {
		note += fmt.Sprintf(" %s an external target, a scenario, a targets file or a route other than /, whose "+
			"work the spec does not give: each of their requests counts as one bare hop, so they may take far longer.",
			units.Count(t.unknown, "trial loads", "trials load"))
	}
	fmt.Fprint(w, wrap("estimate: ", note, 78))
}

// wrap writes text after the label, broken into lines of at most width
// characters where it can be, each next line indented as far as the label.
func wrap(label, text string, width int) string {
	var b strings.Builder
	b.WriteString(label)
	col := len(label)
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if i > 0 && col+1+n > width {
			b.WriteString("\n" + strings.Repeat(" ", len(label)))
			col = len(label)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String() + "\n"
}

// level describes the load of t under l, such as "200/s" or "c=50".
func (l *Load) level(t Trial) string {
	switch l.Mode {
	case Open:
		s := units.ExactRate(t.Rate)
		if l.Arrivals == "poisson" {
			s += " poisson"
		}
		return s
	case Closed:
		return "c=" + strconv.Itoa(t.Concurrency)
	case Ramp:
		return fmt.Sprintf("c=%d +%d/%s", t.Concurrency, l.Ramp.Burst, l.Ramp.Every)
	}
	return "sequential"
}

// warmupLevel describes the warm-up's load before t.
func (s *Spec) warmupLevel(l *Load, t Trial) string {
	w := s.Warmup
	switch {
	case w.Rate > 0:
		return units.ExactRate(w.Rate)
	case l.Mode == Open:
		return units.ExactRate(t.Rate * w.Share)
	case l.Mode == Closed:
		return "c=" + strconv.Itoa(share(t.Concurrency, w.Share))
	case l.Mode == Ramp:
		return fmt.Sprintf("c=%d +%d/%s", share(t.Concurrency, w.Share), l.Ramp.Burst, l.Ramp.Every)
	}
	return "sequential"
}

// lengthText describes how long a trial of l runs, such as "10s",
// "1000 req" or "10s or 1000 req" (whichever comes first).
func (l *Load) lengthText() string {
	switch {
	case l.Duration > 0 && l.Requests > 0:
		return l.Duration.String() + " or " + strconv.FormatInt(l.Requests, 10) + " req"
	case l.Requests > 0:
		return strconv.FormatInt(l.Requests, 10) + " req"
	}
	return l.Duration.String()
}

// How well the length of a trial is known.
const (
	lengthExact   = iota
	lengthUpTo    // it may end sooner, at its request count
	lengthUnknown // it ends at its request count, whenever that is
)

// length returns how long t runs under l: exactly, at most, or (0)
// unknown.
func (l *Load) length(t Trial) (time.Duration, int) {
	switch {
	case l.Requests == 0:
		return l.Duration, lengthExact
	case l.Mode == Open:
		d := time.Duration(float64(l.Requests) / t.Rate * float64(time.Second))
		if l.Duration > 0 && l.Duration < d {
			d = l.Duration
		}
		return d, lengthExact
	case l.Duration > 0:
		return l.Duration, lengthUpTo
	}
	return 0, lengthUnknown
}
