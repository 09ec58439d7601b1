package spec

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/latlab/latlab/load"
)

// A SpecKey is one key a spec takes, for its reference: Key is its dotted
// path as a spec writes it (load.rates, variants[].name, slo.pNN), Type
// the kind of value it takes, Default what it is when left out, Doc what
// it does and the keys it needs or excludes, and Example a line of YAML
// giving it.
type SpecKey struct {
	Key, Type, Default, Doc, Example string
}

// specDoc is the hand-written part of a key's reference, in
// reference_docs*.go: typ, when given, says the type where the Go type
// cannot (runs: takes a number, auto or a mapping).
type specDoc struct {
	typ, doc, def, example string
}

// SpecKeys returns every key a spec takes, in the order of the spec's
// types, found by reflection along their spec tags, with the
// documentation of each. Fields that share a key (Spec.Runs and
// Spec.Auto are both runs:) make one key; a variant's load, whose keys
// are the spec's load's, is one key; the fields of LoadPod and Shards,
// which a spec writes in its load: mapping, are keys of load.
func SpecKeys() []SpecKey {
	keys := refKeys()
	out := make([]SpecKey, len(keys))
	for i, k := range keys {
		out[i] = k.SpecKey
	}
	return out
}

// refKey is a key with the section of the reference it is listed in: the
// spec's field it is under ("load_pod" for load.image), or "" for a
// top-level key with nothing under it.
type refKey struct {
	SpecKey
	section string
}

// refKeys returns the keys of SpecKeys with their sections.
func refKeys() []refKey {
	w := refWalker{index: map[string]int{}}
	w.fields("", "", reflect.TypeFor[Spec]())
	size := map[string]int{}
	for _, k := range w.keys {
		size[k.section]++
	}
	for i := range w.keys {
		k := &w.keys[i]
		if size[k.section] == 1 {
			k.section = "" // a top-level key alone: version, order, seed
		}
		if d, ok := specDocs[k.Key]; ok {
			k.Doc, k.Default, k.Example = d.doc, d.def, d.example
			if d.typ != "" {
				k.Type = d.typ
			}
		}
	}
	return w.keys
}

// refAliases are the keys, as the spec's types tag them, that a spec
// writes under another key: the fields of LoadPod and Shards sit in the
// spec's load: mapping (load: {on: kubernetes, shards: 3}), and a
// warm-up's share is written as its rate (rate: 50%).
var refAliases = map[string]string{
	"load_pod":     "load",
	"load_shards":  "load",
	"warmup.share": "warmup.rate",
}

// refExtras are keys a spec writes that no field holds, listed after the
// field, by its tagged key, whose presence they decide: load.on says
// whether the spec has a LoadPod.
var refExtras = map[string][]SpecKey{
	"load_pod": {{Key: "load.on", Type: refOneOf("local", OnKubernetes)}},
}

// refTypes are the types whose values a spec writes as one scalar or
// mapping, however Go holds them, with what the reference calls them.
var refTypes = map[reflect.Type]string{
	durationType:                     "duration (10s, 500ms)",
	percentileType:                   "mapping of percentile to duration",
	reflect.TypeFor[load.Mode]():     refOneOf(load.Modes...),
	reflect.TypeFor[Order]():         refOneOf(Interleaved, Grouped),
	reflect.TypeFor[Restart]():       refOneOf(Never, PerRun, PerRate),
	reflect.TypeFor[load.Realtime](): refOneOf("auto", "false", "true"),
}

// loadType is the type of the spec's load and of a variant's.
var loadType = reflect.TypeFor[Load]()

// refOneOf names a choice of values: "one of open, closed".
func refOneOf[T ~string](values ...T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return "one of " + strings.Join(s, ", ")
}

// refWalker collects the keys of the spec's types.
type refWalker struct {
	keys  []refKey
	index map[string]int // of each key in keys
}

// add adds key to section, with its type; a key met again takes the
// other type as well ("percent (10%) or duration (10s, 500ms)").
func (w *refWalker) add(section, key, typ string) {
	if i, ok := w.index[key]; ok {
		k := &w.keys[i]
		if !slices.Contains(strings.Split(k.Type, " or "), typ) {
			k.Type += " or " + typ
		}
		return
	}
	w.index[key] = len(w.keys)
	w.keys = append(w.keys, refKey{SpecKey: SpecKey{Key: key, Type: typ}, section: section})
}

// fields adds the keys of the fields of the struct t under prefix, in
// section; at the top ("" for both) each field is a section of its own.
func (w *refWalker) fields(section, prefix string, t reflect.Type) {
	for f := range t.Fields() {
		tag := f.Tag.Get("spec")
		name, opt, _ := strings.Cut(tag, ",")
		if tag == "" || name == "-" {
			continue
		}
		sec := section
		if sec == "" {
			sec = name
		}
		if opt == "inline" { // its entries are the parent mapping's own
			w.inline(sec, prefix, f.Type)
			continue
		}
		w.field(sec, join(prefix, name), f.Type, opt)
	}
}

// inline adds the keys of an inline field of type t under prefix: a
// struct's fields, or a percentile's bound under the percentile's name
// (slo: {p99: 50ms}).
func (w *refWalker) inline(section, prefix string, t reflect.Type) {
	switch {
	case t == percentileType:
		w.add(section, join(prefix, "pNN"), refTypes[durationType])
	case t.Kind() == reflect.Struct:
		w.fields(section, prefix, t)
	default:
		w.add(section, prefix, refType(t, ""))
	}
}

