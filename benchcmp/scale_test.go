package benchcmp

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// synth returns 5 noisy measurements of f at each of 8 sizes.
func synth(seed uint64, noise float64, f func(n float64) float64) ScaleSeries {
	r := rand.New(rand.NewPCG(seed, 1))
	s := ScaleSeries{Name: "synthetic", Unit: "B/op"}
	for _, n := range []float64{1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000} {
		for range 5 {
			s.Points = append(s.Points, ScalePoint{n, f(n) * (1 + noise*r.NormFloat64())})
		}
	}
	return s
}

func TestFitScaleSynthetic(t *testing.T) {
	tests := []struct {
		name string
		f    func(n float64) float64
		want string
	}{
		{"linear", func(n float64) float64 { return 500 + 368*n }, ScaleLinear},
		{"quadratic", func(n float64) float64 { return 500 + 10*n + 0.01*n*n }, ScaleSuperlinear},
		{"nlogn", func(n float64) float64 { return 100 * n * math.Log(n) }, ScaleSuperlinear},
		{"log", func(n float64) float64 { return 1000 + 300*math.Log(n) }, ScaleSublinear},
		{"sqrt", func(n float64) float64 { return 50 * math.Sqrt(n) }, ScaleSublinear},
		{"flat", func(n float64) float64 { return 4096 }, ScaleSublinear},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(20) {
				fit, err := FitScale(synth(seed, 0.02, tt.f))
				if err != nil {
					t.Fatal(err)
				}
				if fit.Verdict != tt.want {
					t.Errorf("seed %d: verdict %s (best %s: %s), want %s", seed, fit.Verdict, fit.Best, fit.Reason, tt.want)
				}
			}
		})
	}
}

func TestFitScaleSlope(t *testing.T) {
	fit, err := FitScale(synth(1, 0.01, func(n float64) float64 { return 4096 + 368*n }))
	if err != nil {
		t.Fatal(err)
	}
	if fit.SlopeLo > 368 || fit.SlopeHi < 368 || fit.SlopeHi-fit.SlopeLo > 10 {
		t.Errorf("slope %v [%v, %v], want a narrow interval around 368", fit.Slope, fit.SlopeLo, fit.SlopeHi)
	}
	if fit.R2 < 0.999 {
		t.Errorf("R² %v, want > 0.999", fit.R2)
	}
}

func TestStudentT(t *testing.T) {
	for _, tt := range []struct{ df, want float64 }{{1, 12.7062}, {5, 2.5706}, {10, 2.2281}, {30, 2.0423}, {1000, 1.9623}} {
		if got := studentTQuantile(0.975, tt.df); math.Abs(got-tt.want) > 1e-3 {
			t.Errorf("t(0.975, %v) = %v, want %v", tt.df, got, tt.want)
		}
	}
}

func TestScaleGolden(t *testing.T) {
	for _, name := range []string{"exporter.txt", "memory.csv"} {
		f, err := os.Open("testdata/scale/" + name)
		if err != nil {
			t.Fatal(err)
		}
		series, err := ParseScale(f, "testdata/scale/"+name)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var fits []*ScaleFit
		for _, s := range series {
			fit, err := FitScale(s)
			if err != nil {
				t.Fatal(err)
			}
			fits = append(fits, fit)
		}
		var b bytes.Buffer
		if err := WriteScaleText(&b, fits); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "scale/"+name+".golden", b.Bytes())
	}
}

// TestScaleExporter is the flow-exporter study's check: memory grows
// linearly with connections.
func TestScaleExporter(t *testing.T) {
	data, _ := os.ReadFile("testdata/scale/exporter.txt")
	series, err := ParseScale(bytes.NewReader(data), "exporter.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sec/op": ScaleSuperlinear, "B/op": ScaleLinear, "allocs/op": ScaleLinear}
	for _, s := range series {
		if s.Name != "BenchmarkExport-2" || len(s.Points) != 30 {
			t.Errorf("series %s %s with %d points, want BenchmarkExport-2 with 30", s.Name, s.Unit, len(s.Points))
		}
		fit, err := FitScale(s)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Verdict != want[s.Unit] {
			t.Errorf("%s: verdict %s (%s), want %s", s.Unit, fit.Verdict, fit.Reason, want[s.Unit])
		}
	}
}

func TestParseScaleErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"n,value\n1,2\n3,x\n", "f.csv:3: field value: \"x\" is not a number"},
		{"n\n1\n", "f.csv:1: want a CSV header like n,value"},
		{"n,value\n", "f.csv:2: no data rows"},
		{"n,value\n1,2\n3\n", "f.csv:3:"},
		{"goos: linux\nBenchmarkX-8 10 100 ns/op\n", "no benchmark with a size"},
		{"BenchmarkX/n=1-8 ten 100 ns/op\n", "f.csv:1:"},
	}
	for _, tt := range tests {
		_, err := ParseScale(strings.NewReader(tt.in), "f.csv")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseScale(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}
