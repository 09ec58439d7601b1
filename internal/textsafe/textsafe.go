package textsafe

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every control character — C0, tab and newline
// among them, DEL and C1 — written as a Go string literal writes it
// (\t, \n, \x1b, \x7f, \u009b), and every byte that is not part of UTF-8
// as \xNN. Everything else is left as it is, backslashes too. It returns
// s itself when there is nothing to escape.
func Escape(s string) string { return escape(s, false) }

// Layout is Escape but for newlines and tabs, which it keeps: for a whole
// text whose lines and columns they make.
func Layout(s string) string { return escape(s, true) }

// NewWriter returns a writer that writes to w what it is given, with
// Layout applied. Each Write is escaped by itself, so a character that
// one Write splits from the next is escaped as bytes that are not UTF-8:
// give it whole texts or lines, as fmt and text/tabwriter do.
func NewWriter(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

// A Sticky writer writes to its writer until a write fails, then nothing
// more: a text written in many pieces is checked once, by Err.
type Sticky struct {
	w   io.Writer
	err error
}

// NewSticky returns a Sticky writer to w.
func NewSticky(w io.Writer) *Sticky { return &Sticky{w: w} }

// Write writes p to the writer, or returns the error of an earlier Write.
func (s *Sticky) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// Err returns the first error of a Write, nil if none failed.
func (s *Sticky) Err() error { return s.err }

func (w writer) Write(p []byte) (int, error) {
	s := string(p)
	if e := Layout(s); len(e) != len(s) {
		if _, err := io.WriteString(w.w, e); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.w.Write(p)
}

// escape escapes s's control characters, but newlines and tabs when
// layout is set.
func escape(s string, layout bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size, layout) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&15, 16))
		case unsafe(r, size, layout):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafe says whether the rune r, size bytes of UTF-8, is to be escaped.
func unsafe(r rune, size int, layout bool) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true // not UTF-8: a terminal may read a lone 0x9b as CSI
	case layout && (r == '\n' || r == '\t'):
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// OrDash is s escaped for a terminal, or "-" for none: a cell of a text
// table.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return Escape(s)
}
