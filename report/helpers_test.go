package report

import (
	"strings"
	"testing"
)

// checkText fails t for each of want that text lacks and each of not that
// it holds.
func checkText(t *testing.T, text string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("lacks %q:\n%s", w, text)
		}
	}
	for _, w := range not {
		if strings.Contains(text, w) {
			t.Errorf("has %q:\n%s", w, text)
		}
	}
}
