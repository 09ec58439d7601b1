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
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"google.golang.org/grpc/codes"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/latlab/latlab/yamlfile"
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
var serviceKeys = []string{"name", "entry", "proxy", "protocol", "port", "filters", "commands", "jobs", "load_job", "prime_max",
	"script", "calls", "errors", "resources"}

// service decodes services[i] from n, with what it refers to. It returns
// nil if the service has no usable name.
func (d *decoder) service(i int, n *yaml.Node) (*Service, *refs) {
	path := yamlfile.Index("services", i)
	n = yamlfile.Deref(n)
	s := &Service{Line: n.Line}
	r := &refs{}
	var order []string              // fields in file order
	keys := map[string]*yaml.Node{} // their key nodes
	bad := map[string]bool{}        // fields with a problem
	var loadJob, errorsNode *yaml.Node
	named := false
	d.Fields(n, path, []string{"name"}, func(key, field string, k, v *yaml.Node) bool {
		order = append(order, key)
		keys[key] = k
		ok := true
		switch key {
		case "name":
			s.Name, ok = d.serviceName(v, field)
			named = ok
		case "entry":
			s.Entry, ok = d.Boolean(v, field)
		case "proxy":
			if s.Proxy, ok = d.Text(v, field); ok {
				r.calls = append(r.calls, ref{name: s.Proxy, line: yamlfile.Deref(v).Line, field: field, proxy: true})
			}
		case "protocol":
			s.Protocol, ok = d.protocol(v, field)
		case "port":
			var p int64
			p, ok = d.Integer(v, field, 0, 65535)
			s.Port = int(p)
		case "filters":
			s.Filters, ok = d.filters(v, field)
		case "commands":
			s.Commands, ok = d.commands(v, field)
		case "jobs":
			s.Jobs, ok = d.jobs(v, field)
		case "load_job":
			loadJob = v
		case "prime_max":
			s.PrimeMax, ok = d.Integer(v, field, 1, maxPrime)
		case "script":
			s.Script, ok = d.script(v, field, r)
		case "calls":
			s.Calls, ok = d.calls(v, field, r)
		case "errors":
			s.Errors, ok = d.errorsSpec(v, field)
			errorsNode = v
		case "resources":
			s.Resources, ok = d.resources(v, field)
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, serviceKeys...))
			ok = false
		}
		bad[key] = !ok
		return ok
	})
	if !yamlfile.IsMapping(n) {
		return nil, nil
	}
	if loadJob != nil {
		var ok bool
		if s.LoadJob, ok = d.Text(loadJob, path+".load_job"); ok {
			r.stress = append(r.stress, ref{name: s.LoadJob, line: yamlfile.Deref(loadJob).Line, field: path + ".load_job"})
		}
	}
	d.checkService(s, r, path, order, keys, bad)
	if errorsNode != nil && !bad["errors"] {
		d.checkErrors(s, errorsNode, path+".errors")
	}
	if !named {
		return nil, nil
	}
	return s, r
}

// checkService checks the fields of service s at path that must fit
// together: script or calls, no field a proxy does not have, and every
// command and job its script forks or runs defined. order lists its
// fields in file order, keys their key nodes, bad those that did not
// decode.
func (d *decoder) checkService(s *Service, r *refs, path string, order []string, keys map[string]*yaml.Node, bad map[string]bool) {
	if keys["script"] != nil && keys["calls"] != nil {
		d.Errorf(keys["calls"], path+".calls", "give script or calls, not both")
	}
	for _, key := range order {
		if s.Proxy != "" && slices.Contains(proxyless, key) {
			d.Errorf(keys[key], path+"."+key, "a proxy has no %s: it forwards every request to %s", key, s.Proxy)
		}
	}
	for _, f := range r.forks {
		if _, ok := s.Commands[f.name]; !ok && !bad["commands"] {
			d.ErrorAt(f.line, f.field, "unknown command %q%s", f.name, known("commands", s.Commands))
		}
	}
	for _, j := range r.stress {
		if _, ok := s.Jobs[j.name]; !ok && !bad["jobs"] {
			d.ErrorAt(j.line, j.field, "unknown job %q%s", j.name, known("jobs", s.Jobs))
		}
	}
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
func (d *decoder) serviceName(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Text(n, field)
	if ok && (len(s) > maxNameLen || !dnsLabel.MatchString(s)) {
		d.Errorf(n, field, "%q is not a valid name: use at most %d letters, digits and '-', "+
			"starting with a letter and ending with a letter or digit (it becomes a Kubernetes name)", s, maxNameLen)
		return "", false
	}
	return s, ok
}

// calls decodes a calls list.
func (d *decoder) calls(n *yaml.Node, path string, r *refs) ([]string, bool) {
	var calls []string
	good := d.Sequence(n, path, func(i int, item *yaml.Node) {
		field := yamlfile.Index(path, i)
		if name, ok := d.Text(item, field); ok {
			calls = append(calls, name)
			r.calls = append(r.calls, ref{name: name, line: item.Line, field: field})
		}
	})
	return calls, good && len(calls) == len(yamlfile.Deref(n).Content)
}

// commands decodes named argv lists.
func (d *decoder) commands(n *yaml.Node, path string) (map[string][]string, bool) {
	cmds := map[string][]string{}
	good := d.Mapping(n, path, func(key string, k, v *yaml.Node) {
		field := path + "." + key
		if key == "" {
			d.Errorf(k, field, "empty command name")
			return
		}
		var argv []string
		ok := d.Sequence(v, field, func(i int, item *yaml.Node) {
			if arg, ok := d.Str(item, yamlfile.Index(field, i)); ok {
				argv = append(argv, arg)
			}
		})
		switch {
		case !ok || len(argv) < len(yamlfile.Deref(v).Content):
			return
		case len(argv) == 0:
			d.Errorf(v, field, "expected a command and its arguments, got an empty list")
			return
		case argv[0] == "":
			d.Errorf(v, field+"[0]", "empty command")
			return
		}
		cmds[key] = argv
	})
	return nonEmpty(cmds), good && len(cmds) == countKeys(n)
}

// jobs decodes named job files, made absolute against the topology's
// folder, checking that each is a file.
func (d *decoder) jobs(n *yaml.Node, path string) (map[string]string, bool) {
	jobs := map[string]string{}
	good := d.Mapping(n, path, func(key string, k, v *yaml.Node) {
		field := path + "." + key
		if key == "" {
			d.Errorf(k, field, "empty job name")
			return
		}
		file, ok := d.Text(v, field)
		if !ok {
			return
		}
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(d.dir, p)
		}
		p, err := filepath.Abs(p)
		if err != nil {
			d.Errorf(v, field, "%v", err)
			return
		}
		fi, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			d.Errorf(v, field, "cannot open %q: %v", file, err)
			return
		}
		if !fi.Mode().IsRegular() {
			d.Errorf(v, field, "%q is not a regular file", file)
			return
		}
		jobs[key] = p
		if _, ok := d.jobFiles[p]; !ok || filepath.IsAbs(file) {
			d.jobFiles[p] = file // an absolute path wins: a pod cannot follow it
		}
	})
	return nonEmpty(jobs), good && len(jobs) == countKeys(n)
}

