package spec

import (
	"regexp"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// maxNodes bounds the mapping entries and sequence items a spec may expand
// to through aliases.
const maxNodes = 1 << 16

// maxDuration bounds the durations of a spec.
const maxDuration = 24 * time.Hour

// The spec's names for what the yamlfile decoder reads.
var (
	join      = yamlfile.Join
	index     = yamlfile.Index
	got       = yamlfile.Got
	ratio     = yamlfile.Ratio
	hundredth = yamlfile.Hundredth
	pct       = yamlfile.Pct
)

// checkURL returns why s is not an absolute http or https URL, or "".
func checkURL(s string) string {
	_, msg := yamlfile.ParseURL(s)
	return msg
}

// The decoder's methods under the names the spec's parser calls them by;
// see yamlfile.Decoder.

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.Errorf(n, field, format, args...)
}
func (d *decoder) addf(line int, field, format string, args ...any) {
	d.ErrorAt(line, field, format, args...)
}
func (d *decoder) add(line int, err error) { d.Add(line, err) }
func (d *decoder) mapping(n *yaml.Node, path string, f func(key string, k, v *yaml.Node)) bool {
	return d.Mapping(n, path, f)
}
func (d *decoder) list(n *yaml.Node, path, what string, f func(i int, item *yaml.Node)) {
	d.List(n, path, what, f)
}
func (d *decoder) str(n *yaml.Node, field string) (string, bool)  { return d.Str(n, field) }
func (d *decoder) text(n *yaml.Node, field string) (string, bool) { return d.Text(n, field) }
func (d *decoder) boolean(n *yaml.Node, field string) (bool, bool) {
	return d.Boolean(n, field)
}
func (d *decoder) integer(n *yaml.Node, field string, lo, hi int64) (int64, bool) {
	return d.Integer(n, field, lo, hi)
}
func (d *decoder) positive(n *yaml.Node, field string) (float64, bool) {
	return d.Positive(n, field)
}

// positiveRate decodes a rate above 0 and at most 1e9 per second: a
// number, or a rate such as 500/s (see yamlfile.Decoder.Rate).
func (d *decoder) positiveRate(n *yaml.Node, field string) (float64, bool) {
	r, ok := d.Rate(n, field)
	if ok && (r <= 0 || r > 1e9) {
		d.errorf(n, field, "%s is not a rate above 0 and at most 1e9/s", yamlfile.Deref(n).Value)
		return 0, false
	}
	return r, ok
}
func (d *decoder) duration(n *yaml.Node, field string) (time.Duration, bool) {
	return d.Duration(n, field, maxDuration)
}
func (d *decoder) percent(n *yaml.Node, field string, above0 bool, hi float64) (float64, bool) {
	return d.Percent(n, field, above0, hi)
}
func (d *decoder) url(n *yaml.Node, field string) (string, bool) { return d.URL(n, field) }
func (d *decoder) oneOf(n *yaml.Node, field string, allowed ...string) (string, bool) {
	return d.OneOf(n, field, allowed...)
}

// keep returns a func that stores v in *dst when ok and reports ok, for
// a field decoded as keep(&dst)(d.duration(v, f)): a bad value leaves the
// field as it was, its default.
func keep[T any](dst *T) func(v T, ok bool) bool {
	return func(v T, ok bool) bool {
		if ok {
			*dst = v
		}
		return ok
	}
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
