package yamlfile

import (
	"slices"
	"strconv"
	"strings"
)

// MaxProblems is how many problems of one file an error lists; the others
// are counted ("and 3 more problems").
const MaxProblems = 20

// Problems is the error of a file with more than one problem: each of
// them, by line, then how many more were found. Error writes one per line.
type Problems struct {
	File string  // the file the problems are in
	List []error // at most MaxProblems, by line
	More int     // problems found beyond List
}

// Error lists the problems, one per line.
func (p *Problems) Error() string {
	var b strings.Builder
	for i, e := range p.List {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	if p.More > 0 {
		b.WriteString("\n" + p.File + ": and " + strconv.Itoa(p.More) + " more problems")
	}
	return b.String()
}

// Unwrap returns the problems listed, for errors.Is and errors.As.
func (p *Problems) Unwrap() []error { return p.List }

// problem is one error found in a file, with the file's line it sorts by:
// its own, or that of the field naming the file it was found in.
type problem struct {
	line int
	err  error
}

// problems collects the errors of one file.
type problems struct {
	file string
	list []problem
	more int // problems of other files left out of their errors
}

// add records err, found at line, or each problem err lists.
func (p *problems) add(line int, err error) {
	if ps, ok := err.(*Problems); ok {
		for _, e := range ps.List {
			p.list = append(p.list, problem{line, e})
		}
		p.more += ps.More
		return
	}
	p.list = append(p.list, problem{line, err})
}

// err returns the problems recorded, by line and without repeats: nil for
// none, the error itself for one, or else a *Problems.
func (p *problems) err() error {
	list := slices.Clone(p.list)
	slices.SortStableFunc(list, func(a, b problem) int { return a.line - b.line })
	seen := map[string]bool{}
	out := &Problems{File: p.file, More: p.more}
	for _, q := range list {
		if msg := q.err.Error(); !seen[msg] {
			seen[msg] = true
			if len(out.List) < MaxProblems {
				out.List = append(out.List, q.err)
			} else {
				out.More++
			}
		}
	}
	switch {
	case len(out.List) == 0:
		return nil
	case len(out.List) == 1 && out.More == 0:
		return out.List[0]
	}
	return out
}
