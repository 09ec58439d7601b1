package yamlfile

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/units"
)

// Str decodes the scalar n as a string: a number, boolean or time stands
// for its text, but null does not.
func (d *Decoder) Str(n *yaml.Node, field string) (string, bool) {
	n = Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!str", "!!int", "!!float", "!!bool", "!!timestamp":
			return n.Value, true
		}
	}
	d.Errorf(n, field, "expected a string, got %s", Describe(n))
	return "", false
}

// Text decodes the scalar n as a non-empty string.
func (d *Decoder) Text(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Str(n, field)
	if ok && s == "" {
		d.Errorf(n, field, "empty")
		return "", false
	}
	return s, ok
}

// Boolean decodes the scalar n as true or false.
func (d *Decoder) Boolean(n *yaml.Node, field string) (bool, bool) {
	n = Deref(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		d.Errorf(n, field, "expected true or false, got %s", Got(n))
		return false, false
	}
	return b, true
}

// Integer decodes the scalar n as a whole number between lo and hi. A
// float without a fraction, such as 1e6, counts.
func (d *Decoder) Integer(n *yaml.Node, field string, lo, hi int64) (int64, bool) {
	n = Deref(n)
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
		d.Errorf(n, field, "%s is not a whole number in range", n.Value)
	case !ok:
		d.Errorf(n, field, "expected a whole number, got %s", Got(n))
	case v < lo:
		d.Errorf(n, field, "%d is less than %d", v, lo)
	case v > hi:
		d.Errorf(n, field, "%d is more than %d", v, hi)
	default:
		return v, true
	}
	return 0, false
}

// Number decodes the scalar n as a finite number.
func (d *Decoder) Number(n *yaml.Node, field string) (float64, bool) {
	n = Deref(n)
	f, ok := number(n)
	switch {
	case !ok:
		d.Errorf(n, field, "expected a number, got %s", Got(n))
	case math.IsNaN(f) || math.IsInf(f, 0):
		d.Errorf(n, field, "expected a finite number, got %s", n.Value)
	default:
		return f, true
	}
	return 0, false
}

// Rate decodes the scalar n as requests per second: a number, or a rate
// as the command line's -r takes it, such as 500/s or 6000/m (see
// units.ParseRate).
func (d *Decoder) Rate(n *yaml.Node, field string) (float64, bool) {
	n = Deref(n)
	if _, ok := number(n); ok {
		return d.Number(n, field)
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.Errorf(n, field, "expected a rate, such as 500 or 500/s, got %s", Got(n))
		return 0, false
	}
	r, err := units.ParseRate(n.Value)
	if err != nil {
		d.Errorf(n, field, "%q is %v", n.Value, err)
		return 0, false
	}
	return r, true
}

// Positive decodes the scalar n as a number above 0 and at most 1e9.
func (d *Decoder) Positive(n *yaml.Node, field string) (float64, bool) {
	n = Deref(n)
	f, ok := number(n)
	switch {
	case !ok:
		d.Errorf(n, field, "expected a number, got %s", Got(n))
	case math.IsNaN(f) || f <= 0 || f > 1e9:
		d.Errorf(n, field, "%s is not a number above 0 and at most 1e9", n.Value)
	default:
		return f, true
	}
	return 0, false
}

// number decodes the scalar n as a number, integer or float.
func number(n *yaml.Node) (float64, bool) {
	var f float64
	ok := n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") && n.Decode(&f) == nil
	return f, ok
}

// Duration decodes the scalar n as a positive duration of at most hi,
// written with a unit, such as 10s or 1m30s.
func (d *Decoder) Duration(n *yaml.Node, field string, hi time.Duration) (time.Duration, bool) {
	v, ok := d.Span(n, field, hi)
	if ok && v <= 0 {
		d.Errorf(n, field, "%s is not positive", Deref(n).Value)
		return 0, false
	}
	return v, ok
}

// Span decodes the scalar n as a duration of at most hi, written with a
// unit, such as 10s, 0s or -1s: whether it may be 0 or negative is the
// caller's to judge.
func (d *Decoder) Span(n *yaml.Node, field string, hi time.Duration) (time.Duration, bool) {
	n = Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.Errorf(n, field, "expected a duration such as 10s, got %s", Got(n))
		return 0, false
	}
	v, err := time.ParseDuration(n.Value)
	switch {
	case err != nil:
		d.Errorf(n, field, "%q is not a duration such as 10s or 1m30s", n.Value)
	case v > hi:
		d.Errorf(n, field, "%s is more than %s", n.Value, strings.TrimSuffix(strings.TrimSuffix(hi.String(), "0s"), "0m"))
	default:
		return v, true
	}
	return 0, false
}

