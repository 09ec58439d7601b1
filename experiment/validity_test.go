package experiment

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/probe"
	"github.com/latlab/latlab/record"
)

// synthLatency draws a realistic latency for request i of n: log-normal around
// 10 ms with a 1% tail five times slower, times a linear rise of rise over
// the run.
func synthLatency(rng *rand.Rand, i, n int, rise float64) time.Duration {
	v := 10e6 * math.Exp(0.4*rng.NormFloat64())
	if rng.Float64() < 0.01 {
		v *= 5
	}
	return time.Duration(v * (1 + rise*float64(i)/float64(n)))
}

// synth describes a run for the validity tests.
type synth struct {
	n      int     // requests
	rate   float64 // open loop: requests per second; 0 is closed loop, one per ms
	seed   uint64
	lag    time.Duration
	rise   float64
	unsent int64
	fail   func(i int) (int, record.ErrorClass) // nil: every request succeeds
}

// buildRun records s with a real Recorder and cuts the 1 s intervals from the
// raw samples (without Start the recorder would put all in one interval).
func buildRun(t *testing.T, s synth) *record.Result {
	t.Helper()
	rng := rand.New(rand.NewPCG(s.seed, 42))
	rec := record.NewRecorder(time.Now(), record.Config{KeepRaw: int64(s.n)})
	every := time.Millisecond
	if s.rate > 0 {
		every = time.Duration(float64(time.Second) / s.rate)
	}
	for i := range s.n {
		in := time.Duration(i) * every
		smp := record.Sample{Intended: in, Sent: in + s.lag, Done: in + s.lag + synthLatency(rng, i, s.n, s.rise), Code: 200}
		if s.fail != nil {
			smp.Code, smp.Error = s.fail(i)
			if smp.Error != record.OK {
				smp.Err = errors.New(smp.Error.String())
			}
		}
		rec.Sent()
		rec.Record(0, &smp)
	}
	res := rec.Stop()
	res.TargetRate, res.Unsent, res.Mode = s.rate, s.unsent, "open"
	if s.rate == 0 {
		res.Mode = "closed"
	}
	res.Intervals = nil
	for _, r := range res.Raw {
		k := int(r.Done / time.Second)
		for len(res.Intervals) <= k {
			j := time.Duration(len(res.Intervals))
			res.Intervals = append(res.Intervals, record.Interval{Start: j * time.Second, End: (j + 1) * time.Second})
		}
		iv := &res.Intervals[k]
		iv.Completed++
		if r.Error != record.OK {
			iv.Errors++
		} else if r.Code >= 400 {
			iv.Unsuccessful++
		}
	}
	return res
}

// failEvenly fails count of n requests, evenly, with code or class.
func failEvenly(count, n, code int, class record.ErrorClass) func(int) (int, record.ErrorClass) {
	return func(i int) (int, record.ErrorClass) {
		if i%(n/count) == 0 && i/(n/count) < count {
			return code, class
		}
		return 200, record.OK
	}
}

// failFirst fails the first count requests with class.
func failFirst(count int, class record.ErrorClass) func(int) (int, record.ErrorClass) {
	return func(i int) (int, record.ErrorClass) {
		if i < count {
			return 0, class
		}
		return 200, record.OK
	}
}

// cpuPoints returns process probe points of one process, one per value.
func cpuPoints(pid, comm, role string, cpus float64, values ...float64) []probe.Point {
	labels := map[string]string{"pid": pid, "comm": comm, "role": role}
	pts := []probe.Point{{Probe: "process", Series: "cpus_allowed", Labels: labels, Value: cpus}}
	for i, v := range values {
		pts = append(pts, probe.Point{Probe: "process", Series: "cpu_allowed_percent", Labels: labels, T: time.Duration(i) * time.Second, Value: v},
			probe.Point{Probe: "process", Series: "cpu_percent", Labels: labels, T: time.Duration(i) * time.Second, Value: v * cpus})
	}
	return pts
}

