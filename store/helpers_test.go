package store

import (
	"bufio"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
)

// recorded runs n requests through a real Recorder over several intervals
// of 10 ms: two scenario steps, successes, a few 503s, timeouts and resets,
// new connections with TLS now and then. Every sample is kept raw.
func recorded(t testing.TB, start time.Time, n int, seed uint64) *record.Result {
	t.Helper()
	rec := record.NewRecorder(start, record.Config{
		Interval: 10 * time.Millisecond,
		Steps:    []string{"login", "browse"},
		KeepRaw:  int64(n),
	})
	rec.Start()
	rng := rand.New(rand.NewPCG(seed, 1))
	const batches = 4
	for b := range batches {
		for i := b * n / batches; i < (b+1)*n/batches; i++ {
			s := &record.Sample{
				Intended: time.Duration(i) * 100 * time.Microsecond,
				Code:     200,
				BytesIn:  int64(200 + rng.IntN(800)),
				BytesOut: int64(60 + rng.IntN(40)),
				Step:     i % 2,
			}
			s.Sent = s.Intended + time.Duration(rng.IntN(50_000))
			s.Done = s.Sent + time.Duration(rng.ExpFloat64()*float64(3*time.Millisecond)) + 200*time.Microsecond
			switch {
			case i%97 == 3:
				s.Code = 503
			case i%211 == 5:
				s.Code, s.Error, s.Err = 0, record.Timeout, errors.New("context deadline exceeded")
			case i%307 == 7:
				s.Code, s.Error, s.Err = 0, record.Reset, errors.New("connection reset by peer")
			}
			if i%50 == 0 {
				s.Connect = time.Duration(100_000 + rng.IntN(100_000))
				s.TLS = time.Duration(500_000 + rng.IntN(300_000))
			}
			rec.Sent()
			rec.Record(i, s)
		}
		time.Sleep(12 * time.Millisecond) // the next batch lands in a later interval
	}
	res := rec.Stop()
	res.Mode, res.TargetRate, res.Concurrency, res.WarmupRequests = "open", 10_000, 64, 100
	if len(res.Intervals) < 3 {
		t.Fatalf("recorded %d intervals; want several", len(res.Intervals))
	}
	return res
}

// openTemp opens a new database in a temporary directory.
func openTemp(t testing.TB) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// newExperiment adds an experiment named name with spec spec.
func newExperiment(t testing.TB, db *DB, name, spec string) Experiment {
	t.Helper()
	e, err := db.CreateExperiment(context.Background(), Experiment{Name: name, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// info returns a done run of trial tr that took the second before now.
func info(tr Trial, position int) RunInfo {
	end := time.Now()
	return RunInfo{Trial: tr, Position: position, Status: Done, StartedAt: end.Add(-time.Second), EndedAt: end}
}

// count returns the single integer query q yields.
func count(t testing.TB, db *DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.r.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// oneRun opens a new database holding one experiment, of name and spec,
// with res and points as its one done run, and returns it and the run's id.
func oneRun(tb testing.TB, name, spec string, res *record.Result, points []ProbePoint) (*DB, int64) {
	tb.Helper()
	db, _ := openTemp(tb)
	exp := newExperiment(tb, db, name, spec)
	id, err := db.WriteRun(context.Background(), exp.ID, info(Trial{Variant: "a", Rep: 1}, 0), res, nil, points, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return db, id
}

// startChild starts this test binary again, running only the test named
// test with env added to its environment and its stderr ours, and returns
// it and the lines of its stdout.
func startChild(t *testing.T, test string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}
