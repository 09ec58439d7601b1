package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// autoSpec is a spec of a baseline and a proxy at two rates under runs:
// runs; extra is appended.
func autoSpec(t *testing.T, runs, extra string) *spec.Spec {
	t.Helper()
	return mustParse(t, `version: 1
name: auto
variants:
  - {name: base, target: 'http://127.0.0.1:9000/'}
  - {name: proxy, target: 'http://127.0.0.1:9001/'}
load: {rates: [100, 200], duration: 1s}
seed: 3
runs: `+runs+"\n"+extra)
}

// synthetic is a run's p50 and p99, and whether it is flagged.
type synthetic struct {
	p50, p99 time.Duration
	flagged  bool
}

// syntheticRun returns a stored run of trial t that measured v.
func syntheticRun(t spec.Trial, id int, v synthetic) analysis.Run {
	r := analysis.Run{ID: int64(id), Trial: storeTrial(t), Position: t.Position, Status: store.Done}
	if v.flagged {
		r.Flags = []store.Flag{{Name: "trend", Reason: "synthetic"}}
	}
	for _, st := range spec.Stats {
		d := v.p50
		switch {
		case st.Q >= 0.99:
			d = v.p99 + time.Duration(st.Q*1000)*time.Nanosecond // rising past p99
		case st.Q > 0.5:
			d = v.p50 + time.Duration(st.Q*float64(v.p99-v.p50))
		}
		r.Latency = append(r.Latency, analysis.Value{Stat: st, Latency: d, OK: true, Count: 100000})
	}
	r.Service = r.Latency
	return r
}

// simulation is what an autoPlan ran on synthetic runs: the repetitions
// of each cell, in the order run, and why each variant's cell stopped.
type simulation struct {
	reps  map[string][]int // by "variant level"
	stops []analysis.Stop
}

// simulate runs s's plan under runs: auto to its end, each trial taking a
// second and measuring what measure gives it.
func simulate(t *testing.T, s *spec.Spec, measure func(t spec.Trial) synthetic) simulation {
	t.Helper()
	p := newAutoPlan(s, s.Plan(*s.Seed))
	d := &autoData{took: map[int]trialTimes{}, done: map[store.Trial]bool{}}
	sim := simulation{reps: map[string][]int{}}
	for {
		batch := p.batch(d)
		if len(batch) == 0 {
			break
		}
		for _, tr := range batch {
			r := syntheticRun(tr, len(d.all)+1, measure(tr))
			d.runs, d.all = append(d.runs, r), append(d.all, r)
			d.done[r.Trial] = true
			tt := d.took[tr.Rep]
			d.took[tr.Rep] = trialTimes{n: tt.n + 1, sum: tt.sum + time.Second}
			k := tr.Variant + " " + tr.Level.String()
			sim.reps[k] = append(sim.reps[k], tr.Rep)
		}
	}
	if !p.ended {
		t.Fatal("the plan ran out of trials without ending")
	}
	sim.stops = p.Stops()
	return sim
}

// noise returns a synthetic measure: p50 100µs and p99 400µs, each run's
// spread by up to a share spread of it, drawn from seed, and the proxy's
// shifted by shift.
func noise(seed uint64, spread float64, shift time.Duration) func(spec.Trial) synthetic {
	rng := rand.New(rand.NewPCG(seed, 1))
	return func(t spec.Trial) synthetic {
		f := func(d time.Duration) time.Duration {
			return time.Duration(float64(d) * (1 + spread*(2*rng.Float64()-1)))
		}
		v := synthetic{p50: f(100 * time.Microsecond), p99: f(400 * time.Microsecond)}
		if t.Variant == "proxy" {
			v.p50, v.p99 = v.p50+shift, v.p99+shift
		}
		return v
	}
}

