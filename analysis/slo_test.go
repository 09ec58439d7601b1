package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/spec"

	"github.com/google/go-cmp/cmp"
)

func ratio(x float64) *float64 { return &x }

func lim(name string, q float64, d time.Duration) spec.Percentile {
	return spec.Percentile{Name: name, Q: q, Latency: d}
}

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in      string
		want    SLO
		wantErr string
	}{
		{"", SLO{}, ""},
		{"p99<50ms", SLO{Latency: []spec.Percentile{lim("p99", 0.99, 50*time.Millisecond)}}, ""},
		{" p99.9 < 200ms , p50<1ms, errors<1% ", SLO{Latency: []spec.Percentile{
			lim("p50", 0.5, time.Millisecond), lim("p99.9", 0.999, 200*time.Millisecond)}, Errors: ratio(0.01)}, ""},
		{"max<1s,errors<0%", SLO{Latency: []spec.Percentile{lim("max", 1, time.Second)}, Errors: ratio(0)}, ""},
		{"p50<330µs", SLO{Latency: []spec.Percentile{lim("p50", 0.5, 330*time.Microsecond)}}, ""},
		{"p75<1ms", SLO{}, "p75 is not a reported quantile"},
		{"p99>1ms", SLO{}, "want NAME<LIMIT"},
		{"p99<", SLO{}, "want NAME<LIMIT"},
		{"p99<fast", SLO{}, "positive duration"},
		{"p99<-1ms", SLO{}, "positive duration"},
		{"errors<1", SLO{}, "percentage"},
		{"errors<101%", SLO{}, "percentage"},
		{"p99<1ms,p99<2ms", SLO{}, "limited twice"},
		{"p99<1ms,", SLO{}, "want NAME<LIMIT"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSLO(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if back, err := ParseSLO(got.String()); err != nil || !cmp.Equal(back, got) {
				t.Errorf("FormatSLO %q does not parse back: %v", got.String(), err)
			}
		})
	}
}

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<50ms", "p50<1ms,p99.9<1s,errors<1%", "max<2s", "errors<0.5%", "p99<", ",", "errors<%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s)
		if err != nil {
			return
		}
		back, err := ParseSLO(slo.String())
		if err != nil {
			t.Fatalf("FormatSLO(ParseSLO(%q)) = %q: %v", s, slo.String(), err)
		}
		if !cmp.Equal(back, slo) {
			t.Errorf("round trip of %q: %+v, then %+v", s, slo, back)
		}
		if e := slo.Errors; e != nil && !(*e >= 0 && *e <= 1) {
			t.Errorf("%q: error ratio %v out of [0, 1]", s, *e)
		}
	})
}
