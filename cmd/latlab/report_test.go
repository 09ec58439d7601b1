package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/record"
	"github.com/latlab/latlab/report"
	"github.com/latlab/latlab/store"
)

// reportRun records one run: 10,000 requests at rate, each taking base +
// up to ±3 µs for the run + an exponential tail of mean 50 µs; 200/s adds
// 20 µs, and proxy fails 1 request in 150 there.
func reportRun(variant string, rate float64, rep int, base time.Duration) *record.Result {
	rng := rand.New(rand.NewPCG(uint64(len(variant)), uint64(rate)*100+uint64(rep)))
	base += time.Duration(rng.IntN(6001) - 3000)
	if rate == 200 {
		base += 20 * time.Microsecond
	}
	rec := record.NewRecorder(time.Now(), record.Config{})
	for i := range 10_000 {
		s := &record.Sample{Intended: time.Duration(float64(i) * 1e9 / rate), Code: 200}
		s.Sent = s.Intended + 2*time.Microsecond
		s.Done = s.Sent + base + time.Duration(rng.ExpFloat64()*50e3)
		if variant == "proxy" && rate == 200 && i%150 == 7 {
			s.Code = 503
		}
		rec.Sent()
		rec.Record(0, s)
	}
	res := rec.Stop()
	res.Mode, res.TargetRate, res.Concurrency = "open", rate, 64
	return res
}

