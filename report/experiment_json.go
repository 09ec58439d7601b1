package report

import (
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"

	"github.com/latlab/latlab/analysis"
)

// ExperimentJSON is the JSON form of an experiment report, latlab report
// --format json. Its keys are a contract: keys may be added, never renamed
// or removed. Times are in seconds, rates per second, ratios from 0 to 1;
// a number that does not exist (a CI from too few runs, a percentile n/a
// in every run) is null, never NaN.
type ExperimentJSON struct {
	Experiment ExperimentInfoJSON `json:"experiment"`
	Baseline   string             `json:"baseline"`
	// IncludeFlagged says whether flagged runs were counted.
	IncludeFlagged bool           `json:"include_flagged"`
	Levels         []LevelJSON    `json:"levels"`
	Overheads      []OverheadJSON `json:"overheads"`
	SLO            *SLOJSON       `json:"slo"`   // null without an SLO
	Knees          []KneeJSON     `json:"knees"` // empty without an SLO
	Warnings       []string       `json:"warnings"`
	// Notes say first what the runs cannot show and why; absent when
	// there are none.
	Notes []string `json:"notes,omitempty"`
	// Expectations set the spec's expect: beside what was measured;
	// empty when no variant has expect:.
	Expectations []ExpectationJSON `json:"expectations"`
	// Probes summarise every probe series per variant × level; null when
	// the probes were not read (see Experiment.LoadProbes).
	Probes []ProbeJSON `json:"probes"`
	// ShardedRuns are the runs whose load several generators sent, each
	// with its shards; absent when no run was, or when the shards were
	// not read (see Experiment.LoadShards).
	ShardedRuns []ShardedRunJSON `json:"sharded_runs,omitempty"`
	// Stops say, for an experiment under runs: auto, why each variant ×
	// level stopped repeating; absent before every one has, and for a
	// number of runs.
	Stops []StopJSON `json:"stops,omitempty"`
}

// StopJSON is why runs: auto stopped repeating a variant at a level
// (see analysis.Stop): reason precise, max, budget or
// nothing_to_compare, after runs repetitions of which left_out were
// flagged or unfinished, and the widths of its overheads' intervals then.
type StopJSON struct {
	Variant     string      `json:"variant"`
	Rate        float64     `json:"rate"`        // target requests/s; 0 in closed loop
	Concurrency int         `json:"concurrency"` // 0 for none
	Runs        int         `json:"runs"`
	LeftOut     int         `json:"left_out"`
	Reason      string      `json:"reason"`
	Widths      []WidthJSON `json:"widths"`
}

// WidthJSON is how wide an overhead's 95% interval was against its goal,
// in seconds: width null without an interval, goal null when the
// baseline had no value to take a share of.
type WidthJSON struct {
	Stat         string   `json:"stat"`
	WidthSeconds *float64 `json:"width_seconds"`
	GoalSeconds  *float64 `json:"goal_seconds"`
	// RelativeGoalSeconds is the widest the interval could be as a share
	// of the overhead's size (runs.relative), absent without one.
	RelativeGoalSeconds *float64 `json:"relative_goal_seconds,omitempty"`
	Precise             bool     `json:"precise"`
}

// ShardedRunJSON is one run whose load several generators sent: its
// trial, how far apart its shards started, and each shard with its own
// result (the run's is theirs merged exactly).
type ShardedRunJSON struct {
	RunID       int64   `json:"run_id"`
	Variant     string  `json:"variant"`
	Rate        float64 `json:"rate"`        // target requests/s; 0 in closed loop
	Concurrency int     `json:"concurrency"` // 0 for none
	Rep         int     `json:"rep"`
	// StartSpreadSeconds is the latest shard's start less the earliest's;
	// null when none started.
	StartSpreadSeconds *float64    `json:"start_spread_seconds"`
	Shards             []ShardJSON `json:"shards"`
}

// ExperimentInfoJSON names the experiment and counts its runs.
type ExperimentInfoJSON struct {
	ID                int64     `json:"id"`
	Name              string    `json:"name"`
	CreatedAt         time.Time `json:"created_at"`
	SpecHash          string    `json:"spec_hash"`
	Host              string    `json:"host"`
	LatlabVersion     string    `json:"latlab_version"`
	RunsTotal         int       `json:"runs_total"`
	RunsDone          int       `json:"runs_done"`
	RunsFlagged       int       `json:"runs_flagged"`
	RunsLeftOut       int       `json:"runs_left_out"` // done and flagged, not counted in the aggregates
	RunsFailed        int       `json:"runs_failed"`   // failed or interrupted
	RunsWithoutResult int       `json:"runs_without_result"`
	RunsPlanned       int       `json:"runs_planned"`    // variants × levels × repetitions
	RunsMissing       int       `json:"runs_missing"`    // planned, without a row: not run yet, or lost
	RunsUnreadable    int       `json:"runs_unreadable"` // stored data missing or inconsistent; left out
}

