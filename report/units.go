package report

import (
	"fmt"
	"time"
)

// Duration formats d with 4 significant digits where they are known, and
// never coarser than a microsecond: 850ns, 11.3µs, 2.415ms, 1.203s.
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

// Bytes formats n in B, kB, MB or GB (powers of 1000).
func Bytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1e6:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1e9:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f GB", float64(n)/1e9)
}

// Rate formats a per-second rate: whole from 100/s up, else with two
// decimals. A rate that rounds to 100/s, such as 99.99998, is whole too.
func Rate(r float64) string {
	if r >= 99.995 {
		return fmt.Sprintf("%.0f/s", r)
	}
	return fmt.Sprintf("%.2f/s", r)
}