// reportDB writes a results database and returns its path: experiment 1,
// filter-overhead, has variants plain, proxy (+100 µs) and filter (+50 µs)
// at 100/s and 200/s, five runs each, run 3 of filter at 200/s flagged;
// experiment 2, other, one run of one variant.
func reportDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spec := "name: filter-overhead\nvariants:\n  - name: plain\n  - name: proxy\n  - name: filter\n"
	exp, err := db.CreateExperiment(ctx, store.Experiment{Name: "filter-overhead", Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]time.Duration{"plain": 200 * time.Microsecond, "proxy": 300 * time.Microsecond, "filter": 250 * time.Microsecond}
	pos := 0
	for rep := 1; rep <= 5; rep++ {
		for _, rate := range []float64{100, 200} {
			for _, v := range []string{"filter", "plain", "proxy"} {
				info := store.RunInfo{Trial: store.Trial{Variant: v, Level: record.Level{Rate: rate, Concurrency: 64}, Rep: rep},
					Position: pos, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
				b := base[v]
				var machine []store.ProbePoint
				if v == "filter" && rate == 200 && rep == 3 {
					b += 100 * time.Microsecond
					info.Flags = []store.Flag{{Name: "target_cpu_high", Reason: "target CPU 82% of 2 cores (budget 75%)"}}
					// The machine probe saw a busy host during it.
					for series, v := range map[string]float64{"load1": 6.5, "cpus": 2, "other_cpu_percent": 64, "steal_percent": 0} {
						machine = append(machine, store.ProbePoint{Probe: "machine", Series: series, Time: time.Now(), Value: v})
					}
				}
				if _, err := db.WriteRun(ctx, exp.ID, info, reportRun(v, rate, rep, b), nil, machine, nil); err != nil {
					t.Fatal(err)
				}
				pos++
			}
		}
	}
	other, err := db.CreateExperiment(ctx, store.Experiment{Name: "other", Spec: "name: other\n"})
	if err != nil {
		t.Fatal(err)
	}
	info := store.RunInfo{Trial: store.Trial{Variant: "solo", Level: record.Level{Rate: 100}, Rep: 1}, Status: store.Done, StartedAt: time.Now(), EndedAt: time.Now()}
	if _, err := db.WriteRun(ctx, other.ID, info, reportRun("solo", 100, 1, base["plain"]), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportText(t *testing.T) {
	path := reportDB(t)
	code, stdout, stderr := runCLI(t, "report", path, "--experiment", "filter-overhead")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	dur := `~?\d[\d.]*(ns|µs|ms|s)`
	for _, want := range []string{
		`Experiment  filter-overhead, id 1, created .*`,
		`Runs        30 stored: 30 done, 1 flagged \(1 left out\), 0 failed or interrupted`,
		// spec order, not run order; flagged run left out and counted
		`plain +100/s c=64 +(` + dur + ` +){6}100/s +0\.00% +5 +0 +-`,
		`proxy +200/s c=64 +(` + dur + ` +){6}200/s +0\.67% +5 +0 +-`,
		`filter +200/s c=64 +(` + dur + ` +){6}200/s +0\.00% +4 of 5 +1 +target_cpu_high×1`,
		`  filter 200/s c=64: target_cpu_high on 1 run\(s\), e\.g\. run \d+: target CPU 82% of 2 cores \(budget 75%\)`,
		// five runs a side pass Holm within a quantile's four comparisons;
		// five pairs are too few for a paired interval
		`filter +100/s c=64 +p50 +` + dur + ` +unpaired +\+\d[\d.]*µs \(\+[\d.]+%\), 9\d[\d.]*% CI \+4\d.*µs to \+5\d.*µs, p=0\.0317 \*`,
	} {
		if !regexp.MustCompile(`(?m)^` + want + `$`).MatchString(stdout) {
			t.Errorf("no line matching %q in:\n%s", want, stdout)
		}
	}
	// The flagged run is explained by what the machine probe measured.
	if note := "1 of 30 runs were flagged and left out (target_cpu_high 1). The machine was too busy to measure well: " +
		"during the flagged runs the load average reached 6.5 on 2 CPUs, other processes used 64% of the CPU time."; !strings.Contains(stdout, note) ||
		!strings.Contains(stdout, "latlab report "+path+" --include-flagged counts the flagged runs.") {
		t.Errorf("no note on the flagged run and the busy machine in:\n%s", stdout)
	}
	// The HTML page says it first, under its header.
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, stderr := runCLI(t, "report", path, "--experiment", "filter-overhead", "-o", html); code != exitOK {
		t.Fatalf("report -o r.html: exit %d, %s", code, stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	notice := strings.Index(string(page), `<div class="notice"><p>1 of 30 runs were flagged and left out`)
	if summary := strings.Index(string(page), `<section id="summary">`); notice < 0 || notice > summary {
		t.Errorf("the page has the flagged runs' notice at %d, the summary at %d; want the notice first", notice, summary)
	}
	if strings.Contains(stdout, "no overhead can come out significant") {
		t.Errorf("the report warns that nothing can be significant; five runs a side can be:\n%s", stdout)
	}
	if strings.Index(stdout, "\nplain ") > strings.Index(stdout, "\nfilter ") {
		t.Errorf("plain comes after filter; want the spec's order:\n%s", stdout)
	}

	// The default is the latest experiment; an id picks one too.
	_, stdout, _ = runCLI(t, "report", path)
	if !strings.Contains(stdout, "Experiment  other, id 2") {
		t.Errorf("default: want experiment 2, got:\n%s", stdout)
	}
	_, stdout, _ = runCLI(t, "report", path, "--experiment", "1", "--include-flagged")
	if !regexp.MustCompile(`(?m)^filter +200/s c=64 .* 5 +0 +target_cpu_high×1$`).MatchString(stdout) {
		t.Errorf("--include-flagged: want the flagged run counted:\n%s", stdout)
	}
}

func TestReportFormats(t *testing.T) {
	path := reportDB(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "report", path, "--experiment", "1", "-o", filepath.Join(dir, "r.json"))
	if code != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("-o r.json: exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got report.ExperimentJSON
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("r.json: %v", err)
	}
	if got.Experiment.ID != 1 || got.Baseline != "plain" || len(got.Levels) != 6 || len(got.Overheads) != 16 || got.Experiment.RunsFlagged != 1 {
		t.Errorf("r.json: experiment %+v, baseline %q, %d levels, %d overheads; want 1, plain, 6, 16",
			got.Experiment, got.Baseline, len(got.Levels), len(got.Overheads))
	}
	for _, l := range got.Levels {
		p50 := l.Latency["p50"]
		if p50.Median == nil || p50.Lo != nil || l.Latency["p999"].Median == nil {
			t.Errorf("%s %g/s: p50 %+v, p999 %+v; want medians, and no CI from 5 runs", l.Variant, l.Rate, p50, l.Latency["p999"])
		}
		if l.Variant == "filter" && l.Rate == 200 && (l.Runs != 4 || l.Excluded != 1 || len(l.Flags) != 1) {
			t.Errorf("filter 200/s: %d runs, %d excluded, flags %+v; want 4, 1, one", l.Runs, l.Excluded, l.Flags)
		}
	}

	tests := []struct {
		args   []string
		header string
		rows   int
	}{
		{[]string{"--format", "csv"}, "variant,rate,concurrency,percentile,median_seconds,lo_seconds,hi_seconds,runs,excluded", 36},
		{[]string{"--format", "csv", "--table", "overhead"}, "variant,baseline,rate,concurrency,percentile,runs,baseline_runs,", 16},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, append([]string{"report", path, "--experiment", "1"}, tt.args...)...)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != exitOK || stderr != "" || !strings.HasPrefix(lines[0], tt.header) || len(lines) != tt.rows+1 {
			t.Errorf("%v: exit %d, stderr %q, %d lines starting %q; want 0, %d rows under %q", tt.args, code, stderr, len(lines), lines[0], tt.rows, tt.header)
		}
	}
}

func TestReportSLO(t *testing.T) {
	path := reportDB(t)
	// proxy's p50 is about 337 µs at 100/s and 357 µs at 200/s; filter's about 307 µs at most.
	code, stdout, stderr := runCLI(t, "report", path, "--experiment", "1", "--slo", "p50<320µs,errors<1%")
	if code != exitFailure || stderr != "latlab: SLO p50<320µs,errors<1% broken in 2 row(s)\n" {
		t.Errorf("exit %d, stderr %q; want 1 and the rows counted", code, stderr)
	}
	for _, want := range []string{`Violations: 2`, `  proxy +100/s c=64 +p50<320µs +3\d\dµs +lowest of 5 runs 3\d\dµs`,
		`  proxy +200/s c=64 +p50<320µs +3\d\dµs +lowest of 5 runs 3\d\dµs`, `  filter: meets it at every level, up to 200/s c=64`} {
		if !regexp.MustCompile(`(?m)^` + want + `$`).MatchString(stdout) {
			t.Errorf("no line matching %q in:\n%s", want, stdout)
		}
	}
	// JSON on stdout stays JSON; the rows go to stderr.
	code, stdout, stderr = runCLI(t, "report", path, "--experiment", "1", "--slo", "errors<0.5%", "--format", "json")
	if code != exitFailure || !json.Valid([]byte(stdout)) ||
		!regexp.MustCompile(`(?m)^proxy +200/s c=64 +errors<0\.5% +0\.67% +lowest of 5 runs 0\.67%$`).MatchString(stderr) {
		t.Errorf("json: exit %d, stderr %q; want 1 and the row", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "report", path, "--experiment", "1", "--slo", "p99<2ms,errors<1%")
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "Violations: none") {
		t.Errorf("met: exit %d, stderr %q; want 0 and nothing:\n%s", code, stderr, stdout)
	}
}

// TestReportSLOStrict puts a p50 limit between the lowest run and the
// median of proxy at 200/s, the slowest level: only --slo-strict breaks it.
func TestReportSLOStrict(t *testing.T) {
	path := reportDB(t)
	_, stdout, _ := runCLI(t, "ls", path, "--experiment", "1", "--format", "json")
	var ls struct{ Experiments []report.ListedExperiment }
	if err := json.Unmarshal([]byte(stdout), &ls); err != nil {
		t.Fatal(err)
	}
	var p50s []float64
	for _, r := range ls.Experiments[0].Runs {
		if r.Variant == "proxy" && r.Rate == 200 {
			p50s = append(p50s, *r.P50)
		}
	}
	slices.Sort(p50s)
	lowest, median := p50s[0], p50s[len(p50s)/2]
	if len(p50s) != 5 || median-lowest < 1e-6 {
		t.Fatalf("proxy 200/s p50s %v: want five, spread over more than 1 µs", p50s)
	}
	limit := time.Duration((lowest + median) / 2 * 1e9).Round(100 * time.Nanosecond)
	slo := "p50<" + limit.String()
	code, _, stderr := runCLI(t, "report", path, "--experiment", "1", "--slo", slo)
	if code != exitOK {
		t.Errorf("%s: exit %d, stderr %q; want 0: the lowest run meets it", slo, code, stderr)
	}
	code, stdout, _ = runCLI(t, "report", path, "--experiment", "1", "--slo", slo, "--slo-strict")
	if code != exitFailure || !regexp.MustCompile(`(?m)^  proxy +200/s c=64 +`+regexp.QuoteMeta(slo)+` +\S+ +median \S+$`).MatchString(stdout) ||
		!strings.Contains(stdout, "Violations: 1\n") {
		t.Errorf("%s --slo-strict: exit %d; want 1 and proxy 200/s alone:\n%s", slo, code, stdout)
	}
}

func TestReportBadInput(t *testing.T) {
	path := reportDB(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.db")
	notDB := writeIn(t, dir, "notes.db", "hello, not sqlite\n")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{missing}, []string{missing}},
		{"not a database", []string{notDB}, []string{notDB}},
		{"no file", nil, []string{"one results database", "got 0"}},
		{"unknown experiment", []string{path, "--experiment", "nginx"}, []string{"--experiment nginx", "no such experiment", "1 filter-overhead, 2 other"}},
		{"unknown id", []string{path, "--experiment", "9"}, []string{"--experiment 9", "no such experiment"}},
		{"unknown baseline", []string{path, "--experiment", "1", "--baseline", "nginx"}, []string{"--baseline", `"nginx"`}},
		{"level without html", []string{path, "--level", "100/s"}, []string{"--level", "html"}},
		{"unknown level", []string{path, "--experiment", "1", "-o", filepath.Join(dir, "r.html"), "--level", "300/s"}, []string{"--level", `"300/s"`, "100/s c=64, 200/s c=64"}},
		{"no samples", []string{path, "-o", filepath.Join(dir, "r.html"), "--samples", "0"}, []string{"--samples", "1 or more"}},
		{"unknown format", []string{path, "--format", "yaml"}, []string{"--format", `"yaml"`}},
		{"unknown extension", []string{path, "-o", filepath.Join(dir, "r.dat")}, []string{"r.dat", "extension"}},
		{"format against extension", []string{path, "--format", "json", "-o", filepath.Join(dir, "r.csv")}, []string{"--format json", "r.csv"}},
		{"overhead table as text", []string{path, "--table", "overhead"}, []string{"--table overhead", "csv"}},
		{"bad slo", []string{path, "--slo", "p75<1ms"}, []string{"--slo", "p75"}},
		{"strict without slo", []string{path, "--experiment", "1", "--slo-strict"}, []string{"--slo-strict", "--slo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"report"}, tt.args...)...)
			checkUsageError(t, code, stdout, stderr, tt.want...)
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("report created %s", missing)
	}
}

func TestReportHTML(t *testing.T) {
	path := reportDB(t)
	out := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runCLI(t, "report", path, "--experiment", "filter-overhead", "-o", out, "--level", "100")
	if code != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", `<section id="summary">`, `<section id="overhead">`, `id="latency-vs-rate"`,
		`id="cdf"`, "Latency distribution at 100/s c=64", "target_cpu_high×1"} {
		if !strings.Contains(page, want) {
			t.Errorf("%s has no %q", out, want)
		}
	}
	if n := strings.Count(page, `<svg `); n < 5 {
		t.Errorf("%s has %d plots; want at least 5", out, n)
	}
}
