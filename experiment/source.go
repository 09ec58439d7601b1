package experiment

import (
	"net/http"
	"net/url"

	"github.com/latlab/latlab/load"
)

// source returns l's requests, sent to base: those of its targets or
// scenario file with base's scheme and host, or one request to base with
// l's path, method, headers and body.
func (l *Load) source(base *url.URL) load.Source {
	p := l.settings().Inputs()
	switch {
	case p.Targets != nil:
		reqs := make(load.Static, len(p.Targets))
		for i, r := range p.Targets {
			reqs[i] = rebase(r, base)
		}
		return reqs
	case p.Scenario != nil:
		return rebased{p.Scenario, base}
	}
	u := *base
	if l.Path != "" {
		pu, err := url.Parse(l.Path) // checked when parsed
		if err == nil {
			u.Path, u.RawPath, u.RawQuery = pu.Path, pu.RawPath, pu.RawQuery
		}
	}
	req := &load.Request{Method: l.Method, URL: &u, Header: make(http.Header, len(l.Headers))}
	for k, v := range l.Headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header[k] = []string{v}
	}
	switch {
	case p.Body != nil:
		req.Body = p.Body
	case l.Body != "":
		req.Body = []byte(l.Body)
	}
	return load.Static{req}
}

// rebased is a Source whose requests go to base's scheme and host.
type rebased struct {
	src  load.Source
	base *url.URL
}

// Steps implements load.Source.
func (r rebased) Steps() []string { return r.src.Steps() }

// Request implements load.Source.
func (r rebased) Request(step int, v load.Vars) (*load.Request, error) {
	req, err := r.src.Request(step, v)
	if err != nil {
		return nil, err
	}
	return rebase(req, r.base), nil
}

// rebase returns a new request like req but sent to base's scheme and
// host. Header and Body are shared, as the load package allows.
func rebase(req *load.Request, base *url.URL) *load.Request {
	u := *req.URL
	u.Scheme, u.Host, u.User = base.Scheme, base.Host, nil
	return &load.Request{Method: req.Method, URL: &u, Header: req.Header, Body: req.Body, Host: req.Host, Step: req.Step}
}
