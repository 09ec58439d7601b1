package textsafe

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want, layout string }{
		{"plain", "plain", "plain"},
		{"naïve 日本 ✓ \\x1b", "naïve 日本 ✓ \\x1b", "naïve 日本 ✓ \\x1b"},
		{"a\x1b]0;title\a", `a\x1b]0;title\a`, `a\x1b]0;title\a`},
		{"two\nlines\tand\r", `two\nlines\tand\r`, "two\nlines\tand\\r"},
		{"del\x7f c1\u009b[2J", `del\x7f c1\u009b[2J`, `del\x7f c1\u009b[2J`},
		{"raw \x9b[2J \xff", `raw \x9b[2J \xff`, `raw \x9b[2J \xff`},
		{"\x00", `\x00`, `\x00`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Layout(tt.in); got != tt.layout {
			t.Errorf("Layout(%q) = %q, want %q", tt.in, got, tt.layout)
		}
		var b bytes.Buffer
		if n, err := NewWriter(&b).Write([]byte(tt.in)); err != nil || n != len(tt.in) {
			t.Errorf("Write(%q) = %d, %v, want %d, nil", tt.in, n, err, len(tt.in))
		}
		if b.String() != tt.layout {
			t.Errorf("NewWriter wrote %q for %q, want %q", b.String(), tt.in, tt.layout)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b]0;title\a\n\t\u009b\xff日本")
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []string{Escape(s), Layout(s)} {
			for i, r := range e {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfffd && e[i:i+3] != "\uFFFD" {
					t.Fatalf("escaped %q holds %U at %d: %q", s, r, i, e)
				}
			}
		}
	})
}
