package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// canonicalHeader starts the canonical form; change it if the form changes
// meaning.
const canonicalHeader = "latlab experiment spec 1"

// Hash returns the hex SHA-256 of s's canonical form: the same for specs
// that differ only in comments, layout, key order or defaults written out,
// different when a value or the content of a referenced file differs.
func (s *Spec) Hash() string {
	h := sha256.Sum256([]byte(s.Canonical()))
	return hex.EncodeToString(h[:])
}

// Canonical returns s as text, one "field: value" line per field with its
// default filled in (fields left empty, zero or false have none), and one
// line per file read with its SHA-256. Paths are
// as written, so the form does not depend on where the spec lies. Store it
// beside Hash to show later what changed (see DiffCanonical).
func (s *Spec) Canonical() string {
	var b strings.Builder
	b.WriteString(canonicalHeader + "\n")
	for _, f := range s.fields() {
		b.WriteString(f.key)
		b.WriteString(": ")
		b.WriteString(f.value)
		b.WriteByte('\n')
	}
	return b.String()
}

// A field is one line of the canonical form.
type field struct{ key, value string }

// fields flattens s into its canonical fields.
func (s *Spec) fields() []field {
	var w walker
	w.walk("", reflect.ValueOf(*s), "", nil)
	if s.Auto != nil {
		// runs.max says it: a second line would make two fields of one.
		w.out = slices.DeleteFunc(w.out, func(f field) bool { return f.key == "runs" })
	}
	for _, k := range SortedKeys(s.sums) {
		// A colon would end the key when the form is read back.
		w.add("files["+strings.ReplaceAll(strconv.Quote(k), ":", `\x3a`)+"]", s.sums[k])
	}
	return w.out
}

// walker flattens values along their spec tags.
type walker struct{ out []field }

func (w *walker) add(key, value string) { w.out = append(w.out, field{key, value}) }

var (
	durationType   = reflect.TypeFor[time.Duration]()
	variantsType   = reflect.TypeFor[[]Variant]()
	percentileType = reflect.TypeFor[[]Percentile]()
)

// walk adds the fields of v under key. opt is the option of v's tag, such
// as "percent"; only, when not nil, limits a struct to those fields.
func (w *walker) walk(key string, v reflect.Value, opt string, only []string) {
	switch {
	case v.Type() == durationType:
		if v.Int() != 0 {
			w.add(key, time.Duration(v.Int()).String())
		}
		return
	case v.Type() == variantsType:
		w.variants(key, v.Interface().([]Variant))
		return
	case v.Type() == percentileType:
		for _, p := range v.Interface().([]Percentile) {
			w.add(join(key, p.Name), p.Latency.String())
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			tag := t.Field(i).Tag.Get("spec")
			name, o, _ := strings.Cut(tag, ",")
			switch {
			case tag == "" || tag == "-" || only != nil && !slices.Contains(only, name):
			case o == "inline": // its fields are the struct's own in YAML
				w.walk(key, v.Field(i), "", nil)
			default:
				w.walk(join(key, name), v.Field(i), o, nil)
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.Struct {
			w.walk(key, e, opt, nil)
		} else {
			w.add(key, scalar(e, opt)) // given, even as zero
		}
	case reflect.Slice:
		if v.Len() == 0 {
			return
		}
		if v.Type().Elem().Kind() == reflect.Struct {
			for i := range v.Len() {
				w.walk(index(key, i), v.Index(i), "", nil)
			}
			return
		}
		items := make([]string, v.Len())
		for i := range items {
			items[i] = scalar(v.Index(i), opt)
		}
		w.add(key, "["+strings.Join(items, " ")+"]")
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		for _, k := range keys {
			w.add(join(key, k), scalar(v.MapIndex(reflect.ValueOf(k)), opt))
		}
	default:
		if !v.IsZero() { // a zero value is a field not given
			w.add(key, scalar(v, opt))
		}
	}
}

// variants adds the variants in order, each under its name, with only the
// load fields it overrides.
func (w *walker) variants(key string, vs []Variant) {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	w.add(key, "["+strings.Join(names, " ")+"]")
	for _, v := range vs {
		vk := key + "[" + v.Name + "]"
		rv := reflect.ValueOf(v)
		t := rv.Type()
		for i := range t.NumField() {
			name, o, _ := strings.Cut(t.Field(i).Tag.Get("spec"), ",")
			switch name {
			case "", "-", "name":
			case "load":
				if len(v.Overrides) > 0 {
					w.walk(join(vk, name), rv.Field(i), o, v.Overrides)
				}
			default:
				w.walk(join(vk, name), rv.Field(i), o, nil)
			}
		}
	}
}

// scalar formats a scalar value; opt "percent" writes a ratio as a
// percentage.
func scalar(v reflect.Value, opt string) string {
	switch v.Kind() {
	case reflect.String:
		return quote(v.String())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		if opt == "percent" {
			return pct(v.Float())
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// quote returns s as it is when that is unambiguous on one line, else
// Go-quoted.
func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\"\\[]") || strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}