// childPoints returns process probe points of a process under root.
func childPoints(pid, root, comm string, cpus float64, values ...float64) []probe.Point {
	pts := cpuPoints(pid, comm, "target", cpus, values...)
	labels := map[string]string{"pid": pid, "comm": comm, "role": "target", "root": root}
	for i := range pts {
		pts[i].Labels = labels
	}
	return pts
}

func TestValidityCheck(t *testing.T) {
	steady := synth{n: 2000, rate: 200, seed: 1, lag: 100 * time.Microsecond}
	with := func(s synth, f func(*synth)) synth { f(&s); return s }
	sibs := []synth{with(steady, func(s *synth) { s.seed = 2 }), with(steady, func(s *synth) { s.seed = 3 })}
	cool := append(cpuPoints("42", "nginx", "target", 2, 30, 35, 40), cpuPoints("7", "latlab", "latlab", 4, 99, 99)...)
	burst := synth{n: 4000, rate: 400, seed: 5, fail: failFirst(30, record.Timeout)}
	even := with(burst, func(s *synth) { s.fail = failEvenly(30, 4000, 0, record.Timeout) })
	tests := []struct {
		name        string
		run         synth
		interrupted bool
		points      []probe.Point
		siblings    []synth
		want        []string
		reason      string // a part of the first flag's reason
	}{
		{name: "clean", run: steady, points: cool, siblings: sibs},
		{name: "closed loop ignores lag", run: with(steady, func(s *synth) { s.rate, s.lag = 0, 50*time.Millisecond })},
		{name: "interrupted", run: steady, interrupted: true, want: []string{FlagInterrupted}, reason: "2000 completed requests"},
		{name: "achieved low", run: with(steady, func(s *synth) { s.unsent = 200 }),
			want: []string{FlagGeneratorSaturated}, reason: "achieved 182/s of 200/s (90.9% < 99%)"},
		{name: "achieved at bound", run: with(steady, func(s *synth) { s.n, s.unsent = 1980, 20 })},
		{name: "lag high", run: with(steady, func(s *synth) { s.lag = 8 * time.Millisecond }),
			want: []string{FlagGeneratorSaturated}, reason: "lag p99 8"},
		{name: "target cpu high", run: steady, points: append(cpuPoints("43", "nginx", "target", 2, 80, 90), cool...),
			want: []string{FlagTargetCPUHigh}, reason: "target nginx (pid 43) used 85.0% of the 2 CPUs it may use"},
		{name: "target cpu at bound", run: steady, points: cpuPoints("42", "nginx", "target", 2, 70, 80)},
		// A master that idles while its worker spins: the worker counts.
		{name: "target child cpu high", run: steady, points: append(cpuPoints("50", "stress-ng", "target", 1, 0, 0),
			childPoints("51", "50", "stress-ng-cpu", 1, 92, 94)...),
			want: []string{FlagTargetCPUHigh}, reason: "target stress-ng (pid 50) with 1 process(es) under it used 93.0% of the 1 CPU it may use" +
				" on average over 2 samples (> 75%), most in stress-ng-cpu (pid 51) at 93.0%"},
		// Two workers, each within the budget, over it together.
		{name: "target children add up", run: steady, points: append(append(cpuPoints("60", "nginx", "target", 2, 0, 0),
			childPoints("61", "60", "nginx", 2, 40, 40)...), childPoints("62", "60", "nginx", 2, 40, 40)...),
			want: []string{FlagTargetCPUHigh}, reason: "target nginx (pid 60) with 2 process(es) under it used 80.0%"},
		{name: "errors", run: with(steady, func(s *synth) { s.fail = failEvenly(50, 2000, 0, record.Timeout) }),
			want: []string{FlagErrors}, reason: "2.50% of 2000 requests failed (50 errors, 0 unsuccessful responses) > 1%"},
		{name: "unsuccessful", run: with(steady, func(s *synth) { s.fail = failEvenly(40, 2000, 503, record.OK) }),
			want: []string{FlagErrors}, reason: "(0 errors, 40 unsuccessful responses)"},
		{name: "errors at bound", run: with(steady, func(s *synth) { s.fail = failEvenly(20, 2000, 0, record.Timeout) })},
		{name: "too few", run: with(steady, func(s *synth) { s.n, s.rate = 500, 50 }),
			want: []string{FlagTooFewSamples}, reason: "only 500 requests, p99 needs 1000: p99 low-confidence; p99.9 n/a"},
		{name: "far too few", run: with(steady, func(s *synth) { s.n, s.rate = 50, 5 }),
			want: []string{FlagTooFewSamples}, reason: "only 50 requests, p99 needs 1000: p90 low-confidence; p99, p99.9 n/a"},
		{name: "samples at bound", run: with(steady, func(s *synth) { s.n = 1000 })},
		{name: "trend", run: with(steady, func(s *synth) { s.rise = 0.3 }), want: []string{FlagTrend}, reason: "(> 10%, validity.max_trend), and "},
		{name: "new failure kind", run: with(steady, func(s *synth) { s.fail = failEvenly(10, 2000, 0, record.Timeout) }), siblings: sibs,
			want: []string{FlagInconsistent}, reason: "timeout: 10 of 2000 requests here (100% of the failures), in none of 2 siblings"},
		{name: "missing failure kind", run: steady, siblings: []synth{
			with(steady, func(s *synth) { s.fail = failEvenly(10, 2000, 503, record.OK) }),
			with(steady, func(s *synth) { s.seed, s.fail = 7, failEvenly(10, 2000, 503, record.OK) })},
			want: []string{FlagInconsistent}, reason: "status 503: a failure kind of 2 of 2 siblings, none here"},
		{name: "same failure kind", run: with(steady, func(s *synth) { s.fail = failEvenly(10, 2000, 0, record.Timeout) }),
			siblings: []synth{with(steady, func(s *synth) { s.seed, s.fail = 2, failEvenly(10, 2000, 0, record.Timeout) })}},
		{name: "failures at the noise floor", run: with(steady, func(s *synth) { s.fail = failEvenly(2, 2000, 0, record.Timeout) }), siblings: sibs},
		{name: "burst", run: burst, siblings: []synth{even, with(even, func(s *synth) { s.seed = 6 })},
			want: []string{FlagInconsistent}, reason: "30 of 30 failures (100%) fell in 1 of 11 intervals"},
		{name: "burst like a sibling", run: burst, siblings: []synth{even, with(burst, func(s *synth) { s.seed = 6 })}},
		{name: "burst without siblings", run: burst},
		{name: "flags in order", run: with(steady, func(s *synth) { s.n, s.rate, s.unsent, s.fail = 500, 50, 500, failEvenly(50, 500, 0, record.Reset) }),
			interrupted: true,
			want:        []string{FlagInterrupted, FlagGeneratorSaturated, FlagErrors, FlagTooFewSamples}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := RunCheck{Result: buildRun(t, tt.run), Points: tt.points}
			c.Result.Interrupted = tt.interrupted
			for _, s := range tt.siblings {
				c.Siblings = append(c.Siblings, buildRun(t, s))
			}
			flags := Flags(spec.DefaultValidity(), c)
			t.Logf("%q", flags)
			var got []string
			for _, f := range flags {
				got = append(got, f.Name)
				if f.Reason == "" {
					t.Errorf("%s has no reason", f.Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("flags (-want +got):\n%s\n%v", diff, flags)
			}
			if tt.reason != "" && !strings.Contains(flags[0].Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", flags[0].Reason, tt.reason)
			}
		})
	}
}

// TestCheckSamplesFor holds too_few_samples to the percentile the spec's
// validity.samples_for names: a run of 150 requests carries a p90, not a
// p99.
func TestCheckSamplesFor(t *testing.T) {
	run := buildRun(t, synth{n: 150, rate: 50, seed: 1})
	v := spec.DefaultValidity()
	if got := Flags(v, RunCheck{Result: run}); len(got) != 1 || got[0].Name != FlagTooFewSamples {
		t.Fatalf("p99 by default: flags %v, want too_few_samples", got)
	}
	v.SamplesFor = 0.9
	if got := Flags(v, RunCheck{Result: run}); len(got) != 0 {
		t.Errorf("samples_for p90 with 150 requests: flags %v, want none", got)
	}
	few := buildRun(t, synth{n: 60, rate: 50, seed: 1})
	got := Flags(v, RunCheck{Result: few})
	if len(got) != 1 || !strings.HasPrefix(got[0].Reason, "only 60 requests, p90 needs 100: p90 low-confidence") {
		t.Errorf("samples_for p90 with 60 requests: flags %q, want too_few_samples for p90", got)
	}
}

func TestCheckNilResult(t *testing.T) {
	if got := Flags(spec.DefaultValidity(), RunCheck{}); got != nil {
		t.Errorf("Check of no result = %v, want none", got)
	}
}

func TestCheckSuccessCodes(t *testing.T) {
	res := buildRun(t, synth{n: 2000, rate: 200, seed: 1, fail: failEvenly(10, 2000, 404, record.OK)})
	sib := buildRun(t, synth{n: 2000, rate: 200, seed: 2})
	res.Unsuccessful = 0 // 404 counts as success here, as the recorder would have it
	ok, err := record.ParseCodeSet("200-299,404")
	if err != nil {
		t.Fatal(err)
	}
	c := RunCheck{Result: res, Siblings: []*record.Result{sib}, Success: &ok}
	if got := Flags(spec.DefaultValidity(), c); len(got) != 0 {
		t.Errorf("404 in the success set: flags %v, want none", got)
	}
	c.Success, res.Unsuccessful = nil, 10
	if got := Flags(spec.DefaultValidity(), c); len(got) != 1 || got[0].Name != FlagInconsistent {
		t.Errorf("404 unsuccessful: flags %v, want inconsistent", got)
	}
}

// synthRaw returns n raw samples, 1 ms apart, of latency with the given rise.
func synthRaw(seed uint64, n int, rise float64) []record.Raw {
	rng := rand.New(rand.NewPCG(seed, 7))
	raw := make([]record.Raw, n)
	for i := range raw {
		in := time.Duration(i) * time.Millisecond
		raw[i] = record.Raw{Intended: in, Sent: in, Done: in + synthLatency(rng, i, n, rise), Code: 200}
	}
	return raw
}

// trendFires counts the seeds 1…50 on which v flags n samples with rise.
func trendFires(v spec.Validity, n int, rise float64) int {
	fired := 0
	for seed := range uint64(50) {
		if trendReason(v, synthRaw(seed+1, n, rise)) != "" {
			fired++
		}
	}
	return fired
}

func TestTrendRates(t *testing.T) {
	ciOnly := spec.DefaultValidity()
	ciOnly.MaxTrend = 0 // the CI alone decides
	tests := []struct {
		name     string
		v        spec.Validity
		n        int
		rise     float64
		min, max int // of 50 seeds
	}{
		{"flat", spec.DefaultValidity(), 10000, 0, 0, 2},
		{"flat, CI alone", ciOnly, 10000, 0, 0, 6},
		{"flat, few samples", spec.DefaultValidity(), 500, 0, 0, 2},
		{"20% rise", spec.DefaultValidity(), 10000, 0.2, 48, 50},
		{"20% fall", spec.DefaultValidity(), 10000, -0.2 / 1.2, 0, 0},
		{"5% rise under the bound", spec.DefaultValidity(), 10000, 0.05, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := trendFires(tt.v, tt.n, tt.rise)
			t.Logf("fired on %d of 50 seeds", got)
			if got < tt.min || got > tt.max {
				t.Errorf("fired on %d of 50 seeds, want %d to %d", got, tt.min, tt.max)
			}
		})
	}
}

