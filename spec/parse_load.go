package spec

import (
	"math"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/yamlfile"
)

// scope is where a load mapping is: the line of its key and its field path.
type scope struct {
	line int
	path string
}

// An entry is one field of a load mapping, kept as nodes so that a
// variant's overrides can be merged with the spec's load before decoding,
// and every error still names the line it came from.
type entry struct {
	key   string
	k, v  *yaml.Node
	scope scope
}

// path returns the field path of e.
func (e entry) path() string { return join(e.scope.path, e.key) }

// loadKeys are the fields of a load mapping: the spec keys of
// load.Settings, in their order.
var loadKeys = specKeys(reflect.TypeFor[load.Settings]())

// specKeys returns the spec tags of t's fields, in order, but "-".
func specKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		if k, _, _ := strings.Cut(f.Tag.Get("spec"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// entries reads the fields of the load mapping n at sc.
func (d *decoder) entries(n *yaml.Node, path string, sc scope) ([]entry, bool) {
	var es []entry
	ok := d.mapping(n, path, func(key string, k, v *yaml.Node) {
		if slices.Contains(podKeys, key) {
			d.errorf(k, join(path, key), "where the load runs is the spec's, the same for every variant: give it in the spec's load")
			return
		}
		if !slices.Contains(loadKeys, key) {
			d.errorf(k, join(path, key), "%s", yamlfile.UnknownField(key, loadKeys...))
			return
		}
		es = append(es, entry{key: key, k: k, v: v, scope: sc})
	})
	return es, ok
}

// merge returns base with over's fields in place of its own, and without
// the fields of base that over's exclude: a variant giving concurrency drops
// the spec's rates, one giving a scenario drops the spec's path.
func merge(base, over []entry) []entry {
	drop := map[string]bool{}
	for _, e := range over {
		drop[e.key] = true
		for _, x := range excludes(e) {
			drop[x] = true
		}
	}
	var out []entry
	for _, e := range base {
		if !drop[e.key] {
			out = append(out, e)
		}
	}
	for _, e := range base {
		if drop[e.key] && !slices.ContainsFunc(over, func(o entry) bool { return o.key == e.key }) {
			// Remember it was there: a field the mode needs that the
			// variant dropped is the variant's error, reported as such.
			out = append(out, entry{key: e.key, scope: e.scope})
		}
	}
	return append(out, over...)
}

// excludes returns the fields that cannot stand beside e (see
// load.Excludes); beside a mode, the level fields it does not take.
func excludes(e entry) []string {
	if e.key != "mode" {
		return load.Excludes(e.key)
	}
	m := Mode(yamlfile.Deref(e.v).Value)
	if !slices.Contains(load.Modes, m) {
		return nil
	}
	var out []string
	for _, o := range load.LevelOptions {
		if !m.Takes(o) {
			out = append(out, o)
		}
	}
	return out
}

// buildLoad decodes es, the fields of a load, and reports the problems
// load.Settings.Validate finds in it at the fields they name. Fields it
// requires but lacks are reported at the mode that requires them, or at
// base, the spec's load. Without check it decodes and validates the fields
// given and nothing more.
func (d *decoder) buildLoad(es []entry, base scope, check bool) Load {
	l := Load(load.Defaults())
	given := map[string]entry{}
	dropped := map[string]bool{}
	dec := decoding{items: map[string][]int{}}
	for _, e := range es {
		if e.v == nil {
			dropped[e.key] = true
			continue
		}
		given[e.key] = e
		d.loadField(&l, e, &dec)
	}
	if e, ok := given["proto"]; ok && len(l.Proto) > 0 {
		d.proto(&l, e)
	}
	wrong := d.validate(&l, given, dec, base)
	l.Method = strings.ToUpper(l.Method) // once judged a token as written
	if !check {
		return l
	}
	d.checkLoad(&l, given, dropped, wrong, base)
	if _, ok := given["duration"]; !ok {
		if _, ok := given["requests"]; !ok {
			l.Settings().Limit()
		}
	}
	return l
}

// decoding is what buildLoad keeps of a load as it decodes it: for each
// list, the index in the spec of each item decoded, and the fields
// decoded whose 0 means none when left out (see load.Settings.Validate).
type decoding struct {
	items    map[string][]int
	explicit []string
}

// validate reports each problem of l that load.Settings.Validate finds at
// the field it names, given: at the item of a list, whose index in the
// spec dec.items gives by the item's index in l, or at the field's value.
// It returns the fields it reported.
func (d *decoder) validate(l *Load, given map[string]entry, dec decoding, base scope) map[string]bool {
	wrong := map[string]bool{}
	for _, p := range load.Problems(l.Settings().Validate(dec.explicit...)) {
		wrong[p.Option] = true
		e, ok := given[p.Option]
		switch {
		case !ok:
			d.addf(base.line, join(base.path, p.Option), "%s", p.Text(load.Ref.String))
		case p.Item > 0:
			i := dec.items[p.Option][p.Item-1]
			d.errorf(yamlfile.Deref(yamlfile.Deref(e.v).Content[i]), index(e.path(), i), "%s", p.Text(load.Ref.String))
		default:
			d.errorf(e.v, e.path(), "%s", p.Text(load.Ref.String))
		}
	}
	return wrong
}

// loadField decodes e into l: its syntax only, leaving what its value may
// be to load.Settings.Validate. dec keeps what validating l needs.
func (d *decoder) loadField(l *Load, e entry, dec *decoding) {
	_ = d.loadShape(l, e, dec) || d.loadRequest(l, e) || d.loadConnection(l, e, dec)
}

// loadShape decodes e when it is a field of the load's shape: its model,
// levels, length and pacing.
func (d *decoder) loadShape(l *Load, e entry, dec *decoding) bool {
	f, v := e.path(), e.v
	switch e.key {
	case "mode":
		if m, ok := d.text(v, f); ok {
			l.Mode = Mode(m)
		}
	case "rates":
		d.list(v, f, "rate", func(i int, n *yaml.Node) {
			if r, ok := d.Rate(n, index(f, i)); ok {
				l.Rates, dec.items[e.key] = append(l.Rates, r), append(dec.items[e.key], i)
			}
		})
	case "concurrency":
		d.list(v, f, "concurrency", func(i int, n *yaml.Node) {
			if c, ok := d.integer(n, index(f, i), math.MinInt32, math.MaxInt32); ok {
				l.Concurrency, dec.items[e.key] = append(l.Concurrency, int(c)), append(dec.items[e.key], i)
			}
		})
	case "ramp":
		l.Ramp = d.ramp(v, f)
	case "arrivals":
		l.Arrivals, _ = d.text(v, f)
	case "max_in_flight":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.MaxInFlight, dec.explicit = int(n), append(dec.explicit, e.key)
		}
	case "pool":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.Pool, dec.explicit = int(n), append(dec.explicit, e.key)
		}
	case "realtime":
		if t, ok := d.text(v, f); ok {
			if r, err := load.ParseRealtime(t); err != nil {
				d.errorf(v, f, "%v", err)
			} else {
				l.Realtime = r
			}
		}
	case "threads":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.Threads = int(n)
		}
	case "duration":
		if t, ok := d.Span(v, f, math.MaxInt64); ok {
			l.Duration, dec.explicit = t, append(dec.explicit, e.key)
		}
	case "requests":
		if n, ok := d.integer(v, f, math.MinInt64, math.MaxInt64); ok {
			l.Requests, dec.explicit = n, append(dec.explicit, e.key)
		}
	case "interval":
		if iv, ok := d.Span(v, f, math.MaxInt64); ok {
			l.Interval = iv
		}
	default:
		return false
	}
	return true
}

