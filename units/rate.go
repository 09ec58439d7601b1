package units

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseRate parses a rate of requests: per second ("100"), or per a period
// as vegeta writes it ("100/s", "100/1s", "6000/m", "5/100ms"). It is 0 or
// more and finite.
func ParseRate(s string) (float64, error) {
	n, per, slash := strings.Cut(strings.TrimSpace(s), "/")
	rate, err := strconv.ParseFloat(n, 64)
	if err != nil || rate < 0 || math.IsInf(rate, 0) || math.IsNaN(rate) {
		return 0, errors.New("not a rate: want requests per second (0 or more), such as 100, or per a period, such as 100/s or 6000/m")
	}
	if !slash {
		return rate, nil
	}
	if per != "" && (per[0] < '0' || per[0] > '9') && per[0] != '.' {
		per = "1" + per // "s" is "1s"
	}
	d, err := time.ParseDuration(per)
	if err != nil || d <= 0 {
		return 0, errors.New("not a rate: the period after / must be a positive duration, such as s, 1s, m or 100ms")
	}
	return rate / d.Seconds(), nil
}
