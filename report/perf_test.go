package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/store"
)

// perfDBEnv names the results database that TestWritePerfDB writes and
// BenchmarkReportHTML reads. Without it both skip:
//
//	LATLAB_PERF_DB=/tmp/perf.db go test -run WritePerfDB ./report
//	LATLAB_PERF_DB=/tmp/perf.db go test -run '^$' -bench ReportHTML ./report
const perfDBEnv = "LATLAB_PERF_DB"

// The perf fixture is the rich fixture's study at full size: the same
// three variants, at three rates, five runs each, every run with a
// one-second warm-up, per-second intervals and all of its 111,112
// requests stored raw, 5,000,040 samples in all.
var perfRates = []float64{500, 1000, 2000}

const (
	perfRequests = 111_112 // per run
	perfSpec     = "version: 1\nname: perf-5m\nbaseline: plain\nvariants:\n  - name: plain\n  - name: proxy\n  - name: filter\nvalidity: {cpu_budget: 60%}\n"
)

// TestWritePerfDB writes the perf fixture to $LATLAB_PERF_DB, which must
// not exist yet, for measuring latlab report on a large experiment.
func TestWritePerfDB(t *testing.T) {
	path := os.Getenv(perfDBEnv)
	if path == "" {
		t.Skip("set " + perfDBEnv + "=/path/results.db to write the 5M-sample fixture")
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: want a path that does not exist yet (stat: %v)", path, err)
	}
	if err := perfDB(t.Context(), path); err != nil {
		t.Fatal(err)
	}
}

func perfDB(ctx context.Context, path string) error {
	db, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: "perf-5m", Spec: perfSpec, CreatedAt: time.Now(),
		Provenance: store.Provenance{Host: "lab-2", LatlabVersion: "v0.0.0-test"}})
	if err != nil {
		return err
	}
	pos := 0
	for rep := 1; rep <= richReps; rep++ {
		for _, rate := range perfRates {
			for vi, v := range richVariants {
				rng := rand.New(rand.NewPCG(uint64(vi+1), uint64(rate)*10+uint64(rep)))
				// A Recorder catches its intervals up from its start, so
				// the runs start now, not at some fixed date.
				start := time.Now()
				length := time.Duration(perfRequests / rate * float64(time.Second))
				info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate}, Rep: rep},
					Position: pos, Status: store.Done, StartedAt: start.Add(-time.Second), EndedAt: start.Add(length)}
				drift := v == "filter" && rate == perfRates[len(perfRates)-1]
				if drift {
					info.Flags = []store.Flag{{Name: "trend", Reason: "service time rises by 180µs over 111112 requests"}}
				}
				warm := perfPhase(rng, start.Add(-time.Second), v, rate, int(rate), false, false)
				res := perfPhase(rng, start, v, rate, perfRequests, drift, true)
				if _, err := db.WriteRun(ctx, exp.ID, info, res, warm, richProbes(rng, v, rate, start), richProfiles(rep, start)); err != nil {
					return fmt.Errorf("run %d: %w", pos, err)
				}
				pos++
			}
		}
	}
	return nil
}

// perfPhase builds one phase of n requests sent at rate, with intervals
// of one second made by hand as richPhase does. Beyond richPhase's
// latencies it has what a long run meets: one request in 500 stalls for
// 1 to 20 ms, proxy answers 503 now and then and, at the top rate, times
// out one request in 5000 after a second; every request has sizes.
func perfPhase(rng *rand.Rand, start time.Time, variant string, rate float64, n int, drift, keepRaw bool) *record.Result {
	rec := record.NewRecorder(start, record.Config{KeepRaw: map[bool]int64{true: int64(n)}[keepRaw]})
	base := richBase[variant] + time.Duration(rng.IntN(8001)-4000)
	top := rate == perfRates[len(perfRates)-1]
	var ins series
	for i := range n {
		s := &record.Sample{Intended: time.Duration(float64(i) * 1e9 / rate), Code: 200,
			BytesIn: int64(480 + rng.IntN(64)), BytesOut: int64(90 + rng.IntN(16))}
		s.Sent = s.Intended + time.Duration(rng.IntN(3000))
		lat := base + time.Duration(rng.ExpFloat64()*60e3)
		if rng.IntN(500) == 0 {
			lat += time.Duration(1e6 + rng.IntN(19e6))
		}
		if drift {
			lat += time.Duration(float64(i) / float64(n) * 200e3)
		}
		switch {
		case variant == "proxy" && top && i%5000 == 7:
			s.Code, s.Error, s.Err, s.BytesIn = 0, record.Timeout, errors.New("context deadline exceeded"), 0
			lat = time.Second
		case variant == "proxy" && i%97 == 5:
			s.Code = 503
		}
		s.Done = s.Sent + lat
		ins.add(s, rate)
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Intervals = ins.kept()
	res.Mode, res.TargetRate = "open", rate
	return res
}

// BenchmarkReportHTML writes the HTML report of $LATLAB_PERF_DB end to
// end, as latlab report DB -o report.html does: load, aggregate, read
// every run's details, render.
func BenchmarkReportHTML(b *testing.B) {
	path := os.Getenv(perfDBEnv)
	if path == "" {
		b.Skip("set " + perfDBEnv + " to a database written by TestWritePerfDB")
	}
	ctx := b.Context()
	b.ReportAllocs()
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := perfReportHTML(ctx, path, &buf); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "html_bytes")
}

func perfReportHTML(ctx context.Context, path string, buf *bytes.Buffer) error {
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	exps, err := db.Experiments(ctx)
	if err != nil {
		return err
	}
	if len(exps) == 0 {
		return fmt.Errorf("%s holds no experiments", path)
	}
	exp, err := loadDesigned(ctx, db, exps[len(exps)-1].ID)
	if err != nil {
		return err
	}
	r, err := NewExperiment(exp, ExperimentOptions{})
	if err != nil {
		return err
	}
	d, err := LoadDetail(ctx, db, r, HTMLOptions{})
	if err != nil {
		return err
	}
	return r.WriteHTML(buf, d)
}
