package graph

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// Bounds of a fair-queue filter.
const (
	maxConcurrency = 1_000_000
	maxQueues      = 4096
	maxQueueLength = 1_000_000
	maxShares      = 1_000_000
)

// filters decodes a filter chain, naming each filter after its kind.
func (d *decoder) filters(n *yaml.Node, path string) ([]Filter, bool) {
	var chain []Filter
	count := map[FilterKind]int{}
	good := d.Sequence(n, path, func(i int, item *yaml.Node) {
		field := yamlfile.Index(path, i)
		if item.Kind != yaml.MappingNode {
			d.Errorf(item, field, "expected a filter such as {passthrough: {}}, got %s", yamlfile.Describe(item))
			return
		}
		f := Filter{Line: item.Line}
		ok := true
		d.Mapping(item, field, func(key string, k, v *yaml.Node) {
			if f.Kind != "" {
				d.Errorf(k, field, "more than one filter: %s and %s; give each its own list item", f.Kind, key)
				ok = false
				return
			}
			f.Kind = FilterKind(key)
			sub := field + "." + key
			switch f.Kind {
			case Passthrough:
				ok = d.Mapping(v, sub, func(_ string, k, _ *yaml.Node) {
					d.Errorf(k, sub+"."+k.Value, "unknown field: passthrough takes none")
				}) && countKeys(v) == 0 && ok
			case Delay:
				f.Delay = d.delay(v, sub)
				ok = ok && f.Delay != nil
			case FairQueue:
				f.FairQueue = d.fairQueue(v, sub)
				ok = ok && f.FairQueue != nil
			default:
				d.Errorf(k, sub, "unknown filter: expected delay, fairqueue or passthrough")
				ok = false
			}
		})
		if f.Kind == "" && len(item.Content) == 0 {
			d.Errorf(item, field, "no filter: expected delay, fairqueue or passthrough")
		}
		if f.Kind == "" || !ok {
			return
		}
		count[f.Kind]++
		f.Name = string(f.Kind)
		if c := count[f.Kind]; c > 1 {
			f.Name = fmt.Sprintf("%s-%d", f.Kind, c)
		}
		chain = append(chain, f)
	})
	return chain, good && len(chain) == len(yamlfile.Deref(n).Content)
}

// delay decodes a delay filter, or returns nil after recording its
// problems.
func (d *decoder) delay(n *yaml.Node, path string) *DelaySpec {
	s := &DelaySpec{}
	if !d.Fields(n, path, []string{"user", "duration"}, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "user":
			s.User, ok = d.Text(v, field)
		case "header":
			s.Header, ok = d.header(v, field)
		case "duration":
			s.Duration, ok = d.Duration(v, field, maxDuration)
		case "methods":
			ok = d.List(v, field, "HTTP method", func(i int, n *yaml.Node) {
				if m, good := d.method(n, yamlfile.Index(field, i)); good {
					s.Methods = append(s.Methods, m)
				}
			})
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "user", "header", "duration", "methods"))
		}
		return ok
	}) {
		return nil
	}
	return s
}

// fairQueue decodes a fair-queue filter, or returns nil after recording
// its problems.
func (d *decoder) fairQueue(n *yaml.Node, path string) *FairQueueSpec {
	s := &FairQueueSpec{}
	var handSize *yaml.Node
	good := d.Fields(n, path, []string{"concurrency", "queues", "handsize", "queue_length", "levels"}, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		var i int64
		switch key {
		case "concurrency":
			i, ok = d.Integer(v, field, 1, maxConcurrency)
			s.Concurrency = int(i)
		case "queues":
			i, ok = d.Integer(v, field, 1, maxQueues)
			s.Queues = int(i)
		case "handsize":
			i, ok = d.Integer(v, field, 1, maxQueues)
			s.HandSize, handSize = int(i), v
		case "queue_length":
			i, ok = d.Integer(v, field, 1, maxQueueLength)
			s.QueueLength = int(i)
		case "header":
			s.Header, ok = d.header(v, field)
		case "levels":
			s.Levels, ok = d.levels(v, field)
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "concurrency", "queues", "handsize", "queue_length", "header", "levels"))
		}
		return ok
	})
	if s.HandSize > 0 && s.Queues > 0 && s.HandSize > s.Queues {
		d.Errorf(handSize, path+".handsize", "%d is more than queues (%d)", s.HandSize, s.Queues)
		good = false
	}
	if !good {
		return nil
	}
	return s
}

// levels decodes the priority levels of a fair-queue filter.
func (d *decoder) levels(n *yaml.Node, path string) ([]Level, bool) {
	var levels []Level
	users := map[string]string{} // level of each user
	var last *yaml.Node          // the item of the last level
	lastField := ""
	good := d.List(n, path, "level", func(i int, item *yaml.Node) {
		field := yamlfile.Index(path, i)
		l := &Level{}
		if !d.Fields(item, field, []string{"name", "shares"}, func(key, field string, k, v *yaml.Node) bool {
			ok := false
			switch key {
			case "name":
				l.Name, ok = d.Text(v, field)
			case "shares":
				var sh int64
				sh, ok = d.Integer(v, field, 1, maxShares)
				l.Shares = int(sh)
			case "users":
				ok = d.users(l, v, field, users)
			default:
				d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "name", "shares", "users"))
			}
			return ok
		}) {
			return
		}
		if slices.ContainsFunc(levels, func(o Level) bool { return o.Name == l.Name }) {
			d.Errorf(item, field+".name", "duplicate level %q", l.Name)
			return
		}
		if len(levels) > 0 && len(levels[len(levels)-1].Users) == 0 {
			d.Errorf(last, lastField+".users", "missing: only the last level takes everyone else")
		}
		levels, last, lastField = append(levels, *l), item, field
	})
	return levels, good && len(levels) == len(yamlfile.Deref(n).Content)
}

// users decodes the users of the level l, which users maps to the level
// of each user named so far.
func (d *decoder) users(l *Level, n *yaml.Node, path string, users map[string]string) bool {
	good := true
	seq := d.Sequence(n, path, func(j int, u *yaml.Node) {
		f := yamlfile.Index(path, j)
		user, ok := d.Text(u, f)
		if !ok {
			good = false
			return
		}
		if other, ok := users[user]; ok {
			d.Errorf(u, f, "user %q is in level %s already", user, other)
			good = false
			return
		}
		users[user] = l.Name
		l.Users = append(l.Users, user)
	})
	return seq && good
}

// header decodes the name of an HTTP header.
func (d *decoder) header(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Text(n, field)
	if ok && strings.IndexFunc(s, func(r rune) bool { return !isTokenRune(r) }) >= 0 {
		d.Errorf(n, field, "%q is not a header name", s)
		return "", false
	}
	return s, ok
}

// isTokenRune reports whether r may appear in an HTTP token (RFC 9110),
// as header names are.
func isTokenRune(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// method decodes an HTTP method: a token, in capitals as a request sends it.
func (d *decoder) method(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Text(n, field)
	if !ok {
		return "", false
	}
	if strings.IndexFunc(s, func(r rune) bool { return !isTokenRune(r) }) >= 0 || strings.ToUpper(s) != s {
		d.Errorf(n, field, "%q is not an HTTP method as requests send it (GET, POST, PUT, PATCH, DELETE, ...)", s)
		return "", false
	}
	return s, true
}
