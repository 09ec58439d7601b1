package main

import "strings"

// expand replaces each $(VAR) in s with lookup's value of VAR, as
// Kubernetes does in env values, commands and args: $$ is a literal $, a
// variable lookup does not know stays as written, and so does a $( with
// no closing parenthesis.
func expand(s string, lookup func(string) (string, bool)) string {
	var b strings.Builder
	checkpoint := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		b.WriteString(s[checkpoint:i])
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				break
			}
			name := s[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
			b.WriteByte(s[i+1])
			i++
		}
		checkpoint = i + 1
	}
	return b.String() + s[checkpoint:]
}
