package plot

import (
	"math"
)

// Unit says how axis tick labels and formatted values print. The zero value
// is Plain.
type Unit int

const (
	// Plain numbers print with SI suffixes: 12, 1.5k, 2M.
	Plain Unit = iota
	// Seconds are durations in the units of units.Duration: 850ns, 12µs,
	// 3.4ms, 1.2s, 2m3s. A linear axis picks one of ns, µs, ms and s from
	// its range and names it in the axis label: "latency (ms)".
	Seconds
	// Ratio prints as a percentage: 0.012 prints 1.2%.
	Ratio
	// PerSecond is a rate, whole from 100/s up as units.Rate writes it:
	// 12.5 prints 12.5/s, 1234.5 prints 1235/s.
	PerSecond
	// Bytes print in powers of 1000, as units.Bytes: 1536 prints 1.54 kB.
	Bytes
)

// Scale maps values to positions along an axis. The zero value is Linear.
type Scale int

const (
	// Linear places values proportionally.
	Linear Scale = iota
	// Log places log10 of values; values ≤ 0 are dropped.
	Log
	// Percentile is HdrHistogram's axis for quantiles q in [0,1): q sits at
	// -log10(1-q), so that 90%, 99%, 99.9%, ... are evenly spaced. Ticks run
	// from 0% up to the first such level at or past the largest q; values
	// outside [0,1) are dropped.
	Percentile
)

// Axis describes one axis. Its zero value is an unlabelled, automatic,
// linear axis of plain numbers.
type Axis struct {
	// Label names the quantity, such as "latency"; on a linear axis the
	// renderer appends the unit: "latency (ms)". Without a Label, and on log
	// axes (where ticks may span units: 100µs, 1ms, 10ms), the tick labels
	// carry the unit instead.
	Label string
	Unit  Unit
	Scale Scale
	// Min and Max fix the ends of the axis (in data units; quantiles for
	// Percentile); nil means automatic: a range rounded to tick steps.
	// Data outside fixed ends is clipped.
	Min, Max *float64
	// ZeroBased makes an automatic linear range include 0. A linear range
	// with negative data always includes 0, and draws a zero line.
	ZeroBased bool
}

// maxAbs bounds the values drawn: larger ones count as infinite, which
// keeps every difference of two values finite.
const maxAbs = 1e300

var nan = math.NaN()

// forward maps v to the scale's linear space, reporting whether the scale
// can show it.
func (s Scale) forward(v float64) (float64, bool) {
	if !(math.Abs(v) <= maxAbs) {
		return 0, false
	}
	switch s {
	case Log:
		if v <= 0 {
			return 0, false
		}
		return math.Log10(v), true
	case Percentile:
		if v < 0 || v >= 1 {
			return 0, false
		}
		return -math.Log10(1 - v), true
	}
	return v, true
}

// extent is the range of a set of values in scale space.
type extent struct {
	lo, hi float64
	n      int
}

func (e *extent) add(v float64) {
	if e.n == 0 || v < e.lo {
		e.lo = v
	}
	if e.n == 0 || v > e.hi {
		e.hi = v
	}
	e.n++
}

// tick is a labelled position on an axis, in scale space.
type tick struct {
	s     float64
	label string
}

// axisLayout is an axis resolved against its data and its pixels.
type axisLayout struct {
	lo, hi float64 // ends in scale space, lo < hi
	p0, p1 float64 // pixel positions of lo and hi
	ticks  []tick
	title  string // the label with its unit
	zero   bool   // a linear axis spanning 0: draw a zero line
}