func TestTrendHugeRun(t *testing.T) {
	v := spec.DefaultValidity()
	if why := trendReason(v, synthRaw(1, 400_000, 0)); why != "" {
		t.Errorf("flat run of 400,000 flagged: %s", why)
	}
	if why := trendReason(v, synthRaw(1, 400_000, 0.2)); !strings.Contains(why, "over 360000 requests") {
		t.Errorf("rising run of 400,000: reason %q, want a rise over 360000 requests", why)
	}
}

func TestTrendTooFewSamples(t *testing.T) {
	if why := trendReason(spec.DefaultValidity(), synthRaw(1, 199, 5)); why != "" {
		t.Errorf("199 samples flagged: %s", why)
	}
	if why := trendReason(spec.DefaultValidity(), synthRaw(1, 200, 5)); why == "" {
		t.Error("200 samples of a steep rise not flagged")
	}
}

func TestTrendAtBound(t *testing.T) {
	raw := synthRaw(3, 10000, 0.2)
	f, ok := analysis.FitTrend(raw, analysis.ServiceTime)
	if !ok || f.Lo <= 0 {
		t.Fatalf("fit %+v, ok %v: want a slope above zero", f, ok)
	}
	// The smallest MaxTrend with MaxTrend × median ≥ rise is the bound.
	v := spec.DefaultValidity()
	v.MaxTrend = f.Rise / f.Median
	for v.MaxTrend*f.Median < f.Rise {
		v.MaxTrend = math.Nextafter(v.MaxTrend, 1)
	}
	if why := trendReason(v, raw); why != "" {
		t.Errorf("rise exactly at the bound flagged: %s", why)
	}
	v.MaxTrend = math.Nextafter(v.MaxTrend, 0)
	if why := trendReason(v, raw); why == "" {
		t.Error("rise just past the bound not flagged")
	}
}

