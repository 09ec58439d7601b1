package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
)

// Bounds of a fair-queue filter.
const (
	maxConcurrency = 1_000_000
	maxQueues      = 4096
	maxQueueLength = 1_000_000
	maxShares      = 1_000_000
)

// filters decodes a filter chain, naming each filter after its kind.
func (d *decoder) filters(n *yaml.Node, path string) ([]Filter, error) {
	var chain []Filter
	count := map[FilterKind]int{}
	err := d.sequence(n, path, func(i int, item *yaml.Node) error {
		field := fmt.Sprintf("%s[%d]", path, i)
		if item.Kind != yaml.MappingNode {
			return d.errorf(item, field, "expected a filter such as {passthrough: {}}, got %s", yamlfile.Describe(item))
		}
		f := Filter{Line: item.Line}
		err := d.mapping(item, field, func(key string, k, v *yaml.Node) error {
			if f.Kind != "" {
				return d.errorf(k, field, "more than one filter: %s and %s; give each its own list item", f.Kind, key)
			}
			f.Kind = FilterKind(key)
			sub := field + "." + key
			var err error
			switch f.Kind {
			case Passthrough:
				err = d.mapping(v, sub, func(_ string, k, _ *yaml.Node) error {
					return d.errorf(k, sub+"."+k.Value, "unknown field: passthrough takes none")
				})
			case Delay:
				f.Delay, err = d.delay(v, sub)
			case FairQueue:
				f.FairQueue, err = d.fairQueue(v, sub)
			default:
				err = d.errorf(k, sub, "unknown filter: expected delay, fairqueue or passthrough")
			}
			return err
		})
		if err != nil {
			return err
		}
		if f.Kind == "" {
			return d.errorf(item, field, "no filter: expected delay, fairqueue or passthrough")
		}
		count[f.Kind]++
		f.Name = string(f.Kind)
		if c := count[f.Kind]; c > 1 {
			f.Name = fmt.Sprintf("%s-%d", f.Kind, c)
		}
		chain = append(chain, f)
		return nil
	})
	if err != nil || len(chain) == 0 {
		return nil, err
	}
	return chain, nil
}

// delay decodes a delay filter.
func (d *decoder) delay(n *yaml.Node, path string) (*DelaySpec, error) {
	s := &DelaySpec{}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		var err error
		switch key {
		case "user":
			s.User, err = d.name(v, field)
		case "header":
			s.Header, err = d.header(v, field)
		case "duration":
			s.Duration, err = d.duration(v, field)
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "user", "header", "duration"))
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case s.User == "":
		return nil, d.errorf(n, path+".user", "missing")
	case s.Duration == 0:
		return nil, d.errorf(n, path+".duration", "missing")
	}
	return s, nil
}

// fairQueue decodes a fair-queue filter.
func (d *decoder) fairQueue(n *yaml.Node, path string) (*FairQueueSpec, error) {
	s := &FairQueueSpec{}
	var handSize *yaml.Node
	var levels *yaml.Node
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		var err error
		var i int64
		switch key {
		case "concurrency":
			i, err = d.integer(v, field, 1, maxConcurrency)
			s.Concurrency = int(i)
		case "queues":
			i, err = d.integer(v, field, 1, maxQueues)
			s.Queues = int(i)
		case "handsize":
			i, err = d.integer(v, field, 1, maxQueues)
			s.HandSize, handSize = int(i), v
		case "queue_length":
			i, err = d.integer(v, field, 1, maxQueueLength)
			s.QueueLength = int(i)
		case "header":
			s.Header, err = d.header(v, field)
		case "levels":
			s.Levels, err = d.levels(v, field)
			levels = v
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "concurrency", "queues", "handsize", "queue_length", "header", "levels"))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		name string
		v    int
	}{{"concurrency", s.Concurrency}, {"queues", s.Queues}, {"handsize", s.HandSize}, {"queue_length", s.QueueLength}} {
		if m.v == 0 {
			return nil, d.errorf(n, path+"."+m.name, "missing")
		}
	}
	switch {
	case s.HandSize > s.Queues:
		return nil, d.errorf(handSize, path+".handsize", "%d is more than queues (%d)", s.HandSize, s.Queues)
	case levels == nil:
		return nil, d.errorf(n, path+".levels", "missing")
	}
	return s, nil
}

// levels decodes the priority levels of a fair-queue filter.
func (d *decoder) levels(n *yaml.Node, path string) ([]Level, error) {
	var levels []Level
	users := map[string]string{} // level of each user
	var last *yaml.Node
	err := d.sequence(n, path, func(i int, item *yaml.Node) error {
		field := fmt.Sprintf("%s[%d]", path, i)
		l := Level{}
		err := d.mapping(item, field, func(key string, k, v *yaml.Node) error {
			field := field + "." + key
			var err error
			switch key {
			case "name":
				l.Name, err = d.name(v, field)
			case "shares":
				var sh int64
				sh, err = d.integer(v, field, 1, maxShares)
				l.Shares = int(sh)
			case "users":
				err = d.sequence(v, field, func(j int, u *yaml.Node) error {
					f := fmt.Sprintf("%s[%d]", field, j)
					user, err := d.name(u, f)
					if err != nil {
						return err
					}
					if other, ok := users[user]; ok {
						return d.errorf(u, f, "user %q is in level %s already", user, other)
					}
					users[user] = l.Name
					l.Users = append(l.Users, user)
					return nil
				})
			default:
				err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "name", "shares", "users"))
			}
			return err
		})
		switch {
		case err != nil:
			return err
		case l.Name == "":
			return d.errorf(item, field+".name", "missing")
		case l.Shares == 0:
			return d.errorf(item, field+".shares", "missing")
		case slices.ContainsFunc(levels, func(o Level) bool { return o.Name == l.Name }):
			return d.errorf(item, field+".name", "duplicate level %q", l.Name)
		}
		if len(levels) > 0 && len(levels[len(levels)-1].Users) == 0 {
			return d.errorf(last, fmt.Sprintf("%s[%d].users", path, i-1), "missing: only the last level takes everyone else")
		}
		levels, last = append(levels, l), item
		return nil
	})
	if err == nil && len(levels) == 0 {
		err = d.errorf(n, path, "expected at least one level")
	}
	return levels, err
}

// header decodes the name of an HTTP header.
func (d *decoder) header(n *yaml.Node, field string) (string, error) {
	s, err := d.name(n, field)
	if err == nil && strings.IndexFunc(s, func(r rune) bool { return !isTokenRune(r) }) >= 0 {
		err = d.errorf(n, field, "%q is not a header name", s)
	}
	return s, err
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
