package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseSpecSLOErrors checks that a bad slo names the file, the line
// and the field, on a block mapping whose entries sit on lines of their
// own.
func TestParseSpecSLOErrors(t *testing.T) {
	testErrors(t, []errorCase{
		{
			name: "duration",
			spec: loadBase + "slo:\n  p50: 10ms\n  p99: fast\n",
			want: "spec.yaml:10: slo.p99: \"fast\" is not a duration such as 10s or 1m30s",
		},
		{
			name: "quantile not judged",
			spec: loadBase + "slo:\n  p75: 10ms\n  p99: 50ms\n",
			want: "spec.yaml:9: slo.p75: latlab reports and judges p50, p90, p95, p99, p99.9 and p100 (the maximum) only",
		},
		{
			name: "errors",
			spec: loadBase + "slo:\n  p99: 50ms\n  errors: -1%\n",
			want: "spec.yaml:10: slo.errors: -1% is negative",
		},
		{
			name: "not a mapping",
			spec: loadBase + "slo: p99<50ms\n",
			want: "spec.yaml:8: slo: expected a mapping, got a string",
		},
	})
}

func TestSLONamed(t *testing.T) {
	s, err := ParseSpec("spec.yaml", []byte(loadBase+"slo: {p100: 1s, p99.0: 50ms, p99.9: 80ms, errors: 0.5%}\n"), "testdata/specs")
	if err != nil {
		t.Fatal(err)
	}
	errs := 0.005
	want := SLO{Latency: []Percentile{
		{Name: "p99", Q: 0.99, Latency: 50 * time.Millisecond},
		{Name: "p99.9", Q: 0.999, Latency: 80 * time.Millisecond},
		{Name: "max", Q: 1, Latency: time.Second},
	}, Errors: &errs}
	if diff := cmp.Diff(want, s.SLO.Named()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpecSLO(t *testing.T) {
	errs := 0.01
	tests := []struct {
		name    string
		data    string
		want    SLO
		wantErr string
	}{
		{"spec", loadBase + "slo: {p99: 50ms, errors: 1%}\n",
			SLO{Latency: []Percentile{{Name: "p99", Q: 0.99, Latency: 50 * time.Millisecond}}, Errors: &errs}, ""},
		// Only slo is read: the rest need not be a valid spec here.
		{"rest unchecked", "version: 7\nvariants: [{graph: missing.yaml}]\nslo:\n  p50: 1ms\n",
			SLO{Latency: []Percentile{{Name: "p50", Q: 0.5, Latency: time.Millisecond}}}, ""},
		{"no slo", loadBase, SLO{}, ""},
		{"attack command line", "latlab attack http://127.0.0.1:8080/ -c 50 -H 'A: b: c'", SLO{}, ""},
		{"empty", "", SLO{}, ""},
		{"bad value", loadBase + "slo:\n  p99: 50\n", SLO{}, "results.db (experiment 3):9: slo.p99: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SpecSLO("results.db (experiment 3)", []byte(tt.data))
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
