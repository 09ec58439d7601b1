package units

// unit is one unit of a kind of number, and its size in the kind's base
// unit (seconds, bytes, ones).
type unit struct {
	name string
	size float64
}

var (
	durationUnits = []unit{{"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}}
	bytesUnits    = []unit{{"B", 1}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}}
	prefixes      = []unit{{"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}
)

// largest returns the largest unit of us (smallest first) whose size m
// reaches; the smallest when m reaches none or is NaN.
func largest(us []unit, m float64) (string, float64) {
	u := us[0]
	for _, c := range us[1:] {
		if m >= c.size {
			u = c
		}
	}
	return u.name, u.size
}

// DurationUnit returns the unit Duration writes a duration of about s
// seconds in (s ≥ 0, under a minute), and its size in seconds: "ns" below
// a microsecond, "µs", "ms", and "s" from a second up. A chart that shows
// many durations on one axis picks the unit of the largest.
func DurationUnit(s float64) (string, float64) {
	return largest(durationUnits, s)
}

// BytesUnit returns the unit Bytes writes about n bytes in (n ≥ 0), and its
// size in bytes: "B" below 1000, "kB", "MB", and "GB" from 10⁹ up.
func BytesUnit(n float64) (string, float64) {
	return largest(bytesUnits, n)
}

// Prefix returns the SI prefix a count of about m (m ≥ 0) is written with,
// and its size: "k" and 1000 for 1500; "" and 1 below 1000 and from 10²¹
// up, beyond the prefixes anyone reads.
func Prefix(m float64) (string, float64) {
	if m >= 1e21 {
		return "", 1
	}
	return largest(prefixes, m)
}
