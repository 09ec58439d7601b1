package benchcmp

import (
	"fmt"
	"math"
	"sort"
)

// Scaling verdicts.
const (
	ScaleLinear      = "linear"
	ScaleSuperlinear = "superlinear"
	ScaleSublinear   = "sublinear"
)

// ScaleModel is one least-squares fit of value against size n.
type ScaleModel struct {
	// Name is linear (a + b·n), nlogn (a + b·n·ln n), quadratic
	// (a + b·n + c·n²), log (a + b·ln n) or sqrt (a + b·√n).
	Name string `json:"name"`
	// Params are a, b (and c), with their 95% confidence intervals.
	Params []float64 `json:"params"`
	Lo     []float64 `json:"params_lo"`
	Hi     []float64 `json:"params_hi"`
	R2     float64   `json:"r2"`
	AICc   float64   `json:"aicc"`
}

// ScaleFit is the result of FitScale.
type ScaleFit struct {
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Points int     `json:"points"`
	MinN   float64 `json:"min_n"`
	MaxN   float64 `json:"max_n"`
	// Models holds every model that could be fitted, best AICc first.
	Models []ScaleModel `json:"models"`
	// Best is the model with the lowest AICc.
	Best string `json:"best"`
	// Slope is b of the linear fit, in Unit per unit of n, with its 95%
	// confidence interval; R2 is that fit's R².
	Slope   float64 `json:"slope"`
	SlopeLo float64 `json:"slope_lo"`
	SlopeHi float64 `json:"slope_hi"`
	R2      float64 `json:"r2"`
	// Verdict is ScaleLinear, ScaleSuperlinear or ScaleSublinear; Reason says why.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

// minAICcGain is how much lower than the linear model's AICc another
// model's must be to be preferred: under 2 is not evidence.
const minAICcGain = 2

// FitScale fits the linear, n·log n, quadratic, log and sqrt models to s by
// weighted least squares (weights 1/ȳ(n)², ȳ(n) the mean value at size n:
// benchmark noise is relative) and decides how s grows with n:
//
//   - The model with the lowest AICc (AIC with the small-sample
//     correction; Gaussian errors, parameters + variance counted) wins,
//     but linear is the reference: another model must beat it by at
//     least 2, or linear is taken.
//   - superlinear: n·log n wins with b > 0, or quadratic wins with
//     c > 0 and c's 95% CI excluding zero.
//   - sublinear: log or sqrt wins, or quadratic wins with c < 0 and its
//     CI excluding zero, or (linear taken) the slope's 95% CI includes
//     zero or lies below it: the metric does not grow with n.
//   - linear: otherwise.
//
// n·log n and log need n > 0, sqrt n ≥ 0; quadratic needs 6 points.
// FitScale fails with fewer than 3 distinct sizes or 4 points.
func FitScale(s ScaleSeries) (*ScaleFit, error) {
	f := &ScaleFit{Name: s.Name, Unit: s.Unit, Points: len(s.Points), MinN: math.Inf(1), MaxN: math.Inf(-1)}
	distinct := map[float64]bool{}
	for _, p := range s.Points {
		distinct[p.N] = true
		f.MinN, f.MaxN = math.Min(f.MinN, p.N), math.Max(f.MaxN, p.N)
	}
	if len(distinct) < 3 || len(s.Points) < 4 {
		return nil, fmt.Errorf("%s %s: need at least 3 sizes and 4 points, have %d and %d", s.Name, s.Unit, len(distinct), len(s.Points))
	}
	w := scaleWeights(s.Points)
	for _, m := range scaleBases(f.MinN) {
		if sm, ok := fitModel(m, s.Points, w); ok {
			f.Models = append(f.Models, sm)
		}
	}
	if len(f.Models) == 0 || f.Models[0].Name != "linear" {
		return nil, fmt.Errorf("%s %s: cannot fit a line: sizes are degenerate", s.Name, s.Unit)
	}
	lin := f.Models[0]
	f.Slope, f.SlopeLo, f.SlopeHi, f.R2 = lin.Params[1], lin.Lo[1], lin.Hi[1], lin.R2
	sort.SliceStable(f.Models, func(i, j int) bool { return f.Models[i].AICc < f.Models[j].AICc })
	best := f.Models[0]
	f.Best = best.Name
	f.Verdict, f.Reason = verdict(best, lin)
	return f, nil
}

// A scaleBasis is a model's columns at size n.
type scaleBasis struct {
	name string
	cols func(n float64) []float64
}

// scaleBases are the models FitScale compares, linear first, those whose
// columns the sizes allow (log n needs n > 0, √n n ≥ 0).
func scaleBases(minN float64) []scaleBasis {
	out := []scaleBasis{{"linear", func(n float64) []float64 { return []float64{1, n} }}}
	if minN > 0 {
		out = append(out, scaleBasis{"nlogn", func(n float64) []float64 { return []float64{1, n * math.Log(n)} }})
	}
	out = append(out, scaleBasis{"quadratic", func(n float64) []float64 { return []float64{1, n, n * n} }})
	if minN > 0 {
		out = append(out, scaleBasis{"log", func(n float64) []float64 { return []float64{1, math.Log(n)} }})
	}
	if minN >= 0 {
		out = append(out, scaleBasis{"sqrt", func(n float64) []float64 { return []float64{1, math.Sqrt(n)} }})
	}
	return out
}

// scaleWeights are the square roots of the points' weights: benchmark
// noise is proportional to the value, so relative errors are fitted,
// each point weighted by 1/ȳ(n)², ȳ(n) the mean at its size; unweighted
// when a mean is not positive.
func scaleWeights(points []ScalePoint) []float64 {
	sums, counts := map[float64]float64{}, map[float64]float64{}
	for _, p := range points {
		sums[p.N] += p.Value
		counts[p.N]++
	}
	sw := make([]float64, len(points))
	for i, p := range points {
		if sums[p.N] <= 0 {
			for i := range sw {
				sw[i] = 1
			}
			return sw
		}
		sw[i] = 1
		if m := sums[p.N] / counts[p.N]; m > 0 {
			sw[i] = 1 / m
		}
	}
	return sw
}

// fitModel fits m to points by least squares weighted by sw² and gives
// its parameters with their 95% intervals, R² and AICc; ok is false when
// the points are too few for the model or its columns are degenerate.
func fitModel(m scaleBasis, points []ScalePoint, sw []float64) (sm ScaleModel, ok bool) {
	y := make([]float64, len(points))
	mean, wsum := 0.0, 0.0
	for i, p := range points {
		y[i] = p.Value * sw[i]
		mean += p.Value * sw[i] * sw[i]
		wsum += sw[i] * sw[i]
	}
	mean /= wsum
	tss := 0.0
	for i, p := range points {
		tss += (p.Value - mean) * (p.Value - mean) * sw[i] * sw[i]
	}
	X := make([][]float64, len(points))
	for i, p := range points {
		X[i] = m.cols(p.N)
		for j := range X[i] {
			X[i][j] *= sw[i]
		}
	}
	N, k := float64(len(y)), float64(len(X[0])+1)
	if N-k-1 <= 0 {
		return sm, false
	}
	beta, se, rss, ok := lstsq(X, y)
	if !ok {
		return sm, false
	}
	sm = ScaleModel{Name: m.name, Params: beta, R2: 1}
	if tss > 0 {
		sm.R2 = 1 - rss/tss
	}
	// A perfect fit would give −∞; floor the RSS far below any noise.
	rss = math.Max(rss, 1e-24*math.Max(tss, 1e-300))
	sm.AICc = N*math.Log(rss/N) + 2*k + 2*k*(k+1)/(N-k-1)
	t := studentTQuantile(0.975, N-float64(len(beta)))
	for i := range beta {
		sm.Lo = append(sm.Lo, beta[i]-t*se[i])
		sm.Hi = append(sm.Hi, beta[i]+t*se[i])
	}
	return sm, true
}

func verdict(best, lin ScaleModel) (string, string) {
	gain := lin.AICc - best.AICc
	if best.Name != "linear" && gain >= minAICcGain {
		switch {
		case best.Name == "nlogn" && best.Params[1] > 0:
			return ScaleSuperlinear, fmt.Sprintf("n·log n fits better than linear (ΔAICc %.1f)", gain)
		case best.Name == "quadratic" && best.Lo[2] > 0:
			return ScaleSuperlinear, fmt.Sprintf("quadratic fits better than linear (ΔAICc %.1f), n² term's CI excludes zero", gain)
		case best.Name == "quadratic" && best.Hi[2] < 0:
			return ScaleSublinear, fmt.Sprintf("concave quadratic fits better than linear (ΔAICc %.1f)", gain)
		case best.Name == "log" || best.Name == "sqrt":
			return ScaleSublinear, fmt.Sprintf("%s fits better than linear (ΔAICc %.1f)", best.Name, gain)
		}
	}
	if lin.Lo[1] <= 0 {
		return ScaleSublinear, "the linear slope's 95% CI includes zero or lies below it: no growth with n"
	}
	return ScaleLinear, "no model beats linear by ΔAICc ≥ 2 and the slope's 95% CI is above zero"
}