// pos returns the pixel position of s.
func (a *axisLayout) pos(s float64) float64 {
	return a.p0 + (s-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// contains reports whether s lies within the axis, give or take rounding.
func (a *axisLayout) contains(s float64) bool {
	eps := (a.hi - a.lo) * 1e-9
	return s >= a.lo-eps && s <= a.hi+eps
}

// fitAxis resolves ax over e between pixels p0 and p1 with as many ticks as
// fit without their labels touching.
func fitAxis(ax Axis, e extent, p0, p1 float64, horizontal bool) axisLayout {
	spacing := 45.0
	if horizontal {
		spacing = 90
	}
	d := max(2, min(10, int(math.Abs(p1-p0)/spacing)))
	for ; ; d-- {
		a := resolve(ax, e, d)
		a.p0, a.p1 = p0, p1
		if d <= 2 || a.fits(horizontal) {
			return a
		}
	}
}

// fits reports whether no two tick labels of a overlap.
func (a *axisLayout) fits(horizontal bool) bool {
	for i := 1; i < len(a.ticks); i++ {
		gap := math.Abs(a.pos(a.ticks[i].s) - a.pos(a.ticks[i-1].s))
		need := float64(fontTick + 3)
		if horizontal {
			need = (textWidth(a.ticks[i].label, fontTick)+textWidth(a.ticks[i-1].label, fontTick))/2 + 10
		}
		if gap < need {
			return false
		}
	}
	return true
}

// resolution is the smallest step a unit's labels can show: 1 ns, 1 byte;
// 0 for units without one.
func (u Unit) resolution() float64 {
	switch u {
	case Seconds:
		return 1e-9
	case Bytes:
		return 1
	}
	return 0
}

// resolve picks the ends and about d ticks of ax over e.
func resolve(ax Axis, e extent, d int) axisLayout {
	switch ax.Scale {
	case Log:
		return resolveLog(ax, e, d)
	case Percentile:
		return resolvePercentile(ax, e, d)
	}
	return resolveLinear(ax, e, d)
}

// fixedEnd returns the scale-space value of a fixed axis end, if it is set
// and the scale can show it.
func fixedEnd(v *float64, s Scale) (float64, bool) {
	if v == nil {
		return 0, false
	}
	return s.forward(*v)
}

func resolveLinear(ax Axis, e extent, d int) axisLayout {
	lo, hi := 0.0, 1.0
	if e.n > 0 {
		lo, hi = e.lo, e.hi
		if ax.ZeroBased || lo < 0 {
			lo, hi = min(lo, 0), max(hi, 0)
		}
	}
	flo, okLo := fixedEnd(ax.Min, Linear)
	fhi, okHi := fixedEnd(ax.Max, Linear)
	if okLo {
		lo = flo
	}
	if okHi {
		hi = fhi
	}
	lo, hi = widen(lo, hi, okLo, okHi)
	if r := ax.Unit.resolution(); hi-lo < r && !okHi {
		// Differences finer than the unit's smallest step (a
		// nanosecond, a byte) are noise: show one step.
		hi = lo + r
	}
	f := newTickFormat(ax.Unit, max(math.Abs(lo), math.Abs(hi)))
	a, b := lo/f.factor, hi/f.factor
	step := niceStep((b - a) / float64(d))
	if !okLo {
		a = math.Floor(a/step+1e-9) * step
	}
	if !okHi {
		b = math.Ceil(b/step-1e-9) * step
	}
	l := axisLayout{lo: a * f.factor, hi: b * f.factor, title: f.title(ax.Label)}
	for _, v := range stepsIn(a, b, step) {
		l.ticks = append(l.ticks, tick{v * f.factor, f.label(v, step, ax.Label == "")})
	}
	l.zero = l.lo < 0 && l.hi > 0
	return l
}

// widen returns a usable range for lo..hi: fixed ends swapped if reversed,
// and a range too narrow to draw widened around its data.
func widen(lo, hi float64, okLo, okHi bool) (float64, float64) {
	if lo > hi && okLo && okHi {
		lo, hi = hi, lo
	}
	if span := hi - lo; span > 1e-200 && span > 1e-9*max(math.Abs(lo), math.Abs(hi)) {
		return lo, hi
	}
	mid := (lo + hi) / 2
	if !okLo && !okHi && mid == 0 {
		return 0, 1
	}
	base := mid // the value the range is widened around
	switch {
	case okLo && !okHi:
		base = lo
	case okHi && !okLo:
		base = hi
	}
	w := max(math.Abs(base)*0.2, 1e-200)
	if base == 0 {
		w = 1
	}
	switch {
	case okLo && !okHi:
		return lo, lo + w
	case okHi && !okLo:
		return hi - w, hi
	}
	return mid - w/2, mid + w/2
}

func resolveLog(ax Axis, e extent, d int) axisLayout {
	lo, hi := 0.0, 1.0
	if e.n > 0 {
		lo, hi = math.Floor(e.lo+1e-9), math.Ceil(e.hi-1e-9)
	}
	lo, hi = fixEnds(ax, lo, hi)
	return axisLayout{lo: lo, hi: hi, title: ax.Label, ticks: logTicks(ax.Unit, lo, hi, d)}
}

func resolvePercentile(ax Axis, e extent, d int) axisLayout {
	lo, hi := 0.0, 2.0
	if e.n > 0 {
		hi = max(1, math.Ceil(e.hi-1e-6))
	}
	lo, hi = fixEnds(ax, lo, hi)
	return axisLayout{lo: lo, hi: hi, title: ax.Label, ticks: percentileTicks(lo, hi, d)}
}

// fixEnds applies the fixed ends of a log or percentile axis to the
// automatic range lo..hi, in scale space, keeping at least a decade.
func fixEnds(ax Axis, lo, hi float64) (float64, float64) {
	flo, okLo := fixedEnd(ax.Min, ax.Scale)
	fhi, okHi := fixedEnd(ax.Max, ax.Scale)
	if okLo {
		lo = flo
	}
	if okHi {
		hi = fhi
	}
	if lo > hi && okLo && okHi {
		lo, hi = hi, lo
	}
	if hi-lo < 1e-6 {
		switch {
		case okLo && okHi:
			return (lo+hi)/2 - 0.5, (lo+hi)/2 + 0.5
		case okHi:
			return hi - 1, hi
		}
		return lo, lo + 1
	}
	return lo, hi
}
