package yamlfile

import (
	"strings"
)

// UnknownField is the message for key, a field of a mapping whose fields
// are known: "unknown field", and then the known field closest to key by
// edit distance when one is close enough to be a typo ("unknown field; did
// you mean runs?" for rnus), or else the known fields when there are few
// enough to read at a glance.
func UnknownField(key string, known ...string) string {
	const msg = "unknown field"
	if c := Closest(key, known); c != "" {
		return msg + "; did you mean " + c + "?"
	}
	if len(known) > 0 && len(known) <= 8 {
		return msg + "; expected " + strings.Join(known, ", ")
	}
	return msg
}

// Closest returns the string of known nearest to s by edit distance
// (insertions, deletions, substitutions and swaps of two neighbours, case
// ignored), the first in known on a tie, or "" when none is within
// max(1, len(s)/3) edits, beyond which a suggestion would be a guess.
func Closest(s string, known []string) string {
	limit := max(1, len([]rune(s))/3)
	best, bestD := "", limit+1
	ls := strings.ToLower(s)
	for _, k := range known {
		if d := distance(ls, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, substitutions and transpositions of
// adjacent characters that turn one into the other.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