// LevelJSON is one variant at one level: latency_seconds holds every
// quantile of spec.Stats under record.Summary's names (p50, p90, p95,
// p99, p999, max).
type LevelJSON struct {
	Variant     string  `json:"variant"`
	Rate        float64 `json:"rate"`        // target requests/s; 0 in closed loop
	Concurrency int     `json:"concurrency"` // 0 for none
	Runs        int     `json:"runs"`        // counted
	Excluded    int     `json:"excluded"`    // left out: flagged or not done
	RunsPlanned int     `json:"runs_planned"`
	RunIDs      []int64 `json:"run_ids"`
	// UnreadableRunIDs are runs left out because their stored data is
	// missing or inconsistent (the warnings say what).
	UnreadableRunIDs []int64             `json:"unreadable_run_ids"`
	AchievedRate     *float64            `json:"achieved_rate"` // median over counted runs; null without any
	ErrorRatio       *float64            `json:"error_ratio"`   // median over counted runs; null without any
	Latency          map[string]CellJSON `json:"latency_seconds"`
	Service          map[string]CellJSON `json:"service_time_seconds"`
	Flags            []FlagJSON          `json:"flags"`
}

// CellJSON is one quantile over runs, in seconds: the median of the
// per-run values and its 95% CI (null below 6 runs). Every cell of a
// level stands on the same counted runs: the median is null when the
// quantile is n/a in any of them (na_runs says in how many).
type CellJSON struct {
	Median        *float64 `json:"median"`
	Lo            *float64 `json:"lo"`
	Hi            *float64 `json:"hi"`
	Runs          int      `json:"runs"`                // runs the median stands on: all counted, or 0
	NA            int      `json:"na_runs"`             // counted runs where it is n/a
	LowConfidence int      `json:"low_confidence_runs"` // runs that read it from few samples
}

// FlagJSON counts one validity flag raised at a level, with the first
// reason given.
type FlagJSON struct {
	Flag    string `json:"flag"`
	Count   int    `json:"count"`
	RunID   int64  `json:"run_id"`
	Example string `json:"example"`
}

// OverheadJSON is one row of the overhead table, in seconds: the
// Hodges–Lehmann shift of the variant's per-run values against the
// baseline's (paired: the centre of the differences between runs of one
// repetition), its 95% CI and its CI at Holm's level, and the p-value
// before and after Holm.
type OverheadJSON struct {
	Variant         string   `json:"variant"`
	Baseline        string   `json:"baseline"`
	Rate            float64  `json:"rate"`
	Concurrency     int      `json:"concurrency"`
	Percentile      string   `json:"percentile"` // p50, p90, p99, p99.9
	Runs            int      `json:"runs"`
	BaselineRuns    int      `json:"baseline_runs"`
	BaselineSeconds *float64 `json:"baseline_seconds"`
	DiffSeconds     *float64 `json:"diff_seconds"`
	DiffLoSeconds   *float64 `json:"diff_lo_seconds"`
	DiffHiSeconds   *float64 `json:"diff_hi_seconds"`
	Relative        *float64 `json:"relative"` // diff / baseline
	RelativeLo      *float64 `json:"relative_lo"`
	RelativeHi      *float64 `json:"relative_hi"`
	P               *float64 `json:"p"`
	PHolm           *float64 `json:"p_holm"`
	Significant     bool     `json:"significant"`
	// CILevel is the confidence of the interval the verdict gives,
	// [CILoSeconds, CIHiSeconds] (relative: [CIRelativeLo,
	// CIRelativeHi]): the level Holm's correction tests the row at, 1 −
	// 0.05·p/p_holm, so that it excludes 0 exactly when significant; 0.95
	// when the runs are too few for an interval at that level. The diff_
	// and relative_ bounds above are the plain 95% ones.
	CILevel      *float64 `json:"ci_level"`
	CILoSeconds  *float64 `json:"ci_lo_seconds"`
	CIHiSeconds  *float64 `json:"ci_hi_seconds"`
	CIRelativeLo *float64 `json:"ci_relative_lo"`
	CIRelativeHi *float64 `json:"ci_relative_hi"`
	Verdict      string   `json:"verdict"` // the sentence the text report prints
	// Method is "paired" when the row compares each variant run with the
	// baseline's run of the same repetition (signed-rank interval and
	// test), "unpaired" when it compares all runs with all (Mann-Whitney).
	// Pairs counts the pairs of runs of one repetition found, whichever
	// the method: too few, and the row is unpaired (see
	// analysis.PairingReach).
	Method string `json:"method"`
	Pairs  int    `json:"pairs"`
	// Reason says why the difference or its interval is null, or why no
	// test could reject at 5% with these runs: no_runs,
	// all_runs_flagged, percentile_na or too_few_runs (see
	// analysis.Reason); null when none of these holds.
	Reason *string `json:"reason"`
	// RunsNeededForCI and RunsNeededForTest are the runs a side an
	// interval needs, and a test able to reject at 5% after Holm; paired,
	// the pairs.
	RunsNeededForCI   int `json:"runs_needed_for_ci"`
	RunsNeededForTest int `json:"runs_needed_for_test"`
	// LeftOut and BaselineLeftOut count each side's runs left out as
	// flagged or unfinished; NARuns and BaselineNARuns those counted
	// whose percentile is n/a.
	LeftOut         int `json:"left_out"`
	BaselineLeftOut int `json:"baseline_left_out"`
	NARuns          int `json:"na_runs"`
	BaselineNARuns  int `json:"baseline_na_runs"`
}

