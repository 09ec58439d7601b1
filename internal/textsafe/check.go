package textsafe

import "unicode/utf8"

// Unsafe returns the first character of text a terminal could take as a
// control, as Layout would escape it, and its offset; -1 when there is
// none. Tests of text outputs assert with it.
func Unsafe(text string) (string, int) {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unsafe(r, size, true) {
			return text[i : i+size], i
		}
		i += size
	}
	return "", -1
}