// loadRequest decodes e when it is a field of what each request is and
// what counts as its success.
func (d *decoder) loadRequest(l *Load, e entry) bool {
	f, v := e.path(), e.v
	switch e.key {
	case "path":
		l.Path, _ = d.path(v, f)
	case "method":
		l.Method, _ = d.text(v, f)
	case "headers":
		l.Headers = d.headers(v, f)
	case "body":
		l.Body, _ = d.str(v, f)
	case "body_file":
		if written, _, file, ok := d.file(v, f); ok {
			l.BodyFile, l.Settings().Inputs().Body = written, file.data
		}
	case "targets":
		l.Targets, l.Settings().Inputs().Targets = d.targets(v, f)
	case "scenario":
		l.Scenario, l.Settings().Inputs().Scenario = d.scenario(v, f)
	case "success":
		l.Success, _ = d.text(v, f)
	case "timeout":
		if t, ok := d.Span(v, f, math.MaxInt64); ok {
			l.Timeout = t
		}
	default:
		return false
	}
	return true
}

// loadConnection decodes e when it is a field of how requests are sent:
// connections, the client, HTTP/2 and TLS.
func (d *decoder) loadConnection(l *Load, e entry, dec *decoding) bool {
	f, v := e.path(), e.v
	switch e.key {
	case "connections":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.Connections, dec.explicit = int(n), append(dec.explicit, e.key)
		}
	case "streams":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.Streams = int(n)
		}
	case "client":
		if c, ok := d.text(v, f); ok {
			l.Client = c
		}
	case "no_keepalive":
		l.NoKeepAlive, _ = d.boolean(v, f)
	case "http2":
		l.HTTP2, _ = d.boolean(v, f)
	case "h2c":
		l.H2C, _ = d.boolean(v, f)
	case "insecure":
		l.Insecure, _ = d.boolean(v, f)
	case "cacert":
		// Read when a trial starts: a variant's start may make it, as a
		// server with a CA of its own does.
		l.CACert, _ = d.trialFile(v, f)
	case "proto":
		d.list(v, f, "file", func(i int, n *yaml.Node) {
			if _, resolved, _, ok := d.file(n, index(f, i)); ok {
				l.Proto = append(l.Proto, resolved)
			}
		})
	case "messages":
		if n, ok := d.integer(v, f, math.MinInt32, math.MaxInt32); ok {
			l.Messages, dec.explicit = int(n), append(dec.explicit, e.key)
		}
	case "message_interval":
		if t, ok := d.Span(v, f, math.MaxInt64); ok {
			l.MessageGap = t
		}
	case "import_paths":
		d.list(v, f, "folder", func(i int, n *yaml.Node) {
			if p, ok := d.specPath(n, index(f, i)); ok {
				l.ImportPaths = append(l.ImportPaths, p)
			}
		})
	default:
		return false
	}
	return true
}

// ramp decodes a ramp mapping: burst and every, both required. It returns
// nil when either is missing or does not decode.
func (d *decoder) ramp(n *yaml.Node, path string) *RampStep {
	r := &RampStep{}
	var burst, every, bad bool
	ok := d.mapping(n, path, func(key string, k, v *yaml.Node) {
		var ok bool
		switch f := join(path, key); key {
		case "burst":
			var b int64
			b, ok = d.integer(v, f, math.MinInt32, math.MaxInt32)
			r.Burst, burst = int(b), true
		case "every":
			r.Every, ok = d.Span(v, f, math.MaxInt64)
			every = true
		default:
			d.errorf(k, f, "%s", yamlfile.UnknownField(key, "burst", "every"))
		}
		bad = bad || !ok
	})
	if !ok {
		return nil
	}
	if !burst {
		d.errorf(n, join(path, "burst"), "missing")
	}
	if !every {
		d.errorf(n, join(path, "every"), "missing")
	}
	if bad || !burst || !every {
		return nil
	}
	return r
}
