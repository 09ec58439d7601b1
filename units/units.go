package units

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// NA is what a value that is not there reads as.
const NA = "n/a"

// Duration formats d with 4 significant digits where they are known, and
// never coarser than a microsecond: 850ns, 11.3µs, 2.415ms, 1.203s; from a
// minute up, to the second: 2m3s.
func Duration(d time.Duration) string {
	switch a := d.Abs(); {
	case a < time.Microsecond:
		return fmt.Sprintf("%dns", d)
	case a < 100*time.Microsecond:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	case a < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	case a < 10*time.Millisecond:
		return fmt.Sprintf("%.3fms", float64(d)/1e6)
	case a < 100*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case a < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	case a < time.Minute:
		return fmt.Sprintf("%.3fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// Seconds formats s seconds as Duration does, rounded to the nanosecond;
// NaN or an infinity reads n/a.
func Seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return NA
	}
	switch ns := math.Round(s * 1e9); {
	case ns >= math.MaxInt64: // 2^63: past the longest Duration
		return Duration(math.MaxInt64)
	case ns <= math.MinInt64:
		return Duration(math.MinInt64)
	default:
		return Duration(time.Duration(ns))
	}
}

// Signed is Seconds with the sign always shown, and a real minus sign:
// "+52.3µs", "−1.203ms"; zero has no sign.
func Signed(s float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return NA
	case s < 0:
		return "−" + Seconds(-s)
	case s > 0:
		return "+" + Seconds(s)
	}
	return Seconds(s)
}

// Rate formats a measured per-second rate: whole from 100/s up, else with
// two decimals. A rate that rounds to 100/s, such as 99.99998, is whole
// too. NaN reads n/a.
func Rate(r float64) string {
	switch {
	case math.IsNaN(r):
		return NA
	case r >= 99.995:
		return fmt.Sprintf("%.0f/s", r)
	}
	return fmt.Sprintf("%.2f/s", r)
}

// ExactRate formats a target rate as a spec gives it, with the fewest digits
// that say it exactly: 40/s, 2.5/s, 1e+06/s.
func ExactRate(r float64) string {
	return strconv.FormatFloat(r, 'g', -1, 64) + "/s"
}

// Bytes formats n in the unit BytesUnit picks, B, kB, MB or GB (powers of
// 1000): whole bytes, one decimal in kB and MB, two in GB.
func Bytes(n int64) string {
	switch name, size := BytesUnit(float64(n)); name {
	case "B":
		return fmt.Sprintf("%d B", n)
	case "GB":
		return fmt.Sprintf("%.2f GB", float64(n)/size)
	default:
		return fmt.Sprintf("%.1f %s", float64(n)/size, name)
	}
}

// SignedPercent is Percent with its sign, as Signed writes one: "+1.23%",
// "−52.5%", "0.0%".
func SignedPercent(ratio float64, prec int) string {
	p := Percent(math.Abs(ratio), prec)
	switch {
	case math.IsNaN(ratio) || p == Percent(0, prec):
		return p
	case ratio < 0:
		return "−" + p
	}
	return "+" + p
}

// Percent formats a ratio as a percentage with prec decimals: Percent(0.0123,
// 2) is "1.23%". NaN reads n/a.
func Percent(ratio float64, prec int) string {
	if math.IsNaN(ratio) {
		return NA
	}
	return strconv.FormatFloat(100*ratio, 'f', prec, 64) + "%"
}

// Round rounds d to a second, or a millisecond below a second.
func Round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// Count writes n and its noun: the singular, the plural given or the
// singular with an s.
func Count(n int, forms ...string) string {
	switch {
	case n == 1:
		return "1 " + forms[0]
	case len(forms) > 1:
		return strconv.Itoa(n) + " " + forms[1]
	}
	return strconv.Itoa(n) + " " + forms[0] + "s"
}
