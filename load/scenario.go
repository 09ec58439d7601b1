package load

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/latlab/latlab/yamlfile"
)

// Vars are the values a scenario's templates see, as {{.Worker}},
// {{.Iter}} and {{.Seq}}.
type Vars struct {
	Worker int64 // index of the worker sending the request
	Iter   int64 // the worker's iteration, from 0
	Seq    int64 // the iteration across all workers, from 0
	User   *User // the iteration's user, of the scenario's users: list; nil without
}

// A Scenario is a list of request steps, each built afresh for every
// iteration from Go text/templates. Its zero value has no steps. A Scenario
// is safe for concurrent use.
type Scenario struct {
	steps []*step
	names []string
	users users
}

// step is one step of a scenario: templated parts and what could be built
// ahead of time.
type step struct {
	name   string
	method *part
	url    *part
	host   *part // nil without a Host header
	body   *part // nil without a body
	dyn    []dynHeader
	header http.Header // the headers that are not templated
	u      *url.URL    // the URL, when it is not templated
	static *Request    // the whole request, when nothing is templated
}

// dynHeader is a templated header.
type dynHeader struct {
	key string
	val *part
}

// ReadScenario reads the scenario file at path; see ParseScenario for the
// format. Body files are found relative to the folder of path.
func ReadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	return ParseScenario(path, data, readRelative(path))
}

// ParseScenario parses data, a YAML scenario file named name in errors.
// readFile reads the files that body_file names; nil means os.ReadFile.
//
//	steps:
//	  - name: create          # default "step1", "step2", ...; unique
//	    method: POST          # default GET
//	    url: http://127.0.0.1:8080/objects/cm-{{.Worker}}-{{.Iter}}
//	    headers: {Content-Type: application/json}
//	    body: '{"name":"cm-{{.Seq}}"}'
//	  - name: get
//	    url: http://127.0.0.1:8080/objects/cm-{{.Worker}}-{{.Iter}}
//
// Optional users give the iterations identities (see User):
//
//	users:                  # iterations go to them in turn, by Seq
//	  - {name: alice, token: s3cret}
//	  - {name: bob, token_file: bob.token, weight: 3}   # 3 in a row
//	  - {name: carol, cert: carol.crt, key: carol.key}  # a client certificate
//
// each with a unique name, a token or a token_file (relative to the
// scenario, its final line break dropped), optionally a client certificate
// (cert and key, PEM files relative to the scenario; see User), and a
// weight (default 1). Templates read the iteration's user as .User.
//
// At least one step is required, and each needs a url. Instead of body, a
// step may give body_file, a file whose contents are the body. Method,
// url, header values and body are text/templates over Vars, without
// range, define, block or template actions; a Host header sets the
// request's Host. A problem is a *SyntaxError naming the line and field:
// unknown fields, values of the wrong type, bad templates, and steps that
// fail to build with zero Vars. The error lists every problem of the file
// by line (a *yamlfile.Problems when there are several).
func ParseScenario(name string, data []byte, readFile func(string) ([]byte, error)) (*Scenario, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	root, err := yamlfile.Document(name, data, "no steps")
	if err != nil {
		return nil, err
	}
	d := &decoder{Decoder: yamlfile.NewDecoder(name, data, maxNodes), readFile: readFile}
	s := d.scenario(root)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// Names returns the names of the steps, in order.
func (s *Scenario) Names() []string { return slices.Clone(s.names) }

// Len returns the number of steps.
func (s *Scenario) Len() int { return len(s.steps) }

// Build returns the request of step i for the iteration v, with Step set
// to i and v.User set to the iteration's user. Its Header, Body and URL
// may be shared with other requests built from the step and must not be
// modified.
func (s *Scenario) Build(i int, v Vars) (*Request, error) {
	if i < 0 || i >= len(s.steps) {
		return nil, fmt.Errorf("building step %d: out of range [0, %d)", i, len(s.steps))
	}
	st := s.steps[i]
	u := s.users.of(v.Seq)
	if st.static != nil {
		req := *st.static
		req.Step = i
		req.as(u)
		return &req, nil
	}
	v.User = u
	req, err := st.build(v)
	if err != nil {
		return nil, fmt.Errorf("building step %q: %w", st.name, err)
	}
	req.Step = i
	req.as(u)
	return req, nil
}

// build executes st's templates with v and checks the result.
func (st *step) build(v Vars) (*Request, error) {
	method, err := st.method.str(&v)
	if err != nil {
		return nil, err
	}
	if !IsToken(method) {
		return nil, st.method.errorf("invalid method %q", method)
	}
	req := &Request{Method: method, URL: st.u, Header: st.header}
	if req.URL == nil {
		s, err := st.url.str(&v)
		if err != nil {
			return nil, err
		}
		var msg string
		if req.URL, msg = parseTarget(s); msg != "" {
			return nil, st.url.errorf("%s", msg)
		}
	}
	if len(st.dyn) > 0 {
		req.Header = make(http.Header, len(st.header)+len(st.dyn))
		for k, vs := range st.header {
			req.Header[k] = vs
		}
		for _, h := range st.dyn {
			s, err := h.val.str(&v)
			if err != nil {
				return nil, err
			}
			if !ValidHeaderValue(s) {
				return nil, h.val.errorf("invalid value %q", s)
			}
			req.Header[h.key] = []string{s}
		}
	}
	if st.host != nil {
		if req.Host, err = st.host.str(&v); err != nil {
			return nil, err
		}
		if req.Host == "" || !ValidHeaderValue(req.Host) {
			return nil, st.host.errorf("invalid Host %q", req.Host)
		}
	}
	if st.body != nil {
		if req.Body, err = st.body.bytes(&v); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// maxPart caps the length of an executed template, against runaway output.
const maxPart = 16 << 20

// A part is a value of a step that may be a template: a method, URL,
// header value or body.
type part struct {
	name  string // what it is in Build errors, such as "url"
	field string // where it is in syntax errors, such as "steps[0].url"
	line  int
	text  string             // the value, when tmpl is nil
	raw   []byte             // text as a body
	tmpl  *template.Template // nil when text holds no "{{"
}

// newPart parses text as a template unless it holds no "{{". Loops and
// calls of other templates are refused: a request is built for every
// iteration, and they could make that arbitrarily slow.
func newPart(name, field string, line int, text string) (*part, error) {
	p := &part{name: name, field: field, line: line, text: text}
	if !strings.Contains(text, "{{") {
		if text != "" {
			p.raw = []byte(text)
		}
		return p, nil
	}
	t, err := template.New(name).Parse(text)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) != 1 || t.Tree == nil {
		return nil, errors.New("template definitions are not supported")
	}
	if msg := checkTemplate(t.Root); msg != "" {
		return nil, errors.New(msg)
	}
	p.tmpl = t
	return p, nil
}

// checkTemplate returns why the template n is refused, or "".
func checkTemplate(n parse.Node) string {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return ""
		}
		for _, c := range n.Nodes {
			if msg := checkTemplate(c); msg != "" {
				return msg
			}
		}
	case *parse.IfNode:
		return cmp.Or(checkTemplate(n.List), checkTemplate(n.ElseList))
	case *parse.WithNode:
		return cmp.Or(checkTemplate(n.List), checkTemplate(n.ElseList))
	case *parse.RangeNode:
		return "range is not supported"
	case *parse.TemplateNode:
		return "template calls are not supported"
	}
	return ""
}