// TestAutoStopsOnPrecision feeds the stopping rule synthetic runs: cells
// whose runs agree stop at min, noisy ones run to max, each variant's
// cell with its baseline's beside it, and each stop says why.
func TestAutoStopsOnPrecision(t *testing.T) {
	s := autoSpec(t, "{min: 6, max: 14, precision: 10%, quantiles: [p50, p99]}", "")
	t.Run("tight", func(t *testing.T) {
		sim := simulate(t, s, noise(1, 0.001, 10*time.Microsecond))
		for k, reps := range sim.reps {
			if len(reps) != 6 {
				t.Errorf("%s ran reps %v; want the first 6 only", k, reps)
			}
		}
		for _, st := range sim.stops {
			if st.Reason != analysis.StopPrecise || st.Runs != 6 || len(st.Widths) != 2 || !analysis.Precise(st.Widths) {
				t.Errorf("stop %s; want precise after 6 runs at p50 and p99", st)
			}
		}
		if len(sim.stops) != 2 {
			t.Errorf("stops %v; want the proxy's at both rates", sim.stops)
		}
	})
	t.Run("noisy", func(t *testing.T) {
		sim := simulate(t, s, noise(2, 0.6, 10*time.Microsecond))
		for k, reps := range sim.reps {
			if len(reps) != 14 {
				t.Errorf("%s ran %d reps; want max, 14", k, len(reps))
			}
		}
		for _, st := range sim.stops {
			if st.Reason != analysis.StopMax || st.Runs != 14 || analysis.Precise(st.Widths) || !strings.Contains(st.String(), "max reached after 14 runs, not precise") {
				t.Errorf("stop %s; want max reached after 14 runs, not precise", st)
			}
		}
	})
	t.Run("one level noisy", func(t *testing.T) {
		tight, noisy := noise(3, 0.001, 10*time.Microsecond), noise(4, 0.6, 10*time.Microsecond)
		sim := simulate(t, s, func(t spec.Trial) synthetic {
			if t.Rate == 200 {
				return noisy(t)
			}
			return tight(t)
		})
		want := map[string]int{"base 100/s": 6, "proxy 100/s": 6, "base 200/s": 14, "proxy 200/s": 14}
		for k, n := range want {
			if got := sim.reps[k]; len(got) != n {
				t.Errorf("%s ran reps %v; want %d", k, got, n)
			}
		}
		// The baseline at 200/s ran each repetition its proxy ran.
		if !cmp.Equal(sim.reps["base 200/s"], sim.reps["proxy 200/s"]) {
			t.Errorf("at 200/s the baseline ran reps %v and the proxy %v; want the same", sim.reps["base 200/s"], sim.reps["proxy 200/s"])
		}
	})
}

// TestAutoIgnoresTheVerdict shifts the proxy by nothing and by far more
// than the noise: the tests' p-values part from one another, the
// intervals' widths do not, and, judged by the width against the
// baseline alone (relative: off), neither does any decision.
func TestAutoIgnoresTheVerdict(t *testing.T) {
	s := autoSpec(t, "{min: 6, max: 30, precision: 12%, relative: off}", "")
	none := simulate(t, s, noise(5, 0.15, 0))
	far := simulate(t, s, noise(5, 0.15, 500*time.Microsecond))
	if diff := cmp.Diff(none.reps, far.reps); diff != "" {
		t.Errorf("the repetitions run depend on the difference (-none +far):\n%s", diff)
	}
	spread := false
	for _, reps := range none.reps {
		spread = spread || len(reps) > 6 && len(reps) < 30
	}
	if !spread {
		t.Fatalf("no cell stopped between min and max: the test shows nothing (%v)", none.reps)
	}
	for i := range none.stops {
		a, b := none.stops[i], far.stops[i]
		if a.Reason != b.Reason || a.Runs != b.Runs {
			t.Errorf("stop %s without a difference, %s with one", a, b)
		}
		for j := range a.Widths {
			if math.Abs(a.Widths[j].Width-b.Widths[j].Width) > 1e-9 {
				t.Errorf("%s: width %g without a difference, %g with one", a.Widths[j].Stat, a.Widths[j].Width, b.Widths[j].Width)
			}
		}
	}
	// The verdicts differ: what the rule does not read.
	p := func(sim func(spec.Trial) synthetic) float64 {
		var runs []analysis.Run
		for i, tr := range s.Plan(3)[:24] {
			runs = append(runs, syntheticRun(tr, i+1, sim(tr)))
		}
		for _, c := range analysis.Overheads(analysis.Aggregate(runs, analysis.Options{}), "base") {
			return c.P
		}
		return math.NaN()
	}
	if pn, pf := p(noise(6, 0.15, 0)), p(noise(6, 0.15, 500*time.Microsecond)); !(pf < 0.05 && pn > 0.05) {
		t.Errorf("p-values %g without a difference and %g with one; want them to part at 0.05", pn, pf)
	}
}

