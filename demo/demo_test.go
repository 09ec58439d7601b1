package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/spec"
	"github.com/latlab/latlab/store"
)

// buildLatlab builds the command for the graph nodes to run.
func buildLatlab(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "latlab")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/latlab").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// processesWith lists live processes, zombies aside, whose command line
// holds s.
func processesWith(s string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		st, err := os.ReadFile(d + "/stat")
		if i := bytes.LastIndexByte(st, ')'); err != nil || i < 0 || i+2 >= len(st) || st[i+2] == 'Z' {
			continue
		}
		var pid int
		fmt.Sscan(filepath.Base(d), &pid)
		pids = append(pids, pid)
	}
	return pids
}

// TestFilesParse checks that every spec the demo writes parses, names
// the variants the demo reports on, and plans what the help text says.
func TestFilesParse(t *testing.T) {
	dir := t.TempDir()
	if err := writeFiles(dir); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec     string
		variants []string
		trials   int
		mode     spec.Mode
	}{
		{sweepSpec, []string{"chain", "chain-proxy", "chain-filter"}, 3 * 3 * 6, spec.Open},
		{quickSweepSpec, []string{"chain", "chain-proxy", "chain-filter"}, 3 * 2 * 3, spec.Open},
		{rampSpec, []string{"chain-filter"}, 1, spec.Ramp},
		{quickRampSpec, []string{"chain-filter"}, 1, spec.Ramp},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := spec.ReadSpec(filepath.Join(dir, tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, v := range s.Variants {
				names = append(names, v.Name)
			}
			if !slices.Equal(names, tt.variants) {
				t.Errorf("variants %v, want %v", names, tt.variants)
			}
			if got := len(s.Plan(1)); got != tt.trials {
				t.Errorf("%d trials, want %d", got, tt.trials)
			}
			if s.Load.Mode != tt.mode {
				t.Errorf("mode %s, want %s", s.Load.Mode, tt.mode)
			}
		})
	}
}

// TestDesign holds each form of the demo to its own analysis: the full
// demo runs enough runs a level for every interval the report shows, and
// every open-loop run of either sends enough requests for the headline's
// percentiles, so that too_few_samples, which asks for the p90 the
// headline reads, is raised only by a run that fell short.
func TestDesign(t *testing.T) {
	dir := t.TempDir()
	if err := writeFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		spec    string
		minRuns int
	}{{sweepSpec, ciMedianRuns}, {quickSweepSpec, 1}} {
		s, err := spec.ReadSpec(filepath.Join(dir, tt.spec))
		if err != nil {
			t.Fatal(err)
		}
		if s.Runs < tt.minRuns {
			t.Errorf("%s: %d runs a level, want at least %d", tt.spec, s.Runs, tt.minRuns)
		}
		if (designNote(s) == "") != (s.Runs >= ciMedianRuns) {
			t.Errorf("%s: %d runs a level, design note %q", tt.spec, s.Runs, designNote(s))
		}
		last := headlineStats[len(headlineStats)-1]
		q, _ := strconv.ParseFloat(strings.TrimPrefix(last, "p"), 64)
		if q /= 100; s.Validity.SamplesFor != q {
			t.Errorf("%s: validity.samples_for %g, want the headline's %s", tt.spec, s.Validity.SamplesFor, last)
		}
		need := 10 / (1 - q)
		for _, rate := range s.Load.Rates {
			if got := rate * s.Load.Duration.Seconds(); got < need-1e-9 {
				t.Errorf("%s: %g/s for %s sends %g requests, %s needs %.0f", tt.spec, rate, s.Load.Duration, got, last, need)
			}
		}
	}
}

// TestEstimate keeps each form of the demo within its budget as planned:
// five minutes, and 90 s for --quick (what CI runs), trials' overhead
// included.
func TestEstimate(t *testing.T) {
	dir := t.TempDir()
	if err := writeFiles(dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sweep, ramp string
		budget      time.Duration
	}{{sweepSpec, rampSpec, 5 * time.Minute}, {quickSweepSpec, quickRampSpec, 90 * time.Second}} {
		sweep, err := spec.ReadSpec(filepath.Join(dir, tt.sweep))
		if err != nil {
			t.Fatal(err)
		}
		ramp, err := spec.ReadSpec(filepath.Join(dir, tt.ramp))
		if err != nil {
			t.Fatal(err)
		}
		if got := estimate(sweep, ramp); got > tt.budget*9/10 {
			t.Errorf("%s and %s: planned %s, over 90%% of the budget %s", tt.sweep, tt.ramp, got, tt.budget)
		}
	}
}

