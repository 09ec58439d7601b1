package graph

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/latlab/latlab/yamlfile"
	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Bounds of a topology's numbers.
const (
	maxPrime    = 1_000_000_000
	maxSize     = 1 << 30 // payloads and request bodies
	maxNameLen  = 63      // of a DNS label
	defaultCode = 500     // status of an injected error
)

// dnsLabel matches a DNS-1035 label in any case; Kubernetes Service names
// are such labels in lowercase.
var dnsLabel = regexp.MustCompile(`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)

// proxyless are the fields a proxy service cannot have, since it forwards
// every request.
var proxyless = []string{"script", "calls", "commands", "jobs", "load_job", "prime_max"}

// serviceKeys are the fields of a service.
var serviceKeys = []string{"name", "entry", "proxy", "port", "filters", "commands", "jobs", "load_job", "prime_max",
	"script", "calls", "errors", "resources"}

// service decodes services[i] from n, with what it refers to.
func (d *decoder) service(i int, n *yaml.Node) (*Service, *refs, error) {
	path := fmt.Sprintf("services[%d]", i)
	n = yamlfile.Deref(n)
	s := &Service{Line: n.Line}
	r := &refs{}
	var order []string              // fields in file order
	keys := map[string]*yaml.Node{} // their key nodes
	var loadJob *yaml.Node
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		order = append(order, key)
		keys[key] = k
		var err error
		switch key {
		case "name":
			s.Name, err = d.serviceName(v, field)
		case "entry":
			s.Entry, err = d.boolean(v, field)
		case "proxy":
			if s.Proxy, err = d.name(v, field); err == nil {
				r.calls = append(r.calls, ref{s.Proxy, yamlfile.Deref(v).Line, field})
			}
		case "port":
			var p int64
			p, err = d.integer(v, field, 0, 65535)
			s.Port = int(p)
		case "filters":
			s.Filters, err = d.filters(v, field)
		case "commands":
			s.Commands, err = d.commands(v, field)
		case "jobs":
			s.Jobs, err = d.jobs(v, field)
		case "load_job":
			loadJob = v
		case "prime_max":
			s.PrimeMax, err = d.integer(v, field, 1, maxPrime)
		case "script":
			s.Script, err = d.script(v, field, r)
		case "calls":
			s.Calls, err = d.calls(v, field, r)
		case "errors":
			s.Errors, err = d.errorsSpec(v, field)
		case "resources":
			s.Resources, err = d.resources(v, field)
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, serviceKeys...))
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if s.Name == "" {
		return nil, nil, d.errorf(n, path+".name", "missing")
	}
	if keys["script"] != nil && keys["calls"] != nil {
		return nil, nil, d.errorf(keys["calls"], path+".calls", "give script or calls, not both")
	}
	for _, key := range order {
		if s.Proxy != "" && slices.Contains(proxyless, key) {
			return nil, nil, d.errorf(keys[key], path+"."+key, "a proxy has no %s: it forwards every request to %s", key, s.Proxy)
		}
	}
	if loadJob != nil {
		if s.LoadJob, err = d.name(loadJob, path+".load_job"); err != nil {
			return nil, nil, err
		}
		r.stress = append(r.stress, ref{s.LoadJob, yamlfile.Deref(loadJob).Line, path + ".load_job"})
	}
	for _, f := range r.forks {
		if _, ok := s.Commands[f.name]; !ok {
			return nil, nil, d.errorAt(f.line, f.field, "unknown command %q%s", f.name, known("commands", s.Commands))
		}
	}
	for _, j := range r.stress {
		if _, ok := s.Jobs[j.name]; !ok {
			return nil, nil, d.errorAt(j.line, j.field, "unknown job %q%s", j.name, known("jobs", s.Jobs))
		}
	}
	return s, r, nil
}

// known lists the keys of m for an error about a name missing from it.
func known[V any](what string, m map[string]V) string {
	if len(m) == 0 {
		return "; the service has no " + what
	}
	names := slices.Sorted(maps.Keys(m))
	if len(names) > 10 {
		names = append(names[:10], "…")
	}
	return fmt.Sprintf(" (%s: %s)", what, strings.Join(names, ", "))
}

// serviceName decodes the name of a service: a DNS label, since in
// lowercase it names Kubernetes objects and is a host name there.
func (d *decoder) serviceName(n *yaml.Node, field string) (string, error) {
	s, err := d.name(n, field)
	if err == nil && (len(s) > maxNameLen || !dnsLabel.MatchString(s)) {
		err = d.errorf(n, field, "%q is not a valid name: use at most %d letters, digits and '-', "+
			"starting with a letter and ending with a letter or digit (it becomes a Kubernetes name)", s, maxNameLen)
	}
	return s, err
}

// calls decodes a calls list.
func (d *decoder) calls(n *yaml.Node, path string, r *refs) ([]string, error) {
	var calls []string
	err := d.sequence(n, path, func(i int, item *yaml.Node) error {
		field := fmt.Sprintf("%s[%d]", path, i)
		name, err := d.name(item, field)
		if err != nil {
			return err
		}
		calls = append(calls, name)
		r.calls = append(r.calls, ref{name, item.Line, field})
		return nil
	})
	return calls, err
}

// commands decodes named argv lists.
func (d *decoder) commands(n *yaml.Node, path string) (map[string][]string, error) {
	cmds := map[string][]string{}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		if key == "" {
			return d.errorf(k, field, "empty command name")
		}
		var argv []string
		err := d.sequence(v, field, func(i int, item *yaml.Node) error {
			arg, err := d.str(item, fmt.Sprintf("%s[%d]", field, i))
			argv = append(argv, arg)
			return err
		})
		switch {
		case err != nil:
			return err
		case len(argv) == 0:
			return d.errorf(v, field, "expected a command and its arguments, got an empty list")
		case argv[0] == "":
			return d.errorf(v, field+"[0]", "empty command")
		}
		cmds[key] = argv
		return nil
	})
	if err != nil || len(cmds) == 0 {
		return nil, err
	}
	return cmds, nil
}

// jobs decodes named job files, made absolute against the topology's
// folder, checking that each is a file.
func (d *decoder) jobs(n *yaml.Node, path string) (map[string]string, error) {
	jobs := map[string]string{}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		if key == "" {
			return d.errorf(k, field, "empty job name")
		}
		file, err := d.name(v, field)
		if err != nil {
			return err
		}
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.dir, p)
		}
		if p, err = filepath.Abs(p); err != nil {
			return d.errorf(v, field, "%v", err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return d.errorf(v, field, "cannot open %q: %v", file, err)
		}
		if !fi.Mode().IsRegular() {
			return d.errorf(v, field, "%q is not a regular file", file)
		}
		jobs[key] = p
		if _, ok := d.jobFiles[p]; !ok || filepath.IsAbs(file) {
			d.jobFiles[p] = file // an absolute path wins: a pod cannot follow it
		}
		return nil
	})
	if err != nil || len(jobs) == 0 {
		return nil, err
	}
	return jobs, nil
}

// errorsSpec decodes injected errors.
func (d *decoder) errorsSpec(n *yaml.Node, path string) (*Errors, error) {
	e := &Errors{Rate: -1, Status: defaultCode}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		var err error
		switch key {
		case "rate":
			if e.Rate, err = d.number(v, field); err == nil && (e.Rate < 0 || e.Rate > 1) {
				err = d.errorf(v, field, "%s is not between 0 and 1", yamlfile.Deref(v).Value)
			}
		case "status":
			var c int64
			c, err = d.integer(v, field, 100, 599)
			e.Status = int(c)
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "rate", "status"))
		}
		return err
	})
	if err == nil && e.Rate < 0 {
		err = d.errorf(n, path+".rate", "missing")
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// resources decodes Kubernetes requests and limits.
func (d *decoder) resources(n *yaml.Node, path string) (*Resources, error) {
	r := &Resources{}
	err := d.mapping(n, path, func(key string, k, v *yaml.Node) error {
		field := path + "." + key
		var err error
		switch key {
		case "cpu":
			r.CPU, err = d.quantity(v, field)
		case "memory":
			r.Memory, err = d.quantity(v, field)
		default:
			err = d.errorf(k, field, "%s", yamlfile.UnknownField(key, "cpu", "memory"))
		}
		return err
	})
	if err == nil && r.CPU == "" && r.Memory == "" {
		err = d.errorf(n, path, "give cpu, memory or both")
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// quantity decodes a positive Kubernetes quantity, such as 500m or 256Mi.
func (d *decoder) quantity(n *yaml.Node, field string) (string, error) {
	s, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	if _, msg := parseQuantity(s); msg != "" {
		return "", d.errorf(n, field, "%s", msg)
	}
	return s, nil
}

// parseQuantity parses a positive Kubernetes quantity, or returns what is
// wrong with it.
func parseQuantity(s string) (resource.Quantity, string) {
	q, err := resource.ParseQuantity(s)
	switch {
	case err != nil:
		return q, fmt.Sprintf("%q is not a Kubernetes quantity (such as 500m, 2 or 256Mi)", s)
	case q.Sign() <= 0:
		return q, fmt.Sprintf("%q is not positive", s)
	}
	return q, ""
}