// TestAutoRelative: with relative: 50% beside the width against the
// baseline, an overhead far larger than its noise is precise at min,
// while without one every decision is the width's alone, as with
// relative: off.
func TestAutoRelative(t *testing.T) {
	on := autoSpec(t, "{min: 6, max: 30, precision: 12%, relative: 50%}", "")
	off := autoSpec(t, "{min: 6, max: 30, precision: 12%, relative: off}", "")
	far := simulate(t, on, noise(5, 0.15, 500*time.Microsecond))
	for _, st := range far.stops {
		if st.Reason != analysis.StopPrecise || st.Runs != 6 || !strings.Contains(st.String(), "of the overhead") {
			t.Errorf("a 500µs overhead: stop %s; want precise after 6 runs, against 50%% of the overhead", st)
		}
	}
	none, alone := simulate(t, on, noise(5, 0.15, 0)), simulate(t, off, noise(5, 0.15, 0))
	if diff := cmp.Diff(alone.reps, none.reps); diff != "" {
		t.Errorf("without an overhead, relative: 50%% changed the repetitions run (-off +on):\n%s", diff)
	}
}

// TestAutoFlaggedRuns: flagged runs count towards max, never towards
// precision: a cell whose runs are all flagged has no interval and runs
// to max, saying how many it left out.
func TestAutoFlaggedRuns(t *testing.T) {
	s := autoSpec(t, "{min: 6, max: 9}", "")
	tight := noise(7, 0.001, 10*time.Microsecond)
	sim := simulate(t, s, func(tr spec.Trial) synthetic {
		v := tight(tr)
		v.flagged = tr.Variant == "proxy" && tr.Rate == 200
		return v
	})
	want := map[string]int{"base 100/s": 6, "proxy 100/s": 6, "base 200/s": 9, "proxy 200/s": 9}
	for k, n := range want {
		if got := len(sim.reps[k]); got != n {
			t.Errorf("%s ran %d reps; want %d", k, got, n)
		}
	}
	last := sim.stops[len(sim.stops)-1]
	if last.Reason != analysis.StopMax || last.Runs != 9 || last.LeftOut != 9 || !strings.Contains(last.String(), "9 flagged or unfinished, left out") {
		t.Errorf("stop %s; want max after 9 runs, all 9 left out", last)
	}
}

// TestAutoBudget stops every open cell before the repetition that would
// pass the budget: trials of a second each, 4 a repetition.
func TestAutoBudget(t *testing.T) {
	s := autoSpec(t, "{min: 6, max: 30, budget: 33s}", "")
	sim := simulate(t, s, noise(8, 0.6, 0))
	total := 0
	for _, reps := range sim.reps {
		total += len(reps)
	}
	// 6 × 4 = 24 s, then 28 and 32 s; a ninth repetition would reach 36.
	if total != 32 {
		t.Errorf("%d trials ran; want 32, 8 repetitions of 4", total)
	}
	for _, st := range sim.stops {
		if st.Reason != analysis.StopBudget || st.Runs != 8 {
			t.Errorf("stop %s; want budget spent after 8 runs", st)
		}
	}
}

// TestAutoNothingToCompare: a variant at a level its baseline does not
// run, and the baseline alone, stop at min, saying so.
func TestAutoNothingToCompare(t *testing.T) {
	s := mustParse(t, `version: 1
name: auto
variants:
  - {name: base, target: 'http://127.0.0.1:9000/'}
  - {name: proxy, target: 'http://127.0.0.1:9001/', load: {rates: [100, 300]}}
load: {rates: [100], duration: 1s}
seed: 3
runs: {min: 6, max: 10}
`)
	sim := simulate(t, s, noise(9, 0.001, 0))
	got := fmt.Sprint(sim.stops)
	if len(sim.stops) != 2 || sim.stops[1].Reason != analysis.StopUnjudged || sim.stops[1].Runs != 6 || len(sim.reps["proxy 300/s"]) != 6 {
		t.Errorf("stops %s; want proxy 300/s with nothing to compare after 6 runs", got)
	}
	alone := simulate(t, mustParse(t, `version: 1
name: alone
variants: [{name: base, target: 'http://127.0.0.1:9000/'}]
load: {rates: [100], duration: 1s}
seed: 3
runs: auto
`), noise(10, 0.5, 0))
	if len(alone.stops) != 1 || alone.stops[0].Reason != analysis.StopUnjudged || len(alone.reps["base 100/s"]) != 6 {
		t.Errorf("the baseline alone: stops %v after reps %v; want nothing to compare after 6", alone.stops, alone.reps)
	}
}