// TestQuickDemo runs latlab demo --quick end to end: both experiments
// must be stored whole, the filters must show in the numbers, both reports
// must be written with their plots, and no graph node may outlive it.
func TestQuickDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the quick demo, about a minute and a half; make test runs it")
	}
	if runtime.GOOS != "linux" {
		t.Skip("graph nodes are checked through /proc")
	}
	bin := buildLatlab(t)
	dir := filepath.Join(t.TempDir(), "demo")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The demo runs as users run it, from the built command: Run under the
	// race detector would take twice as long for nothing more, since the
	// runner's concurrency is the experiment package's tests' to check. It
	// exits 0 only when no trial failed and nothing interrupted it.
	var stdout, log bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "demo", "--quick", "-o", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &log
	start := time.Now()
	err := cmd.Run()
	t.Logf("the quick demo took %s", time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("latlab demo --quick: %v\nlog:\n%s", err, log.String())
	}
	out := quickOutcome(t, dir)

	// No node outlives the demo: each one's command line names its
	// topology, in dir.
	deadline := time.Now().Add(5 * time.Second)
	for len(processesWith(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := processesWith(dir); len(left) > 0 {
		t.Errorf("processes %v outlived the demo", left)
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}

	lap := time.Now()
	checkStored(t, out)
	r := sweepReport(t, out)
	checkHeadline(t, stdout.String(), r, out)
	for _, page := range []string{out.Report, out.RampReport} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(`class="plot"`)); n < 8 {
			t.Errorf("%s has %d plots, want at least 8", page, n)
		}
	}
	checkNotes(t, stdout.String(), r, out)
	t.Logf("the checks of what it stored and printed took %s", time.Since(lap).Round(100*time.Millisecond))
	// Each page in its own browser, at once.
	t.Run("browser", func(t *testing.T) {
		t.Run("report", func(t *testing.T) {
			t.Parallel()
			checkInBrowser(t, out.Report, r.Runs.LeftOut)
		})
		t.Run("ramp", func(t *testing.T) {
			t.Parallel()
			checkInBrowser(t, out.RampReport, 0) // the ramp's report counts its flagged run
		})
	})
}

// quickOutcome is what Run returns for the quick demo into dir, as far as
// the checks read it: the files, and the experiments stored by name.
func quickOutcome(t *testing.T, dir string) Outcome {
	t.Helper()
	out := Outcome{Dir: dir, DB: filepath.Join(dir, DBFile), Report: filepath.Join(dir, ReportFile),
		RampReport: filepath.Join(dir, RampReportFile)}
	db, exps := openStored(t, out.DB)
	defer db.Close()
	for _, e := range exps {
		switch e.Name {
		case "demo-quick":
			out.Sweep.Experiment = e
		case "demo-ramp-quick":
			out.Ramp.Experiment = e
		}
	}
	return out
}