// SLOJSON is the SLO judged and what broke it.
type SLOJSON struct {
	SLO        string          `json:"slo"` // as --slo takes it
	Strict     bool            `json:"strict"`
	Met        bool            `json:"met"`
	Violations []ViolationJSON `json:"violations"`
}

// ViolationJSON is one broken limit; see analysis.Violation.
type ViolationJSON struct {
	Variant     string   `json:"variant"`
	Rate        float64  `json:"rate"`
	Concurrency int      `json:"concurrency"`
	Limit       string   `json:"limit"`
	Max         float64  `json:"max"` // seconds, or an error ratio
	Value       *float64 `json:"value"`
	Bound       *float64 `json:"bound"`
	Judged      string   `json:"judged"`
}

// KneeJSON is a variant's knee; see analysis.Knee. Rate and concurrency are the
// highest level that meets the SLO (null unless met); failed_* the first
// that does not (null when none fails).
type KneeJSON struct {
	Variant           string   `json:"variant"`
	Met               bool     `json:"met"`
	Rate              *float64 `json:"rate"`
	Concurrency       *int     `json:"concurrency"`
	FailedRate        *float64 `json:"failed_rate"`
	FailedConcurrency *int     `json:"failed_concurrency"`
}

// ExpectationJSON is one percentile of a variant's expect: at one level;
// see analysis.Expectation. The interval is what the verdict was judged
// on: the 95% CI of the median ("95% CI"), else the range of the runs.
type ExpectationJSON struct {
	Variant         string   `json:"variant"`
	Rate            float64  `json:"rate"`
	Concurrency     int      `json:"concurrency"`
	Percentile      string   `json:"percentile"` // p50, p99.9, max, or as the spec wrote it when not read
	ExpectedSeconds float64  `json:"expected_seconds"`
	Runs            int      `json:"runs"` // counted runs with a value
	MeasuredSeconds *float64 `json:"measured_seconds"`
	LoSeconds       *float64 `json:"lo_seconds"`
	HiSeconds       *float64 `json:"hi_seconds"`
	Interval        string   `json:"interval"` // "95% CI", "range of 5 runs", "1 run"; "" when n/a
	Ratio           *float64 `json:"ratio"`    // measured / expected
	DiffSeconds     *float64 `json:"diff_seconds"`
	Verdict         string   `json:"verdict"` // within, above, below, n/a
	Note            string   `json:"note"`    // why n/a
}

// ProbeJSON is one probe series of a variant at a level; see analysis.ProbeStat.
// Median and max are in the unit the series name gives (seconds for
// _seconds, bytes for _bytes, per second for :rate).
type ProbeJSON struct {
	Variant     string            `json:"variant"`
	Rate        float64           `json:"rate"`
	Concurrency int               `json:"concurrency"`
	Probe       string            `json:"probe"`
	Series      string            `json:"series"`
	Labels      map[string]string `json:"labels"`
	Median      float64           `json:"median"`
	// Lo and Hi bound the median's 95% interval over runs; null below 6.
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	Max    float64  `json:"max"`
	Runs   int      `json:"runs"`
	Points int      `json:"points"`
}

