package load

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/latlab/latlab/yamlfile"
)

// A SyntaxError reports bad input in a targets or scenario file, as
// FILE:LINE: FIELD: MSG.
type SyntaxError = yamlfile.SyntaxError

// IsToken reports whether s is a non-empty HTTP token (RFC 9110), as
// methods and header names are.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// isTokenByte reports whether c may appear in an HTTP token.
func isTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// ValidHeaderValue reports whether s can be sent as a header value: no
// control characters but tab.
func ValidHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// parseURL parses s as an absolute http or https URL. On failure it returns
// a message saying why.
var parseURL = yamlfile.ParseURL

// parseTarget parses s as parseURL does, or as a gRPC method's URL.
var parseTarget = yamlfile.ParseTarget

// maxNodes bounds the mapping entries and sequence items a scenario may
// expand to through aliases.
const maxNodes = 1 << 20

// decoder reads a scenario from YAML nodes, collecting every problem with
// its line and field.
type decoder struct {
	*yamlfile.Decoder
	readFile func(string) ([]byte, error)
}

// scenario decodes a scenario from the root node of its document.
func (d *decoder) scenario(root *yaml.Node) *Scenario {
	var steps, usersNode *yaml.Node
	d.Fields(root, "", []string{"steps"}, func(key, field string, k, v *yaml.Node) bool {
		switch key {
		case "steps":
			steps = v
		case "users":
			usersNode = v
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, "steps", "users"))
			return false
		}
		return true
	})
	if steps == nil {
		return nil
	}
	s := &Scenario{}
	if usersNode != nil {
		s.users = d.users(usersNode)
	}
	d.List(steps, "steps", "step", func(i int, n *yaml.Node) {
		st, ok := d.step(i, n, s.users.of(0))
		switch {
		case !ok:
		case slices.Contains(s.names, st.name):
			d.Errorf(n, yamlfile.Index("steps", i)+".name", "duplicate name %q", st.name)
		default:
			s.steps = append(s.steps, st)
			s.names = append(s.names, st.name)
		}
	})
	return s
}

// stepKeys are the fields of a step.
var stepKeys = []string{"name", "method", "url", "headers", "body", "body_file"}

// step decodes step i from n and builds it once with zero Vars. It
// reports false if the step has a problem.
func (d *decoder) step(i int, n *yaml.Node, user *User) (*step, bool) {
	path := yamlfile.Index("steps", i)
	st := &step{name: "step" + strconv.Itoa(i+1), header: http.Header{}}
	var bodyFile *yaml.Node
	withBody := false
	good := d.Fields(n, path, []string{"url"}, func(key, field string, k, v *yaml.Node) bool {
		ok := false
		switch key {
		case "name":
			st.name, ok = d.Text(v, field)
		case "method":
			st.method, ok = d.part(v, field, key)
		case "url":
			st.url, ok = d.part(v, field, key)
		case "headers":
			ok = d.headers(st, v, field)
		case "body":
			st.body, ok = d.part(v, field, key)
			withBody = true
		case "body_file":
			bodyFile, ok = v, true
		default:
			d.Errorf(k, field, "%s", yamlfile.UnknownField(key, stepKeys...))
		}
		return ok
	})
	if bodyFile != nil {
		good = d.bodyFile(st, bodyFile, path+".body_file", withBody) && good
	}
	if !good {
		return nil, false
	}
	if st.method == nil {
		st.method = &part{name: "method", field: path + ".method", line: n.Line, text: http.MethodGet}
	}
	req, err := st.build(Vars{User: user})
	if err != nil {
		if pe := (*partError)(nil); errors.As(err, &pe) {
			d.ErrorAt(pe.p.line, pe.p.field, "%s", pe.msg)
		} else {
			d.Errorf(n, path, "%v", err)
		}
		return nil, false
	}
	if st.url.tmpl == nil {
		st.u = req.URL
	}
	if st.method.tmpl == nil && st.url.tmpl == nil && len(st.dyn) == 0 &&
		(st.host == nil || st.host.tmpl == nil) && (st.body == nil || st.body.tmpl == nil) {
		st.static = req
	}
	return st, true
}

// headers decodes the headers of st from n, and reports whether all were
// good.
func (d *decoder) headers(st *step, n *yaml.Node, path string) bool {
	good := true
	ok := d.Mapping(n, path, func(key string, k, v *yaml.Node) {
		field := path + "." + key
		ck := http.CanonicalHeaderKey(key)
		dup := st.header[ck] != nil || ck == "Host" && st.host != nil ||
			slices.ContainsFunc(st.dyn, func(h dynHeader) bool { return h.key == ck })
		p, ok := d.part(v, field, "headers."+key)
		switch {
		case !IsToken(key):
			d.Errorf(k, field, "invalid header name")
		case dup:
			d.Errorf(k, field, "duplicate header")
		case !ok:
		case ck == "Host":
			st.host = p
			return
		case p.tmpl != nil:
			st.dyn = append(st.dyn, dynHeader{ck, p})
			return
		case !ValidHeaderValue(p.text):
			d.Errorf(v, field, "invalid value %q", p.text)
		default:
			st.header[ck] = []string{p.text}
			return
		}
		good = false
	})
	return ok && good
}

// bodyFile reads the body of st from the file that n names; withBody says
// the step gives a body too.
func (d *decoder) bodyFile(st *step, n *yaml.Node, field string, withBody bool) bool {
	if withBody {
		d.Errorf(n, field, "cannot be used with body")
		return false
	}
	path, ok := d.Text(n, field)
	if !ok {
		return false
	}
	data, err := d.readFile(path)
	if err == nil {
		st.body, err = newPart("body_file", field, yamlfile.Deref(n).Line, string(data))
	}
	if err != nil {
		d.Errorf(n, field, "%v", err)
		return false
	}
	return true
}

// part decodes the string n as a part.
func (d *decoder) part(n *yaml.Node, field, name string) (*part, bool) {
	s, ok := d.Str(n, field)
	if !ok {
		return nil, false
	}
	p, err := newPart(name, field, yamlfile.Deref(n).Line, s)
	if err != nil {
		d.Errorf(n, field, "%v", err)
		return nil, false
	}
	return p, true
}
