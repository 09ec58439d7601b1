package plot

import (
	"math"
	"strings"
)

// maxTicks bounds the ticks of one axis, whatever the input.
const maxTicks = 200

// niceStep returns the 1, 2 or 5 × 10^k closest to x > 0.
func niceStep(x float64) float64 {
	if !(x > 1e-290) {
		return 1e-290
	}
	if x > 1e305 {
		return 1e305
	}
	e := math.Floor(math.Log10(x))
	p := math.Pow(10, e)
	switch f := x / p; {
	case f < 1.5:
		return p
	case f < 3.5:
		return 2 * p
	case f < 7.5:
		return 5 * p
	}
	return 10 * p
}

// stepsIn returns the multiples of step in [a, b].
func stepsIn(a, b, step float64) []float64 {
	i0, i1 := math.Ceil(a/step-1e-9), math.Floor(b/step+1e-9)
	if !(i1-i0 < maxTicks) {
		return nil
	}
	var vs []float64
	for i := i0; i <= i1; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // not -0, nor 1e-17 from rounding
		}
		vs = append(vs, v)
	}
	return vs
}

// logTicks returns ticks for a log10 axis from lo to hi (exponents) with
// about d labels: 1-2-5 in each decade when there is room, else decades,
// else every few decades (bytes every few powers of 1000). Under a decade
// it falls back to linear steps.
func logTicks(u Unit, lo, hi float64, d int) []tick {
	decades := hi - lo
	if decades < 1 {
		a, b := math.Pow(10, lo), math.Pow(10, hi)
		f := newTickFormat(u, b)
		step := niceStep((b - a) / f.factor / float64(d))
		var ts []tick
		for _, v := range stepsIn(a/f.factor, b/f.factor, step) {
			if s, ok := Log.forward(v * f.factor); ok {
				ts = append(ts, tick{s, f.label(v, step, true)})
			}
		}
		return ts
	}
	mults := []float64{1}
	every := 1
	switch {
	case decades*3 <= float64(d):
		mults = []float64{1, 2, 5}
	case decades > float64(d):
		every = int(math.Ceil(decades / float64(d)))
		if u == Bytes {
			every = 3 * ((every + 2) / 3) // at each unit: 1 kB, 1 MB, 1 GB
		}
	}
	var ts []tick
	for k := int(math.Floor(lo)); k <= int(math.Floor(hi)); k++ {
		if (k%every+every)%every != 0 {
			continue
		}
		for _, m := range mults {
			s := float64(k) + math.Log10(m)
			if s >= lo-1e-9 && s <= hi+1e-9 {
				ts = append(ts, tick{s, u.Format(m * math.Pow(10, float64(k)))})
			}
		}
	}
	return ts
}

// percentileTicks returns ticks at 0%, 90%, 99%, 99.9%, ... between the
// scale-space positions lo and hi, about d of them.
func percentileTicks(lo, hi float64, d int) []tick {
	k0, k1 := max(0, int(math.Ceil(lo-1e-9))), int(math.Floor(hi+1e-9))
	every := max(1, int(math.Ceil(float64(k1-k0+1)/float64(d))))
	var ts []tick
	for k := k0; k <= k1; k++ {
		if k%every == 0 {
			ts = append(ts, tick{float64(k), nines(k)})
		}
	}
	return ts
}

// nines labels the percentile 1-10^-k: 0%, 90%, 99%, 99.9%, ...
func nines(k int) string {
	switch {
	case k <= 0:
		return "0%"
	case k == 1:
		return "90%"
	case k == 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", k-2) + "%"
}