// JSON returns the report as ExperimentJSON.
func (r *Experiment) JSON() ExperimentJSON {
	e, c := r.Exp, r.Runs
	out := ExperimentJSON{
		Experiment: ExperimentInfoJSON{ID: e.ID, Name: e.Name, CreatedAt: e.CreatedAt.UTC(), SpecHash: e.SpecHash,
			Host: e.Provenance.Host, LatlabVersion: e.Provenance.LatlabVersion, RunsTotal: c.Total, RunsDone: c.Done,
			RunsFlagged: c.Flagged, RunsLeftOut: c.LeftOut, RunsFailed: c.Failed, RunsWithoutResult: c.NoResult,
			RunsPlanned: c.Planned, RunsMissing: c.Missing, RunsUnreadable: c.Unreadable},
		Baseline: r.Baseline, IncludeFlagged: r.IncludeFlagged,
		Stops: r.stopsJSON(), Levels: r.levelsJSON(), Overheads: r.overheadsJSON(), Knees: []KneeJSON{},
		Expectations: r.expectationsJSON(), Probes: r.probesJSON(),
		Warnings: append([]string{}, r.Warnings...), Notes: r.Notes,
	}
	if !r.Verdict.SLO.IsZero() {
		out.SLO, out.Knees = r.sloJSON()
	}
	for _, rs := range r.shards {
		sr := ShardedRunJSON{RunID: rs.run.ID, Variant: rs.run.Variant, Rate: rs.run.Rate, Concurrency: rs.run.Concurrency, Rep: rs.run.Rep}
		sr.Shards, sr.StartSpreadSeconds = shardsJSON(rs.rows)
		out.ShardedRuns = append(out.ShardedRuns, sr)
	}
	return out
}

// stopsJSON says why runs: auto stopped each variant and level; nil
// without runs: auto.
func (r *Experiment) stopsJSON() []StopJSON {
	var out []StopJSON
	for _, st := range r.Stops {
		sj := StopJSON{Variant: st.Variant, Rate: st.Rate, Concurrency: st.Concurrency, Runs: st.Runs, LeftOut: st.LeftOut,
			Reason: string(st.Reason), Widths: []WidthJSON{}}
		for _, w := range st.Widths {
			wj := WidthJSON{Stat: w.Stat, Precise: w.OK}
			if w.CI {
				wj.WidthSeconds = num(w.Width)
			}
			if w.Goal > 0 {
				wj.GoalSeconds = num(w.Goal)
			}
			if w.Relative > 0 {
				wj.RelativeGoalSeconds = num(w.Relative)
			}
			sj.Widths = append(sj.Widths, wj)
		}
		out = append(out, sj)
	}
	return out
}

func (r *Experiment) levelsJSON() []LevelJSON {
	out := []LevelJSON{}
	for _, l := range r.Levels {
		lj := LevelJSON{Variant: l.Variant, Rate: l.Rate, Concurrency: l.Concurrency, Runs: len(l.RunIDs),
			Excluded: l.Excluded, RunsPlanned: l.Planned, RunIDs: append([]int64{}, l.RunIDs...),
			UnreadableRunIDs: append([]int64{}, l.Unreadable...), AchievedRate: num(l.Achieved), ErrorRatio: num(l.ErrorRatio),
			Latency: cellsJSON(l.Latency), Service: cellsJSON(l.Service), Flags: []FlagJSON{}}
		for _, f := range r.Flags(l.Variant, l.Level) {
			lj.Flags = append(lj.Flags, FlagJSON{Flag: f.Name, Count: f.Count, RunID: f.RunID, Example: f.Example})
		}
		out = append(out, lj)
	}
	return out
}

func (r *Experiment) overheadsJSON() []OverheadJSON {
	out := []OverheadJSON{}
	for _, o := range r.Overheads {
		out = append(out, overheadJSON(o))
	}
	return out
}