// nonEmpty returns m, or nil if it is empty.
func nonEmpty[V any](m map[string]V) map[string]V {
	if len(m) == 0 {
		return nil
	}
	return m
}

// countKeys returns the number of keys of the mapping n.
func countKeys(n *yaml.Node) int { return len(yamlfile.Deref(n).Content) / 2 }

// protocol decodes a service's protocol: http or grpc.
func (d *decoder) protocol(n *yaml.Node, field string) (Protocol, bool) {
	s, ok := d.Text(n, field)
	switch {
	case !ok:
		return HTTP, false
	case s == "http":
		return HTTP, true
	case s == string(GRPC):
		return GRPC, true
	}
	d.Errorf(n, field, "%q is not a protocol: expected http or grpc", s)
	return HTTP, false
}

// checkErrors checks that a service's injected errors, decoded from n,
// are of its protocol: an HTTP status, or a gRPC code.
func (d *decoder) checkErrors(s *Service, n *yaml.Node, path string) {
	for _, k := range yamlfile.Deref(n).Content {
		switch {
		case s.Protocol == GRPC && k.Value == "status":
			d.Errorf(k, path+".status", "a gRPC service fails with a code, such as code: UNAVAILABLE, not an HTTP status")
		case s.Protocol != GRPC && k.Value == "code":
			d.Errorf(k, path+".code", "an HTTP service fails with a status, such as status: 503; code is for protocol: grpc")
		}
	}
}

// errorsSpec decodes injected errors.
func (d *decoder) errorsSpec(n *yaml.Node, path string) (*Errors, bool) {
	e := &Errors{Status: defaultCode}
	if !d.Fields(n, path, []string{"rate"}, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "rate":
			if e.Rate, ok = d.Number(v, field); ok && (e.Rate < 0 || e.Rate > 1) {
				d.Errorf(v, field, "%s is not between 0 and 1", yamlfile.Deref(v).Value)
				ok = false
			}
		case "status":
			var c int64
			c, ok = d.Integer(v, field, 100, 599)
			e.Status = int(c)
		case "code":
			e.Code, ok = d.rpcCode(v, field)
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "rate", "status", "code"))
		}
		return ok
	}) {
		return nil, false
	}
	return e, true
}

// rpcCode decodes a gRPC status code by its name, such as UNAVAILABLE.
func (d *decoder) rpcCode(n *yaml.Node, field string) (codes.Code, bool) {
	s, ok := d.Text(n, field)
	if !ok {
		return 0, false
	}
	var c codes.Code
	if st, err := strconv.Atoi(s); err == nil && st >= 100 && st <= 599 {
		d.Errorf(n, field, "%s is an HTTP status: an HTTP service fails with status: %s, a gRPC one with a code such as UNAVAILABLE", s, s)
		return 0, false
	}
	if strings.ToUpper(s) != s || c.UnmarshalJSON([]byte(strconv.Quote(s))) != nil || c == codes.OK {
		d.Errorf(n, field, "%q is not the name of a gRPC error code, such as UNAVAILABLE, INTERNAL or RESOURCE_EXHAUSTED", s)
		return 0, false
	}
	return c, true
}

// resources decodes Kubernetes requests and limits.
func (d *decoder) resources(n *yaml.Node, path string) (*Resources, bool) {
	r := &Resources{}
	good := d.Fields(n, path, nil, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "cpu":
			r.CPU, ok = d.quantity(v, field)
		case "memory":
			r.Memory, ok = d.quantity(v, field)
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "cpu", "memory"))
		}
		return ok
	})
	if good && countKeys(n) == 0 {
		d.Errorf(n, path, "give cpu, memory or both")
		good = false
	}
	if !good {
		return nil, false
	}
	return r, true
}

// quantity decodes a positive Kubernetes quantity, such as 500m or 256Mi.
func (d *decoder) quantity(n *yaml.Node, field string) (string, bool) {
	s, ok := d.Str(n, field)
	if !ok {
		return "", false
	}
	if _, msg := parseQuantity(s); msg != "" {
		d.Errorf(n, field, "%s", msg)
		return "", false
	}
	return s, true
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
