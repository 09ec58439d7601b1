package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/record"
)

// rankResult is a run of n requests whose latencies are 1 ms, 2 ms, …,
// n ms, failed of them unsuccessful: the value of rank k is k ms, within
// the histogram's 3 significant digits.
func rankResult(n, failed int64) *record.Result {
	res := &record.Result{Latency: record.NewHistogram(), Service: record.NewHistogram(), Lag: record.NewHistogram(),
		Requests: n, Unsuccessful: failed}
	for i := int64(1); i <= n; i++ {
		_ = res.Latency.RecordValue(i * int64(time.Millisecond))
	}
	return res
}

func TestAttackSLOText(t *testing.T) {
	slo, err := analysis.ParseSLO("p50<45ms,p99<80ms,p99.9<1s,errors<1%")
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		a := analysis.JudgeAttack(rankResult(100, 2), slo, strict)
		var b bytes.Buffer
		if err := WriteAttackSLO(&b, a); err != nil {
			t.Fatal(err)
		}
		b.WriteString("--- violations\n")
		if err := WriteAttackViolations(&b, a); err != nil {
			t.Fatal(err)
		}
		name := "attack-slo.txt"
		if strict {
			name = "attack-slo-strict.txt"
		}
		checkGolden(t, name, b.String())
	}
}

func TestWriteAttackJSON(t *testing.T) {
	res := rankResult(100, 0)
	var plain, sum bytes.Buffer
	if err := WriteAttackJSON(&plain, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	s, err := record.Summarize(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteJSON(&sum); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sum.String(), plain.String()); diff != "" {
		t.Errorf("without an SLO, not record.Summary's JSON (-want +got):\n%s", diff)
	}

	slo, err := analysis.ParseSLO("p99.9<1s,errors<1%")
	if err != nil {
		t.Fatal(err)
	}
	var judged bytes.Buffer
	if err := WriteAttackJSON(&judged, res, analysis.JudgeAttack(res, slo, false), nil); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(judged.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	var base map[string]json.RawMessage
	_ = json.Unmarshal(sum.Bytes(), &base)
	for k, v := range base {
		if !bytes.Equal(m[k], v) {
			t.Errorf("%s: %s, want record.Summary's %s", k, m[k], v)
		}
	}
	var got struct{ SLO AttackSLOJSON }
	if err := json.Unmarshal(m["slo"], &got.SLO); err != nil {
		t.Fatalf("slo: %v in %s", err, m["slo"])
	}
	zero := 0.0
	want := AttackSLOJSON{SLO: "p99.9<1s,errors<1%", Met: false, Limits: []AttackLimitJSON{
		{Limit: "p99.9<1s", Max: 1, Judged: "n/a: too few samples (100, needs 1000)"},
		{Limit: "errors<1%", Max: 0.01, Value: &zero, Bound: &zero, Judged: "95% CI lower bound (Wilson)", Met: true},
	}}
	if diff := cmp.Diff(want, got.SLO); diff != "" {
		t.Errorf("slo (-want +got):\n%s", diff)
	}
	if !strings.Contains(judged.String(), `"value": null`) {
		t.Errorf("an n/a value is not null:\n%s", judged.String())
	}
}