func overheadJSON(o analysis.Comparison) OverheadJSON {
	d := o.Diff
	oj := OverheadJSON{Variant: o.Variant, Baseline: o.Baseline, Rate: o.Rate, Concurrency: o.Concurrency,
		Percentile: o.Name, Runs: d.N, BaselineRuns: d.BaselineN, Method: string(d.Method), Pairs: d.Pairs, BaselineSeconds: num(d.Baseline),
		DiffSeconds: num(d.Abs), P: num(d.P), PHolm: num(d.PAdj), Significant: d.Significant, Verdict: d.String(),
		LeftOut: d.LeftOut, BaselineLeftOut: d.BaselineLeftOut, NARuns: d.NA, BaselineNARuns: d.BaselineNA}
	oj.RunsNeededForCI, oj.RunsNeededForTest = d.Needed()
	if d.Reason != "" {
		reason := string(d.Reason)
		oj.Reason = &reason
	}
	if d.CIOK {
		oj.DiffLoSeconds, oj.DiffHiSeconds = num(d.AbsLo), num(d.AbsHi)
	}
	if d.RelOK {
		oj.Relative = num(d.Rel)
		if d.CIOK {
			oj.RelativeLo, oj.RelativeHi = num(d.RelLo), num(d.RelHi)
		}
	}
	if iv := d.CI(); iv.OK {
		oj.CILevel, oj.CILoSeconds, oj.CIHiSeconds = num(iv.Level), num(iv.Lo), num(iv.Hi)
		if d.RelOK {
			oj.CIRelativeLo, oj.CIRelativeHi = num(iv.RelLo), num(iv.RelHi)
		}
	}
	return oj
}

// sloJSON is the SLO's verdict: its violations and each variant's knee.
func (r *Experiment) sloJSON() (*SLOJSON, []KneeJSON) {
	s := &SLOJSON{SLO: r.Verdict.SLO.String(), Strict: r.Verdict.Strict, Met: r.Verdict.Met(), Violations: []ViolationJSON{}}
	for _, v := range r.Verdict.Violations {
		s.Violations = append(s.Violations, ViolationJSON{Variant: v.Variant, Rate: v.Rate, Concurrency: v.Concurrency,
			Limit: v.Limit, Max: v.Max, Value: num(v.Value), Bound: num(v.Bound), Judged: v.Judged})
	}
	knees := []KneeJSON{}
	for _, k := range r.Verdict.Knees {
		kj := KneeJSON{Variant: k.Variant, Met: k.Met}
		if k.Met {
			kj.Rate, kj.Concurrency = &k.Level.Rate, &k.Level.Concurrency
		}
		if k.Failed != nil {
			kj.FailedRate, kj.FailedConcurrency = &k.Failed.Rate, &k.Failed.Concurrency
		}
		knees = append(knees, kj)
	}
	return s, knees
}

func (r *Experiment) expectationsJSON() []ExpectationJSON {
	out := []ExpectationJSON{}
	for _, e := range r.Expectations {
		out = append(out, ExpectationJSON{Variant: e.Variant, Rate: e.Rate, Concurrency: e.Concurrency, Percentile: e.Name,
			ExpectedSeconds: e.Expected, Runs: e.Runs, MeasuredSeconds: num(e.Measured), LoSeconds: num(e.Lo), HiSeconds: num(e.Hi),
			Interval: e.Interval(), Ratio: num(e.Ratio()), DiffSeconds: num(e.Diff()), Verdict: e.Verdict, Note: e.Note})
	}
	return out
}

// probesJSON is the probe summary; nil when the probes were not loaded.
func (r *Experiment) probesJSON() []ProbeJSON {
	if r.Probes == nil {
		return nil
	}
	out := []ProbeJSON{}
	for _, p := range r.Probes {
		labels := p.Labels
		if labels == nil {
			labels = map[string]string{}
		}
		pj := ProbeJSON{Variant: p.Variant, Rate: p.Rate, Concurrency: p.Concurrency, Probe: p.Probe,
			Series: p.Series, Labels: labels, Median: p.Median, Max: p.Max, Runs: p.Runs, Points: p.Points}
		if p.CIOK {
			pj.Lo, pj.Hi = num(p.Lo), num(p.Hi)
		}
		out = append(out, pj)
	}
	return out
}

// WriteJSON writes the report as one indented ExperimentJSON object.
func (r *Experiment) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}

func cellsJSON(cells []analysis.Cell) map[string]CellJSON {
	out := make(map[string]CellJSON, len(cells))
	for _, c := range cells {
		cj := CellJSON{Runs: len(c.Values), NA: c.NA, LowConfidence: c.LowConfidence}
		if len(c.Values) > 0 {
			cj.Median = num(c.Median)
		}
		if c.CIOK {
			cj.Lo, cj.Hi = num(c.Lo), num(c.Hi)
		}
		out[jsonStat(c.Name)] = cj
	}
	return out
}

// jsonStat names a quantile as record.Summary does: p99.9 is p999.
func jsonStat(name string) string { return strings.ReplaceAll(name, ".", "") }

// num returns a pointer to x, nil for NaN or ±Inf.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
