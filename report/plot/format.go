package plot

import (
	"math"
	"strconv"
	"strings"

	"github.com/latlab/latlab/units"
)

// Format prints v in unit u in the unit package units writes it in for
// the report's tables, with up to three significant digits: Plain 1.5k,
// Seconds 3.4ms (from a minute up, as units.Seconds: 2m3s), Ratio 1.2%,
// PerSecond 12.5/s (whole from 100/s up, as units.Rate: 1235/s), Bytes
// 1.54 kB (powers of 1000). A NaN or infinite v prints as n/a.
func (u Unit) Format(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return units.NA
	}
	r := roundSig(v, 3)
	switch u {
	case Seconds:
		if math.Abs(v) >= 60 {
			return units.Seconds(v)
		}
		name, f := units.DurationUnit(math.Abs(v))
		return compact(roundSig(v/f, 3)) + name
	case Ratio:
		return compact(roundSig(v*100, 3)) + "%"
	case PerSecond:
		if v >= 100 {
			return units.Rate(v)
		}
		return compact(r) + "/s"
	case Bytes:
		name, f := units.BytesUnit(math.Abs(v))
		return compact(roundSig(v/f, 3)) + " " + name
	}
	p, f := units.Prefix(math.Abs(r))
	if math.Abs(r) >= 1e21 {
		return strconv.FormatFloat(r, 'g', 3, 64)
	}
	return compact(roundSig(r/f, 3)) + p
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	a := math.Abs(v)
	if a < 1e-290 || a > 1e300 {
		return v
	}
	p := math.Pow(10, math.Floor(math.Log10(a))-float64(n)+1)
	return math.Round(v/p) * p
}

// compact prints v, already rounded to a few significant digits, without
// trailing zeros.
func compact(v float64) string {
	if v == 0 {
		return "0"
	}
	dec := max(0, min(15, 2-int(math.Floor(math.Log10(math.Abs(v))))))
	return trimZeros(strconv.FormatFloat(v, 'f', dec, 64))
}

// trimZeros drops the zeros ending a decimal fraction, and a "-" before 0.
func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// tickFormat labels the ticks of one linear axis in one unit.
type tickFormat struct {
	unit   Unit
	factor float64 // a tick labelled 1 is this many data units
	name   string  // the unit named in the axis label: "ms", "%", "/s"
}

// newTickFormat picks the unit for an axis of u whose largest absolute
// value is m: the unit package units writes m in.
func newTickFormat(u Unit, m float64) tickFormat {
	f := tickFormat{unit: u, factor: 1}
	switch u {
	case Seconds:
		f.name, f.factor = units.DurationUnit(m)
	case Ratio:
		f.name, f.factor = "%", 0.01
	case PerSecond:
		f.name = "/s"
	case Bytes:
		f.name, f.factor = units.BytesUnit(m)
	}
	return f
}

// title returns the axis label with the unit, "latency (ms)", or "" when
// there is no label.
func (f tickFormat) title(label string) string {
	if label == "" || f.name == "" {
		return label
	}
	return label + " (" + f.name + ")"
}

// label prints the tick v (in display units) of an axis stepping by step,
// with the unit when withUnit is set. Only plain numbers take an SI
// prefix; rates are whole numbers per second, as the tables write them.
func (f tickFormat) label(v, step float64, withUnit bool) string {
	scale, prefix := 1.0, ""
	if f.unit == Plain {
		prefix, scale = units.Prefix(math.Abs(v))
	}
	dec := max(0, min(15, -int(math.Floor(math.Log10(step/scale)+1e-9))))
	s := trimZeros(strconv.FormatFloat(v/scale, 'f', dec, 64)) + prefix
	switch {
	case !withUnit || f.name == "":
		return s
	case f.unit == Bytes:
		return s + " " + f.name
	}
	return s + f.name
}