// stalledRaw returns n raw samples due 1 ms apart from a generator that
// stalls: before request i it stalls with probability p, for a time drawn
// uniformly up to stall(i), and at the end of a stall sends at once every
// request that fell due in it, late, as a generator does after a
// collection or on a busy machine. The target's service time is
// synthLatency's, rising by rise over the run.
func stalledRaw(seed uint64, n int, rise, p float64, stall func(i int) time.Duration) []record.Raw {
	rng := rand.New(rand.NewPCG(seed, 13))
	raw := make([]record.Raw, n)
	var free time.Duration // when the generator is next able to send
	for i := range raw {
		in := time.Duration(i) * time.Millisecond
		if rng.Float64() < p {
			free = max(free, in) + time.Duration(rng.Float64()*float64(stall(i)))
		}
		sent := max(in, free) + 20*time.Microsecond
		raw[i] = record.Raw{Intended: in, Sent: sent, Done: sent + synthLatency(rng, i, n, rise), Code: 200}
	}
	return raw
}

// TestTrendGeneratorStalls judges the target on its service time when the
// generator stalls, over 20 seeds. Fitted on latency, which holds the
// lag, the first case is flagged on every seed, the second on none, and
// the third, a clean run, on some.
func TestTrendGeneratorStalls(t *testing.T) {
	const n = 10_000
	for _, tc := range []struct {
		name     string
		rise     float64 // of service time
		p        float64
		stall    func(i int) time.Duration
		min, max int // of 20 seeds
	}{
		// Stalls of up to 40 ms, one request in 50, longer as the run goes
		// on: the lag rises, the target does nothing different.
		{"lag rises, service time flat", 0, 0.02,
			func(i int) time.Duration { return 40 * time.Millisecond * time.Duration(i) / n }, 0, 1},
		// Stalls of up to 160 ms, one request in 200, throughout: lag
		// spikes swamp the group medians of latency and hide a target
		// slowing down by 30%.
		{"service time rises under lag spikes", 0.3, 0.005,
			func(int) time.Duration { return 160 * time.Millisecond }, 19, 20},
		{"service time flat under lag spikes", 0, 0.003,
			func(int) time.Duration { return 300 * time.Millisecond }, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := spec.DefaultValidity()
			fired := 0
			for seed := range uint64(20) {
				why := trendReason(v, stalledRaw(seed+1, n, tc.rise, tc.p, tc.stall))
				if why == "" {
					continue
				}
				fired++
				if !strings.HasPrefix(why, "service time rises by ") {
					t.Errorf("seed %d: reason %q; want it to say service time rises", seed+1, why)
				}
			}
			if fired < tc.min || fired > tc.max {
				t.Errorf("flagged trend on %d of 20 seeds; want %d to %d", fired, tc.min, tc.max)
			}
		})
	}
}
