package experiment

import (
	"errors"
	"fmt"
	"slices"

	"github.com/latlab/latlab/yamlfile"
)

// A SyntaxError reports bad input in a spec, as FILE:LINE: FIELD: MSG.
type SyntaxError = yamlfile.SyntaxError

// problem is one error found in a spec, with the spec's line it sorts by:
// its own, or that of the field naming the file it was found in.
type problem struct {
	line int
	err  error
}

// problems collects the errors of one spec.
type problems struct {
	specFile string
	list     []problem
}

// add records err, found at line of the spec.
func (p *problems) add(line int, err error) {
	p.list = append(p.list, problem{line, err})
}

// addf records a *SyntaxError at line.
func (p *problems) addf(line int, field, format string, args ...any) {
	p.add(line, &SyntaxError{File: p.specFile, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// err returns every error recorded, by line and without repeats, joined;
// or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := slices.Clone(p.list)
	slices.SortStableFunc(list, func(a, b problem) int { return a.line - b.line })
	seen := map[string]bool{}
	var errs []error
	for _, q := range list {
		if msg := q.err.Error(); !seen[msg] {
			seen[msg] = true
			errs = append(errs, q.err)
		}
	}
	return errors.Join(errs...)
}