// field adds the key of a field of type t, tagged key with the option
// opt, and the keys under it.
func (w *refWalker) field(section, key string, t reflect.Type, opt string) {
	tagged := key
	if a, ok := refAliases[key]; ok {
		key = a
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	_, leaf := refTypes[st]
	switch {
	case leaf:
		w.add(section, key, refType(t, opt))
	case st == loadType && key != "load":
		// A variant's load takes the keys of the spec's, documented there.
		w.add(section, key, "mapping of load keys")
	case st.Kind() == reflect.Struct:
		w.add(section, key, "mapping")
		for _, x := range refExtras[tagged] {
			w.add(section, x.Key, x.Type)
		}
		w.fields(section, key, st)
	case st.Kind() == reflect.Slice && st.Elem().Kind() == reflect.Struct:
		w.add(section, key, "list of mappings")
		w.fields(section, key+"[]", st.Elem())
	default:
		w.add(section, key, refType(t, opt))
	}
}

// refType names the type of value t holds; opt "percent" makes a number
// a percentage.
func refType(t reflect.Type, opt string) string {
	if s, ok := refTypes[t]; ok {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return refType(t.Elem(), opt)
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		if opt == "percent" {
			return "percent (10%)"
		}
		return "number"
	case reflect.Slice:
		switch e := refType(t.Elem(), opt); e {
		case "string":
			return "list of strings"
		case "integer":
			return "list of integers"
		case "number":
			return "list of numbers"
		default:
			return "list of " + e
		}
	case reflect.Map:
		return "mapping of " + refType(t.Key(), "") + " to " + refType(t.Elem(), opt)
	case reflect.Struct:
		return "mapping"
	}
	return t.Kind().String()
}

// refSections are the sections of the reference, in order, by the
// spec's field they list; "" lists the top-level keys with nothing under
// them. A section found but not listed here goes last, under its key.
var refSections = []struct{ id, title string }{
	{"", "Top-level keys"},
	{"variants", "variants"},
	{"load", "load"},
	{"load_pod", "load on a Kubernetes cluster"},
	{"load_shards", "load from several generators (shards)"},
	{"warmup", "warmup"},
	{"runs", "runs"},
	{"sideloads", "sideloads"},
	{"probes", "probes"},
	{"validity", "validity"},
	{"slo", "slo"},
	{"cpus", "cpus"},
	{"kubernetes", "kubernetes"},
}

// refSection is a section of the reference with its keys.
type refSection struct {
	title string
	keys  []refKey
}

// refGroups returns the keys of the reference by section, in order,
// leaving out sections without keys.
func refGroups() []refSection {
	var out []refSection
	at := map[string]int{}
	for _, s := range refSections {
		at[s.id] = len(out)
		out = append(out, refSection{title: s.title})
	}
	for _, k := range refKeys() {
		i, ok := at[k.section]
		if !ok {
			i = len(out)
			at[k.section] = i
			out = append(out, refSection{title: k.section})
		}
		out[i].keys = append(out[i].keys, k)
	}
	return slices.DeleteFunc(out, func(s refSection) bool { return len(s.keys) == 0 })
}

// WriteSpecReference writes the reference of every key a spec takes
// (SpecKeys), by section: as Markdown, as docs/spec.md holds it, or as
// plain text for a terminal.
func WriteSpecReference(w io.Writer, markdown bool) error {
	var b strings.Builder
	if markdown {
		writeMarkdownReference(&b, refGroups())
	} else {
		writeTextReference(&b, refGroups())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// The introduction of the reference; code spans are in backticks, which
// the plain text drops.
const (
	refIntro = "Every key a latlab experiment spec (`latlab run SPEC`) takes, section by section, " +
		"with its type, its default, what it does and an example. " +
		"Only version, name, variants and load are required. " +
		"Durations take a unit (10s, 1m30s); percentages are written 75% or as a ratio, 0.75; " +
		"relative paths resolve against the spec's folder."
	refGenerated = "This file is generated from latlab's spec types by `latlab spec --markdown`; " +
		"`latlab spec` prints the same as text."
)

// writeMarkdownReference writes the groups as Markdown: a table per
// section.
func writeMarkdownReference(b *strings.Builder, groups []refSection) {
	b.WriteString("# Spec reference\n\n")
	b.WriteString(refIntro + " " + refGenerated + "\n")
	for _, g := range groups {
		fmt.Fprintf(b, "\n## %s\n\n", g.title)
		b.WriteString("| key | type | default | what it does | example |\n")
		b.WriteString("| --- | --- | --- | --- | --- |\n")
		for _, k := range g.keys {
			example := ""
			if k.Example != "" {
				example = "`" + k.Example + "`"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n",
				mdCell(k.Key), mdCell(k.Type), mdCell(k.Default), mdCell(k.Doc), mdCell(example))
		}
	}
}

// mdCell makes s fit in a cell of a Markdown table: one line, its pipes
// escaped.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// writeTextReference writes the groups as text for a terminal: per key a
// line of its key, type and default, then what it does and its example,
// indented, within 78 columns.
func writeTextReference(b *strings.Builder, groups []refSection) {
	const width, indent = 78, "    "
	b.WriteString("Spec reference\n\n")
	b.WriteString(wrap("", plain(refIntro)+" latlab spec --markdown writes the same as Markdown (docs/spec.md).", width))
	for _, g := range groups {
		fmt.Fprintf(b, "\n%s\n%s\n", g.title, strings.Repeat("=", utf8.RuneCountInString(g.title)))
		for _, k := range g.keys {
			line := k.Type
			if k.Default != "" {
				line += "; default: " + k.Default
			}
			b.WriteString("\n" + wrap(k.Key+": ", plain(line), width))
			if k.Doc != "" {
				b.WriteString(wrap(indent, plain(k.Doc), width))
			}
			if k.Example != "" {
				b.WriteString(indent + "example: " + k.Example + "\n")
			}
		}
	}
}

// plain drops the backticks of code spans.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }
