package analysis

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

func TestLoadDistributions(t *testing.T) {
	bad := []store.Flag{{Name: "errors", Reason: "2% errors"}}
	fewer := []store.Flag{{Name: "too_few_samples", Reason: "p99 needs 1000"}}
	// Run i of a group has counts {100·(i+1)}; latency 30 ms ± 1 ms.
	narrow := func(i int) time.Duration { return 29*time.Millisecond + time.Duration(i*7919%2000)*time.Microsecond }
	runs := []detailRun{
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 200}}, counts: []int{100}, latency: narrow},
		{trial: store.Trial{Variant: "filter", Level: record.Level{Rate: 100}}, counts: []int{300}, latency: narrow},
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 0}, counts: []int{1000, 1000}, latency: narrow},
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 1}, counts: []int{500}, latency: narrow, flags: bad},
		{trial: store.Trial{Variant: "plain", Level: record.Level{Rate: 100}, Rep: 2}, counts: []int{7}, latency: narrow, flags: fewer},
		{trial: store.Trial{Variant: "filter", Level: record.Level{Rate: 200}}, counts: []int{50}, latency: narrow, flags: bad},
	}
	db, exp := detailExperiment(t, runs...)
	type row struct {
		Variant string
		Level   Level
		Runs    int
		Count   int64
	}
	for _, tc := range []struct {
		name string
		opt  Options
		want []row
	}{
		{"valid only", Options{}, []row{
			{"plain", Level{Rate: 100}, 2, 2007},
			{"plain", Level{Rate: 200}, 1, 100},
			{"filter", Level{Rate: 100}, 1, 300},
			{"filter", Level{Rate: 200}, 0, 0},
		}},
		{"flagged too", Options{IncludeFlagged: true}, []row{
			{"plain", Level{Rate: 100}, 3, 2507},
			{"plain", Level{Rate: 200}, 1, 100},
			{"filter", Level{Rate: 100}, 1, 300},
			{"filter", Level{Rate: 200}, 1, 50},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := LoadDistributions(context.Background(), db, exp, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for _, d := range ds {
				got = append(got, row{d.Variant, d.Level, d.Runs, d.Count})
				checkDistribution(t, d)
				if d.Count > 0 && d.PDFLog {
					t.Errorf("%s %s: 30 ms ± 1 ms on log bins; want linear", d.Variant, d.Level)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// checkDistribution checks d's ladder and PDF against its count.
func checkDistribution(t *testing.T, d Distribution) {
	t.Helper()
	name := d.Variant + " " + d.Level.String()
	if d.Count == 0 {
		if d.Quantiles != nil || d.PDF != nil || !math.IsNaN(d.Max) {
			t.Errorf("%s: no samples, yet quantiles %v, PDF %v, max %v", name, d.Quantiles, d.PDF, d.Max)
		}
		return
	}
	qs := d.Quantiles
	for i := 1; i < len(qs); i++ {
		if qs[i].X <= qs[i-1].X || qs[i].Y < qs[i-1].Y {
			t.Errorf("%s: quantile %d %v not above %v", name, i, qs[i], qs[i-1])
		}
	}
	last := qs[len(qs)-1]
	if float64(d.Count) < 1/(1-last.X)-1e-9 || last.Y > d.Max {
		t.Errorf("%s: last quantile %v, from %d samples, max %v", name, last, d.Count, d.Max)
	}
	// The next rung would be n/a.
	if next := ladderNext(last.X); float64(d.Count) >= 1/(1-next)-1e-9 {
		t.Errorf("%s: ladder stops at %v, yet %d samples suffice for %v", name, last.X, d.Count, next)
	}
	if len(d.PDF) != pdfBins {
		t.Fatalf("%s: %d bins; want %d", name, len(d.PDF), pdfBins)
	}
	var sum float64
	for i, b := range d.PDF {
		sum += b.Share
		if b.Hi <= b.Lo || (i > 0 && b.Lo != d.PDF[i-1].Hi) || b.Share < 0 {
			t.Errorf("%s: bin %d %+v after %+v", name, i, b, d.PDF[max(i-1, 0)])
		}
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("%s: shares sum to %v; want 1", name, sum)
	}
	if top := d.PDF[pdfBins-1].Hi; top < d.Max || top > d.Max*1.001 {
		t.Errorf("%s: bins end at %v; want the max %v", name, top, d.Max)
	}
}

// ladderNext returns the rung after q on the ladder of 5 ticks.
func ladderNext(q float64) float64 {
	level := math.Floor(-math.Log2(1-q) + 1e-9)
	return q + math.Ldexp(1, -int(level)-1)/5
}

func TestLadder(t *testing.T) {
	h := record.NewHistogram()
	for i := 1; i <= 1_000_000; i++ {
		_ = h.RecordValue(int64(i) * int64(time.Microsecond))
	}
	qs := ladder(h)
	var xs []float64
	for _, p := range qs[:13] {
		xs = append(xs, p.X)
	}
	want := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.775, 0.8}
	if diff := cmp.Diff(want, xs, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("rungs (-want +got):\n%s", diff)
	}
	// HdrHistogram's own ladder at 5 ticks has the same rungs, as far as it
	// goes: it stops at the last bucket, then jumps to 100%.
	var hdrQ []float64
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		hdrQ = append(hdrQ, b.Quantile/100)
	}
	for _, p := range qs {
		if p.X > hdrQ[len(hdrQ)-2] {
			break
		}
		i, _ := slices.BinarySearch(hdrQ, p.X)
		near := math.Inf(1)
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(hdrQ) {
				near = min(near, math.Abs(hdrQ[j]-p.X)/(1-p.X))
			}
		}
		if near > 1e-9 {
			t.Errorf("rung %v is not on HdrHistogram's ladder (off by %.2g of 1−q)", p.X, near)
		}
		if want := time.Duration(h.ValueAtPercentile(100 * p.X)).Seconds(); p.Y != want {
			t.Errorf("rung %v: %v; want %v", p.X, p.Y, want)
		}
	}
	if last := qs[len(qs)-1].X; last > 1-1e-6 || ladderNext(last) <= 1-1e-6 {
		t.Errorf("a million samples: ladder ends at %v", last)
	}
}

func TestPDF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name   string
		draw   func() time.Duration
		log    bool
		lo, hi time.Duration // where the samples fall
	}{
		{"narrow", func() time.Duration { return 29*time.Millisecond + time.Duration(rng.IntN(2_000_000)) }, false, 29 * time.Millisecond, 31 * time.Millisecond},
		{"wide", func() time.Duration { return time.Duration(1e4 * math.Pow(1e5, rng.Float64())) }, true, 10 * time.Microsecond, time.Second},
		{"one value", func() time.Duration { return 5 * time.Millisecond }, false, 5 * time.Millisecond, 5*time.Millisecond + 5*time.Microsecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := record.NewHistogram()
			for range 100_000 {
				_ = h.RecordValue(int64(tc.draw()))
			}
			bins, log := pdf(h)
			if log != tc.log {
				t.Errorf("log %v; want %v", log, tc.log)
			}
			var sum, inside float64
			var used int
			for _, b := range bins {
				sum += b.Share
				if b.Lo >= tc.lo.Seconds()*0.95 && b.Hi <= tc.hi.Seconds()*1.01 { // HDR buckets are 512 ns wide below 1 ms
					inside += b.Share
				}
				if b.Share > 0 {
					used++
				}
			}
			if math.Abs(sum-1) > 1e-9 || inside < 0.99 {
				t.Errorf("shares sum to %v, %v between %v and %v; want 1, nearly all", sum, inside, tc.lo, tc.hi)
			}
			if tc.name != "one value" && used < pdfBins*9/10 {
				t.Errorf("%d of %d bins used; want nearly all", used, pdfBins)
			}
			// Uniform draws (in value or in log value) fill bins evenly.
			if tc.name != "one value" {
				for i, b := range bins[1 : pdfBins-1] {
					if math.Abs(b.Share-1.0/pdfBins) > 0.3/pdfBins {
						t.Errorf("bin %d %+v; want a share near %v", i+1, b, 1.0/pdfBins)
					}
				}
			}
		})
	}
}
