package spec

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/load"
)

// A Map is a YAML mapping written key by key, in order: a spec written
// by a program, such as latlab attack's from its flags, for the parser
// to check as it checks any spec.
type Map struct{ n yaml.Node }

// Add adds key with the value v: a *Map, a list of them, a duration
// (written as 1m30s), or a scalar yaml encodes as it is. It returns m.
func (m *Map) Add(key string, v any) *Map {
	if m.n.Kind == 0 {
		m.n.Kind = yaml.MappingNode
	}
	var val yaml.Node
	switch v := v.(type) {
	case *Map:
		val = v.n
	case []*Map:
		val.Kind = yaml.SequenceNode
		for _, item := range v {
			val.Content = append(val.Content, &item.n)
		}
	case time.Duration:
		_ = val.Encode(v.String())
	default:
		_ = val.Encode(v) // a scalar, as AddOptions allows
	}
	m.n.Content = append(m.n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &val)
	return m
}

// Bytes returns m as YAML, indented by two spaces.
func (m *Map) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&m.n); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AddOptions adds to ld, a spec's load, every option of s that is not its
// default and that its mode takes, under its spec key, but those of skip.
// An option of a kind a scalar does not hold is an error.
func AddOptions(ld *Map, s *load.Settings, skip []string) error {
	def := reflect.ValueOf(load.Defaults())
	v := reflect.ValueOf(s).Elem()
	for i, field := range reflect.VisibleFields(v.Type()) {
		key, _, _ := strings.Cut(field.Tag.Get("spec"), ",")
		if key == "" || key == "-" || slices.Contains(skip, key) ||
			slices.Contains(load.LevelOptions, key) && !s.Mode.Takes(key) {
			continue
		}
		fv := v.Field(i)
		if fv.IsZero() || reflect.DeepEqual(fv.Interface(), def.Field(i).Interface()) {
			continue
		}
		switch fv.Kind() {
		case reflect.Bool, reflect.String, reflect.Int, reflect.Int64, reflect.Float64:
			ld.Add(key, fv.Interface())
		default:
			return fmt.Errorf("option %s: a %s, which a spec written from options cannot carry", key, fv.Type())
		}
	}
	return nil
}

// RelPath returns path relative to dir, as a spec in dir names a file: a
// bundle carries no file named by an absolute path.
func RelPath(dir, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}
