package spec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/record"
)

// planSpec has 3 variants × 3 rates × runs.
func planSpec(t *testing.T, runs int, order string) *Spec {
	t.Helper()
	return mustParse(t, fmt.Sprintf(`version: 1
name: t
variants:
  - {name: plain, target: 'http://127.0.0.1:9000/'}
  - {name: proxy, target: 'http://127.0.0.1:9001/'}
  - {name: filter, target: 'http://127.0.0.1:9002/'}
load: {rates: [100, 200, 400]}
runs: %d
order: %s
`, runs, order))
}

// pair names a trial's variant and level.
func pair(t Trial) string { return fmt.Sprintf("%s@%g/%d", t.Variant, t.Rate, t.Concurrency) }

func TestPlanInterleaved(t *testing.T) {
	s := planSpec(t, 10, "interleaved")
	plan := s.Plan(42)
	if len(plan) != 90 {
		t.Fatalf("%d trials, want 90", len(plan))
	}
	all := map[string]bool{}
	for _, tr := range s.Plan(0)[:9] {
		all[pair(tr)] = true
	}
	if len(all) != 9 {
		t.Fatalf("%d pairs, want 9", len(all))
	}
	orders := map[string]bool{}
	for i, tr := range plan {
		if tr.Position != i+1 || tr.Rep != i/9+1 {
			t.Errorf("trial %d: position %d, rep %d", i, tr.Position, tr.Rep)
		}
	}
	for rep := range 10 {
		var names []string
		for _, tr := range plan[rep*9 : rep*9+9] {
			names = append(names, pair(tr))
		}
		seen := map[string]bool{}
		for _, n := range names {
			if !all[n] || seen[n] {
				t.Errorf("rep %d: %s unknown or repeated", rep+1, n)
			}
			seen[n] = true
		}
		orders[fmt.Sprint(names)] = true
	}
	if len(orders) < 5 {
		t.Errorf("only %d different orders in 10 repetitions", len(orders))
	}
	if diff := cmp.Diff(plan, s.Plan(42)); diff != "" {
		t.Errorf("same seed, different plan:\n%s", diff)
	}
	if cmp.Equal(plan, s.Plan(43)) {
		t.Error("seeds 42 and 43 gave the same plan")
	}
	// More runs keep the order of the first ones.
	if diff := cmp.Diff(plan, planSpec(t, 12, "interleaved").Plan(42)[:90]); diff != "" {
		t.Errorf("12 runs do not start as 10 do:\n%s", diff)
	}
}

func TestPlanInterleavedFixed(t *testing.T) {
	// The order a seed gives must never change in any version: latlab run
	// makes the plan again from the stored seed and version to resume it.
	for _, tc := range []struct {
		version int
		want    []string
	}{
		{1, []string{
			"plain@100/0", "plain@200/0", "proxy@200/0", "proxy@100/0", "filter@200/0", "plain@400/0", "filter@100/0", "filter@400/0", "proxy@400/0",
			"proxy@400/0", "plain@100/0", "plain@200/0", "proxy@200/0", "filter@200/0", "proxy@100/0", "filter@400/0", "filter@100/0", "plain@400/0",
		}},
		{2, []string{
			"proxy@100/0", "plain@100/0", "filter@100/0", "plain@400/0", "filter@400/0", "proxy@400/0", "plain@200/0", "proxy@200/0", "filter@200/0",
			"plain@200/0", "filter@200/0", "proxy@200/0", "plain@400/0", "filter@400/0", "proxy@400/0", "filter@100/0", "plain@100/0", "proxy@100/0",
		}},
	} {
		var got []string
		for _, tr := range planSpec(t, 2, "interleaved").PlanOf(1, tc.version) {
			got = append(got, pair(tr))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("version %d, plan of seed 1 (-want +got):\n%s", tc.version, diff)
		}
	}
	if !cmp.Equal(planSpec(t, 2, "interleaved").Plan(1), planSpec(t, 2, "interleaved").PlanOf(1, PlanVersion)) {
		t.Error("Plan is not PlanOf the current version")
	}
}

