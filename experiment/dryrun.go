package experiment

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// WritePlan writes trials, a plan of s or what is left of one, as latlab run
// --dry-run shows it: one line per trial with its position, variant, load,
// repetition, length and warm-up, then the totals and the time they take
// (setup, readiness and teardown not counted).
func (s *Spec) WritePlan(w io.Writer, trials []Trial) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "experiment %s: %s, %s, order %s, restart %s, baseline %s\n\n",
		s.Name, plural(len(s.Variants), "variant"), plural(s.Runs, "run"), s.Order, s.Restart, s.Baseline)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tvariant\tload\trep\tlength\twarm-up")
	var measured, warm time.Duration
	upTo, unknown := 0, 0 // trials that may end sooner; whose length depends on the target
	for _, t := range trials {
		v := s.Variant(t.Variant)
		if v == nil {
			fmt.Fprintf(tw, "%d\t%s\t?\t%d\t?\t?\n", t.Position, t.Variant, t.Rep)
			unknown++
			continue
		}
		l := &v.Load
		d, kind := l.length(t)
		measured += d
		switch kind {
		case lengthUpTo:
			upTo++
		case lengthUnknown:
			unknown++
		}
		wu := "-"
		if s.Warmup != nil {
			wu = s.Warmup.Duration.String() + " at " + s.warmupLevel(l, t)
			warm += s.Warmup.Duration
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", t.Position, t.Variant, l.level(t), t.Rep, l.lengthText(), wu)
	}
	tw.Flush()
	load, all := round(measured).String(), round(measured+warm).String()
	switch {
	case unknown > 0:
		load = fmt.Sprintf("at least %s (%s until a request count, as fast as the target answers)", load, plural(unknown, "trial runs", "trials run"))
		all = "at least " + all
	case upTo > 0:
		load, all = "at most "+load, "at most "+all
	default:
		all = "about " + all
	}
	fmt.Fprintf(ew, "\n%s\nload:     %s\nwarm-up:  %s\nin all:   %s, not counting setup, readiness and teardown\n",
		plural(len(trials), "trial"), load, round(warm), all)
	if c := s.CPUs; c.Load != "" || c.Targets != "" {
		fmt.Fprintf(ew, "cpus:     %s\n", c.describe())
	}
	return ew.err
}

// level describes the load of t under l, such as "200/s" or "c=50".
func (l *Load) level(t Trial) string {
	switch l.Mode {
	case Open:
		s := strconv.FormatFloat(t.Rate, 'g', -1, 64) + "/s"
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
		return strconv.FormatFloat(w.Rate, 'g', -1, 64) + "/s"
	case l.Mode == Open:
		return strconv.FormatFloat(t.Rate*w.Share, 'g', -1, 64) + "/s"
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

// round rounds d to a second, or a millisecond below a second.
func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// plural writes n and its noun: the singular, the plural given or the
// singular with an s.
func plural(n int, forms ...string) string {
	switch {
	case n == 1:
		return "1 " + forms[0]
	case len(forms) > 1:
		return strconv.Itoa(n) + " " + forms[1]
	}
	return strconv.Itoa(n) + " " + forms[0] + "s"
}

// errWriter keeps the first error of its writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
