package spec

import (
	"net/url"

	"github.com/latlab/latlab/load"
)

// source returns l's requests, sent to base: those of its targets or
// scenario file with base's scheme and host, or one request to base with
// l's path, method, headers and body.
func (l *Load) source(base *url.URL) load.Source {
	p := l.Settings().Inputs()
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
	return load.Static{l.Settings().Request(base)}
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