// TestPlanLevelsTogether checks that a repetition runs every variant at
// a level before the next level, so that a variant's run and its
// baseline's are at most the variants apart, with the levels' order and
// each level's variants both drawn afresh in each repetition. Variants
// whose loads give other levels make levels of their own.
func TestPlanLevelsTogether(t *testing.T) {
	s := mustParse(t, `version: 1
name: t
variants:
  - {name: a, target: 'http://127.0.0.1:9000/'}
  - {name: b, target: 'http://127.0.0.1:9001/'}
  - {name: c, target: 'http://127.0.0.1:9002/'}
  - {name: d, target: 'http://127.0.0.1:9003/', load: {rates: [20, 40]}}
  - {name: e, target: 'http://127.0.0.1:9004/', load: {mode: closed, concurrency: [8]}}
load: {rates: [10, 20]}
runs: 20
`)
	plan := s.Plan(7)
	if len(plan) != 9*20 {
		t.Fatalf("%d trials, want %d", len(plan), 9*20)
	}
	levelOrders, variantOrders := map[string]bool{}, map[string]bool{}
	for rep := 1; rep <= 20; rep++ {
		block := plan[(rep-1)*9 : rep*9]
		var levels []string
		done := map[record.Level]bool{}
		for i, tr := range block {
			if tr.Rep != rep {
				t.Fatalf("trial %d of repetition %d has rep %d", i, rep, tr.Rep)
			}
			if i > 0 && block[i-1].Level == tr.Level {
				continue
			}
			if done[tr.Level] {
				t.Errorf("repetition %d: level %v comes back after another: %v", rep, tr.Level, block)
			}
			done[tr.Level] = true
			levels = append(levels, tr.Level.String())
		}
		if len(levels) != 4 {
			t.Errorf("repetition %d: %d levels, want 4 (10/s, 20/s, 40/s, c=8)", rep, len(levels))
		}
		levelOrders[fmt.Sprint(levels)] = true
		var at20 []string
		for _, tr := range block {
			if tr.Rate == 20 {
				at20 = append(at20, tr.Variant)
			}
		}
		variantOrders[fmt.Sprint(at20)] = true
	}
	// 24 orders of 4 levels and 24 of the 4 variants at 20/s: 20
	// repetitions draw many of each.
	if len(levelOrders) < 8 || len(variantOrders) < 8 {
		t.Errorf("%d orders of the levels and %d of the variants at 20/s in 20 repetitions; want more", len(levelOrders), len(variantOrders))
	}
}

func TestPlanGrouped(t *testing.T) {
	s := mustParse(t, `version: 1
name: t
variants:
  - {name: a, target: 'http://127.0.0.1:9000/'}
  - {name: b, target: 'http://127.0.0.1:9001/', load: {mode: closed, concurrency: [50, 300]}}
  - {name: c, target: 'http://127.0.0.1:9002/', load: {mode: sequential}}
load: {rates: [10, 20]}
runs: 2
order: grouped
`)
	r10, r20 := record.Level{Rate: 10}, record.Level{Rate: 20}
	c50, c300, c1 := record.Level{Concurrency: 50}, record.Level{Concurrency: 300}, record.Level{Concurrency: 1}
	want := []Trial{
		{"a", r10, 1, 1}, {"a", r10, 2, 2}, {"a", r20, 1, 3}, {"a", r20, 2, 4},
		{"b", c50, 1, 5}, {"b", c50, 2, 6}, {"b", c300, 1, 7}, {"b", c300, 2, 8},
		{"c", c1, 1, 9}, {"c", c1, 2, 10},
	}
	if diff := cmp.Diff(want, s.Plan(7)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if !cmp.Equal(s.Plan(7), s.Plan(8)) {
		t.Error("grouped plan depends on the seed")
	}
}

func TestPlanEveryTrialLoads(t *testing.T) {
	s := planSpec(t, 3, "interleaved")
	for _, tr := range s.Plan(5) {
		cfg, err := s.LoadFor(tr, "")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Model == nil || !slices.Contains(s.Load.Rates, tr.Rate) {
			t.Errorf("trial %+v: model %v", tr, cfg.Model)
		}
	}
}