// bufPool holds buffers for executing templates.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// str returns the value of p for v.
func (p *part) str(v *Vars) (string, error) {
	if p.tmpl == nil {
		return p.text, nil
	}
	b, err := p.exec(v)
	if err != nil {
		return "", err
	}
	defer putBuf(b)
	return b.String(), nil
}

// bytes returns the value of p for v as a body.
func (p *part) bytes(v *Vars) ([]byte, error) {
	if p.tmpl == nil {
		return p.raw, nil
	}
	b, err := p.exec(v)
	if err != nil {
		return nil, err
	}
	defer putBuf(b)
	return bytes.Clone(b.Bytes()), nil
}

// exec executes p's template with v into a buffer from bufPool.
func (p *part) exec(v *Vars) (*bytes.Buffer, error) {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	if err := p.tmpl.Execute(capped{b}, v); err != nil {
		putBuf(b)
		if v.User == nil && strings.Contains(err.Error(), "<.User") {
			return nil, p.errorf(".User needs the scenario's users: list")
		}
		return nil, p.errorf("%v", err)
	}
	return b, nil
}

// putBuf returns b to bufPool unless it grew large.
func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		bufPool.Put(b)
	}
}

// capped writes to a buffer up to maxPart bytes.
type capped struct{ b *bytes.Buffer }

func (c capped) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > maxPart {
		return 0, fmt.Errorf("value longer than %d bytes", maxPart)
	}
	return c.b.Write(p)
}

// A partError reports a part that failed to build.
type partError struct {
	p   *part
	msg string
}

func (e *partError) Error() string { return e.p.name + ": " + e.msg }

// errorf returns a *partError for p.
func (p *part) errorf(format string, args ...any) error {
	return &partError{p, fmt.Sprintf(format, args...)}
}

// as makes req user u's: with u's client certificate, its connections
// are u's own (dialKey).
func (req *Request) as(u *User) {
	if u == nil || u.cert == nil {
		return
	}
	req.user = u
	if req.key != "" {
		req.key = dialKey(req)
	}
}

// clientCerts reports whether a user of s has a client certificate.
func (s *Scenario) clientCerts() bool {
	return slices.ContainsFunc(s.users.list, func(u User) bool { return u.cert != nil })
}

// plainHTTP reports whether every step's URL is http, templated or not,
// so that every request of the scenario goes over plain TCP.
func (s *Scenario) plainHTTP() bool {
	for _, st := range s.steps {
		if st.u != nil && st.u.Scheme != "http" ||
			st.u == nil && !strings.HasPrefix(strings.ToLower(st.url.text), "http://") {
			return false
		}
	}
	return len(s.steps) > 0
}
