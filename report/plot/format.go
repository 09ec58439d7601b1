package plot

import (
	"math"
	"strconv"
	"strings"
)

// Format prints v in unit u with up to three significant digits: Plain
// 1.5k, Seconds 3.4ms, Ratio 1.2%, PerSecond 1k/s, Bytes 1.5 KiB. A NaN or
// infinite v prints as n/a.
func (u Unit) Format(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	switch u {
	case Seconds:
		r := roundSig(v, 3)
		if r == 0 {
			return "0s"
		}
		name, f := secondsUnit(math.Abs(r))
		return compact(roundSig(r/f, 3)) + name
	case Ratio:
		return compact(roundSig(v*100, 3)) + "%"
	case PerSecond:
		return si(v) + "/s"
	case Bytes:
		name, f := bytesUnit(math.Abs(v))
		return compact(roundSig(v/f, 3)) + " " + name
	}
	return si(v)
}

// secondsUnit returns the unit in which a duration of about m seconds
// prints, and its size in seconds.
func secondsUnit(m float64) (string, float64) {
	switch {
	case m < 1e-6:
		return "ns", 1e-9
	case m < 1e-3:
		return "µs", 1e-6
	case m < 1:
		return "ms", 1e-3
	}
	return "s", 1
}

// bytesUnit returns the binary unit in which about m bytes print, and its
// size in bytes.
func bytesUnit(m float64) (string, float64) {
	names := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f := 1.0
	for _, n := range names[:len(names)-1] {
		if m < f*1024 {
			return n, f
		}
		f *= 1024
	}
	return names[len(names)-1], f
}

// siPrefix returns the SI prefix for a number of about m, and its size.
func siPrefix(m float64) (string, float64) {
	switch {
	case m >= 1e21:
		return "", 1 // beyond the prefixes anyone reads
	case m >= 1e18:
		return "E", 1e18
	case m >= 1e15:
		return "P", 1e15
	case m >= 1e12:
		return "T", 1e12
	case m >= 1e9:
		return "G", 1e9
	case m >= 1e6:
		return "M", 1e6
	case m >= 1e3:
		return "k", 1e3
	}
	return "", 1
}

// si prints v with three significant digits and an SI prefix: 1.5k, 2M.
func si(v float64) string {
	r := roundSig(v, 3)
	p, f := siPrefix(math.Abs(r))
	if f == 1 && math.Abs(r) >= 1e21 {
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
// value is m.
func newTickFormat(u Unit, m float64) tickFormat {
	f := tickFormat{unit: u, factor: 1}
	switch u {
	case Seconds:
		f.name, f.factor = secondsUnit(m)
	case Ratio:
		f.name, f.factor = "%", 0.01
	case PerSecond:
		f.name = "/s"
	case Bytes:
		f.name, f.factor = bytesUnit(m)
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
// with the unit when withUnit is set.
func (f tickFormat) label(v, step float64, withUnit bool) string {
	scale, prefix := 1.0, ""
	if f.unit == Plain || f.unit == PerSecond {
		prefix, scale = siPrefix(math.Abs(v))
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
