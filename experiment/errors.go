package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A SyntaxError reports bad input in a spec: where it is and what is wrong.
// A zero Line means the file as a whole; an empty Field means the line as a
// whole.
type SyntaxError struct {
	File  string // name of the file, as given to the parser
	Line  int    // 1-based line number, or 0
	Field string // what was being read, such as "variants[1].load.rates"
	Msg   string // what is wrong
}

// Error formats e as FILE:LINE: FIELD: MSG, leaving out the line when it is
// 0 and the field when it is empty.
func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

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
