package yamlfile

import (
	"regexp"
	"strconv"
	"strings"
)

// A SyntaxError reports bad input in a file: where it is and what was
// expected. A zero Line means the file as a whole; an empty Field means the
// line as a whole.
type SyntaxError struct {
	File  string // name of the file, as given to the parser
	Line  int    // 1-based line number, or 0
	Field string // what was being read, such as "services[1].script[0].busywork"
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

// Lines returns the number of the last line of data, breaking lines where
// YAML does (CR, LF, CRLF, NEL, LS and PS), so that a line number the YAML
// parser reports past the end can be brought back into the file.
func Lines(data []byte) int {
	n := 1
	for s := string(data); s != ""; {
		w := 0
		for _, br := range []string{"\r\n", "\r", "\n", "\u0085", "\u2028", "\u2029"} {
			if strings.HasPrefix(s, br) {
				w = len(br)
				break
			}
		}
		if w == 0 {
			s = s[1:]
			continue
		}
		if s = s[w:]; s != "" {
			n++
		}
	}
	return n
}

// parserLine matches the line number of a YAML parser error.
var parserLine = regexp.MustCompile(`^line (\d+): `)

// ParseError turns an error of the YAML parser on file into a *SyntaxError,
// its line (at most lines) moved out of the message.
func ParseError(file string, lines int, err error) *SyntaxError {
	e := &SyntaxError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := parserLine.FindStringSubmatch(e.Msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Line = min(e.Line, lines)
		e.Msg = e.Msg[len(m[0]):]
	}
	return e
}