// openStored opens the results database at path to read and lists its
// experiments.
func openStored(t *testing.T, path string) (*store.DB, []store.Experiment) {
	t.Helper()
	db, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := db.Experiments(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return db, exps
}

// checkStored checks the results database: three variants at two rates,
// three runs each, done; the ramp's run at 300 workers; the delay filter's
// own latency scraped from the filtered chain.
func checkStored(t *testing.T, out Outcome) {
	t.Helper()
	ctx := context.Background()
	db, exps := openStored(t, out.DB)
	defer db.Close()
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	if want := []string{"demo-ramp-quick", "demo-quick"}; !slices.Equal(names, want) {
		t.Fatalf("experiments %v, want %v (the demo's last, so that latlab report shows it)", names, want)
	}

	runs, err := db.Runs(ctx, out.Sweep.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var delay float64
	for _, r := range runs {
		if r.Status != store.Done {
			t.Errorf("run %d (%s %g/s rep %d): %s", r.ID, r.Variant, r.Rate, r.Rep, r.Status)
		}
		count[fmt.Sprintf("%s %g", r.Variant, r.Rate)]++
		// Every run measured the machine: its load and what other
		// processes took of the CPUs. bob's requests are held 10 ms: the
		// delay filter's slowest request in a run of the filtered chain
		// says so.
		points, err := db.Probes(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		machine := map[string]int{}
		for _, p := range points {
			if p.Probe == "machine" {
				machine[p.Series]++
			}
			if r.Variant == "chain-filter" && p.Series == "latlab_request_filter_duration_seconds:p100" && p.Labels["filter"] == "delay" {
				delay = max(delay, p.Value)
			}
		}
		for _, series := range []string{"load1", "cpus", "other_cpu_percent", "steal_percent"} {
			if machine[series] == 0 {
				t.Errorf("run %d has no machine %s point; it has %v", r.ID, series, machine)
			}
		}
	}
	want := map[string]int{}
	for _, v := range []string{"chain", "chain-proxy", "chain-filter"} {
		for _, rate := range []float64{50, 100} {
			want[fmt.Sprintf("%s %g", v, rate)] = 3
		}
	}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("runs by variant and rate %v, want %v", count, want)
	}

	ramp, err := db.Runs(ctx, out.Ramp.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ramp) != 1 || ramp[0].Variant != "chain-filter" || ramp[0].Concurrency != 300 || ramp[0].Status != store.Done {
		t.Errorf("ramp runs %+v, want one done run of chain-filter at 300 workers", ramp)
	}
	if delay < 0.010 {
		t.Errorf("the delay filter's own latency is at most %gs; want 10ms or more", delay)
	}
}

// sweepReport analyses the demo experiment of out as its report does.
func sweepReport(t *testing.T, out Outcome) *report.Experiment {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, out.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exp, err := analysis.Load(ctx, db, out.Sweep.Experiment.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.NewExperiment(exp, report.ExperimentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkNotes checks that the headline and the report say what the quick
// demo cannot show, and, when runs were flagged and left out, how many,
// with what the machine probe measured, whatever the machine's load. It
// is given the report's analysis, r.
func checkNotes(t *testing.T, stdout string, r *report.Experiment, out Outcome) {
	t.Helper()
	page, err := os.ReadFile(out.Report)
	if err != nil {
		t.Fatal(err)
	}
	notes := []string{"quick: 3 runs a level, too few for a 95% CI", "latlab demo runs 6"}
	if r.Runs.LeftOut > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d runs were flagged and left out (", r.Runs.LeftOut, r.Runs.Done),
			"the load average reached", "other processes used", "--include-flagged")
	} else if strings.Contains(stdout, "flagged and left out") {
		t.Errorf("no run was left out, yet the headline says some were:\n%s", stdout)
	}
	for _, want := range notes {
		if !strings.Contains(stdout, want) {
			t.Errorf("the headline lacks %q:\n%s", want, stdout)
		}
		if !strings.Contains(string(page), want) {
			t.Errorf("%s lacks %q", out.Report, want)
		}
	}
}

// checkHeadline checks what the demo printed, and the runs it printed
// them from, r: the filtered chain's p90 is bob's, 10 ms later.
func checkHeadline(t *testing.T, stdout string, r *report.Experiment, out Outcome) {
	t.Helper()
	for _, want := range []string{"Overhead against chain", "chain-proxy   50/s", "chain-filter  100/s",
		"Ramp: chain-filter stepped up to 300 requests in flight", out.Report, out.RampReport} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the headline lacks %q:\n%s", want, stdout)
		}
	}
	// bob's requests, one in five, are held 10 ms, so every run of the
	// filtered chain has a p90 of 10 ms or more, whatever the machine's
	// load. (That alice's p50 is not delayed is for the full demo's
	// intervals to show: on a loaded machine queueing moves it either way.)
	filtered := 0
	for _, run := range r.Exp.Runs {
		if run.Variant != "chain-filter" {
			continue
		}
		filtered++
		i := slices.IndexFunc(run.Latency, func(v analysis.Value) bool { return v.Name == "p90" })
		if i < 0 || !run.Latency[i].OK || run.Latency[i].Latency < 10*time.Millisecond {
			t.Errorf("run %d of chain-filter at %g/s: p90 %+v; want 10 ms or more, bob's delay", run.ID, run.Rate, run.Latency)
		}
	}
	if filtered != 6 {
		t.Errorf("%d runs of chain-filter, want 6", filtered)
	}
	// The headline compares p50 and p90 at each level, n/a or not.
	seen := 0
	for _, c := range r.Overheads {
		if c.Variant == "chain-filter" && (c.Name == "p50" || c.Name == "p90") {
			seen++
		}
	}
	if seen != 4 {
		t.Errorf("%d p50 and p90 overheads of chain-filter, want 4", seen)
	}
}