// Percent decodes the scalar n as a share: "N%", or a plain number taken
// as a ratio (0.75 is 75%). The share must be at least 0 (above 0 when
// above0 is set) and at most hi.
func (d *Decoder) Percent(n *yaml.Node, field string, above0 bool, hi float64) (float64, bool) {
	n = Deref(n)
	r, isPct, ok := Ratio(n)
	switch {
	case !ok:
		d.Errorf(n, field, "expected a percentage such as 75%%, got %s", Got(n))
	case above0 && r <= 0:
		d.Errorf(n, field, "%s is not above 0%%", n.Value)
	case r < 0:
		d.Errorf(n, field, "%s is negative", n.Value)
	case r > hi && !isPct:
		d.Errorf(n, field, "%s is more than %s; write a percentage such as 75%% or a ratio such as 0.75", n.Value, Pct(hi))
	case r > hi:
		d.Errorf(n, field, "%s is more than %s", n.Value, Pct(hi))
	default:
		return r, true
	}
	return 0, false
}

// Ratio reads n as "N%" or as a plain number, and says which.
func Ratio(n *yaml.Node) (r float64, isPct, ok bool) {
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
		f, err := Hundredth(strings.TrimSpace(num))
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false, false
		}
		return f, true, true
	}
	return 0, false, false
}

// Hundredth parses the decimal number s divided by 100, moving the point
// in the text so that 99.9 gives the float nearest 0.999, as 99.9/100
// would not.
func Hundredth(s string) (float64, error) {
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

// Pct formats the ratio r as a percentage.
func Pct(r float64) string { return strconv.FormatFloat(r*100, 'g', 10, 64) + "%" }

// URL decodes the scalar n as an absolute http or https URL.
func (d *Decoder) URL(n *yaml.Node, field string) (string, bool) { return d.parsed(n, field, ParseURL) }

// Target decodes the scalar n as the URL of a load's requests (see
// ParseTarget).
func (d *Decoder) Target(n *yaml.Node, field string) (string, bool) {
	return d.parsed(n, field, ParseTarget)
}

// parsed decodes the scalar n as text that parse accepts.
func (d *Decoder) parsed(n *yaml.Node, field string, parse func(string) (*url.URL, string)) (string, bool) {
	s, ok := d.Text(n, field)
	if !ok {
		return "", false
	}
	if _, msg := parse(s); msg != "" {
		d.Errorf(n, field, "%s", msg)
		return "", false
	}
	return s, true
}

// ParseURL parses s as an absolute http or https URL. On failure it
// returns a message saying why, the same wherever a URL is read (the
// command line, a spec, a targets or scenario file); one without a scheme
// gets the http:// one it likely meant suggested.
func ParseURL(s string) (*url.URL, string) {
	if !strings.Contains(s, "://") {
		msg := fmt.Sprintf("expected an absolute http or https URL, got %q", s)
		if u, err := url.Parse("http://" + s); err == nil && !strings.HasPrefix(s, "/") &&
			(strings.ContainsAny(u.Host, ".:") || u.Hostname() == "localhost") {
			msg += fmt.Sprintf("; did you mean %q?", u.String())
		}
		return nil, msg
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Sprintf("invalid URL %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Sprintf("expected an absolute http or https URL, got %q", s)
	}
	return u, ""
}

// ParseTarget parses s as the URL of a load's requests: an absolute http
// or https URL, or a gRPC method's, grpc://HOST:PORT/package.Service/Method
// (grpcs:// over TLS). On failure it returns a message saying why.
func ParseTarget(s string) (*url.URL, string) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "grpc" && u.Scheme != "grpcs") {
		u, msg := ParseURL(s)
		if msg != "" && strings.HasPrefix(msg, "expected an absolute http or https URL") {
			msg = "expected an absolute http, https, grpc or grpcs URL" + strings.TrimPrefix(msg, "expected an absolute http or https URL")
		}
		return u, msg
	}
	svc, method, ok := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	switch {
	case u.Host == "":
		return nil, fmt.Sprintf("%q names no server: want %s://HOST:PORT/package.Service/Method", s, u.Scheme)
	case u.Port() == "":
		return nil, fmt.Sprintf("%q names no port: want %s://HOST:PORT/package.Service/Method", s, u.Scheme)
	case !ok || svc == "" || method == "" || strings.Contains(method, "/"):
		return nil, fmt.Sprintf("%q names no gRPC method: want %s://HOST:PORT/package.Service/Method", s, u.Scheme)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Sprintf("%q: a gRPC method's URL has no query or fragment", s)
	}
	return u, ""
}

// OneOf decodes the scalar n as one of the words in allowed.
func (d *Decoder) OneOf(n *yaml.Node, field string, allowed ...string) (string, bool) {
	s, ok := d.Str(n, field)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	d.Errorf(n, field, "expected %s, got %q", orList(allowed), s)
	return "", false
}

// orList writes words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Got describes n for errors: a scalar by its value, anything else by
// kind.
func Got(n *yaml.Node) string {
	n = Deref(n)
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!str":
			return strconv.Quote(n.Value)
		default:
			return n.Value
		}
	}
	return Describe(n)
}
