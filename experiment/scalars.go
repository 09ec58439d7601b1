package experiment

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// str decodes the scalar n as a string: a number, boolean or time stands
// for its text, but null does not.
func (d *decoder) str(n *yaml.Node, field string) (string, bool) {
	n = yamlfile.Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
			return n.Value, true
		}
	}
	d.errorf(n, field, "expected a string, got %s", yamlfile.Describe(n))
	return "", false
}

// text decodes the scalar n as a non-empty string.
func (d *decoder) text(n *yaml.Node, field string) (string, bool) {
	s, ok := d.str(n, field)
	if ok && s == "" {
		d.errorf(n, field, "empty")
		return "", false
	}
	return s, ok
}

// nameRE matches the names of experiments and variants.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// name decodes the scalar n as a name: up to 63 letters, digits, '.', '_'
// and '-', starting with a letter or digit.
func (d *decoder) name(n *yaml.Node, field string) (string, bool) {
	s, ok := d.text(n, field)
	if ok && !nameRE.MatchString(s) {
		d.errorf(n, field, "%q is not a name: use up to 63 letters, digits, '.', '_' and '-', starting with a letter or digit", s)
		return "", false
	}
	return s, ok
}

// boolean decodes the scalar n as true or false.
func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	n = yamlfile.Deref(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.errorf(n, field, "expected true or false, got %s", got(n))
		return false, false
	}
	return b, true
}

// integer decodes the scalar n as a whole number between lo and hi. A
// float without a fraction, such as 1e6, counts.
func (d *decoder) integer(n *yaml.Node, field string, lo, hi int64) (int64, bool) {
	n = yamlfile.Deref(n)
	var v int64
	ok := false
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			ok = n.Decode(&v) == nil
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
				v, ok = int64(f), true
			}
		}
	}
	switch {
	case !ok && n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float"):
		d.errorf(n, field, "%s is not a whole number in range", n.Value)
	case !ok:
		d.errorf(n, field, "expected a whole number, got %s", got(n))
	case v < lo:
		d.errorf(n, field, "%d is less than %d", v, lo)
	case v > hi:
		d.errorf(n, field, "%d is more than %d", v, hi)
	default:
		return v, true
	}
	return 0, false
}

// positive decodes the scalar n as a finite number above 0 and at most
// 1e9.
func (d *decoder) positive(n *yaml.Node, field string) (float64, bool) {
	n = yamlfile.Deref(n)
	var f float64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" && n.ShortTag() != "!!float" || n.Decode(&f) != nil {
		d.errorf(n, field, "expected a number, got %s", got(n))
		return 0, false
	}
	if math.IsNaN(f) || f <= 0 || f > 1e9 {
		d.errorf(n, field, "%s is not a number above 0 and at most 1e9", n.Value)
		return 0, false
	}
	return f, true
}

// duration decodes the scalar n as a positive duration of at most a day,
// written with a unit, such as 10s or 1m30s.
func (d *decoder) duration(n *yaml.Node, field string) (time.Duration, bool) {
	n = yamlfile.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, field, "expected a duration such as 10s, got %s", got(n))
		return 0, false
	}
	v, err := time.ParseDuration(n.Value)
	switch {
	case err != nil:
		d.errorf(n, field, "%q is not a duration such as 10s or 1m30s", n.Value)
	case v <= 0:
		d.errorf(n, field, "%s is not positive", n.Value)
	case v > 24*time.Hour:
		d.errorf(n, field, "%s is more than 24h", n.Value)
	default:
		return v, true
	}
	return 0, false
}

// percent decodes the scalar n as a share: "N%", or a plain number taken
// as a ratio (0.75 is 75%). The share must be at least 0 (above 0 when
// above0 is set) and at most hi.
func (d *decoder) percent(n *yaml.Node, field string, above0 bool, hi float64) (float64, bool) {
	n = yamlfile.Deref(n)
	r, isPct, ok := ratio(n)
	switch {
	case !ok:
		d.errorf(n, field, "expected a percentage such as 75%%, got %s", got(n))
	case above0 && r <= 0:
		d.errorf(n, field, "%s is not above 0%%", n.Value)
	case r < 0:
		d.errorf(n, field, "%s is negative", n.Value)
	case r > hi && !isPct:
		d.errorf(n, field, "%s is more than %s; write a percentage such as 75%% or a ratio such as 0.75", n.Value, pct(hi))
	case r > hi:
		d.errorf(n, field, "%s is more than %s", n.Value, pct(hi))
	default:
		return r, true
	}
	return 0, false
}

// ratio reads n as "N%" or as a plain number, and says which.
func ratio(n *yaml.Node) (r float64, isPct, ok bool) {
	if n.Kind != yaml.ScalarNode {
		return 0, false, false
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		if n.Decode(&r) != nil || math.IsNaN(r) || math.IsInf(r, 0) {
			return 0, false, false
		}
		return r, false, true
	case "!!str":
		num, found := strings.CutSuffix(strings.TrimSpace(n.Value), "%")
		if !found {
			return 0, false, false
		}
		f, err := hundredth(strings.TrimSpace(num))
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false, false
		}
		return f, true, true
	}
	return 0, false, false
}

// hundredth parses the decimal number s divided by 100, moving the point
// in the text so that 99.9 gives the float nearest 0.999, as 99.9/100
// would not.
func hundredth(s string) (float64, error) {
	digits, sign := s, ""
	if strings.HasPrefix(digits, "-") || strings.HasPrefix(digits, "+") {
		sign, digits = digits[:1], digits[1:]
	}
	whole, frac, _ := strings.Cut(digits, ".")
	if whole == "" || strings.ContainsAny(digits, "eE_xXpP") || strings.Trim(whole+frac, "0123456789") != "" {
		f, err := strconv.ParseFloat(s, 64)
		return f / 100, err
	}
	whole = strings.Repeat("0", max(0, 3-len(whole))) + whole
	return strconv.ParseFloat(sign+whole[:len(whole)-2]+"."+whole[len(whole)-2:]+frac, 64)
}

// pct formats the ratio r as a percentage.
func pct(r float64) string { return strconv.FormatFloat(r*100, 'g', 10, 64) + "%" }

// url decodes the scalar n as an absolute http or https URL.
func (d *decoder) url(n *yaml.Node, field string) (string, bool) {
	s, ok := d.text(n, field)
	if !ok {
		return "", false
	}
	if msg := checkURL(s); msg != "" {
		d.errorf(n, field, "%s", msg)
		return "", false
	}
	return s, true
}

// checkURL returns why s is not an absolute http or https URL, or "".
func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("invalid URL %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("expected an absolute http or https URL, got %q", s)
	}
	return ""
}

// oneOf decodes the scalar n as one of the words in allowed.
func (d *decoder) oneOf(n *yaml.Node, field string, allowed ...string) (string, bool) {
	s, ok := d.str(n, field)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.errorf(n, field, "expected %s, got %q", orList(allowed), s)
	return "", false
}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
