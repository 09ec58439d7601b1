package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// lowerKind returns kind as kubectl writes it in kind/name.
func lowerKind(kind string) string { return strings.ToLower(kind) }

// pathString returns a field path as dotted YAML keys.
func pathString(path []string) string { return strings.Join(path, ".") }

var dnsBad = regexp.MustCompile(`[^a-z0-9-]+`)

// DNSName returns s as a DNS-1035 label of at most n characters (n from
// 10 to 63), as the names of Services and most other objects may be:
// lowercase letters, digits and '-', beginning with a letter and ending
// with a letter or digit. A name that had to change keeps a short hash of
// the original, so that two names never map to one.
func DNSName(s string, n int) string {
	n = min(max(n, 10), 63)
	v := strings.Trim(dnsBad.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if v != "" && (v[0] < 'a' || v[0] > 'z') {
		v = "x-" + v
	}
	if v == s && len(v) <= n {
		return v
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:4])
	if len(v) > n-9 {
		v = strings.TrimRight(v[:n-9], "-")
	}
	if v == "" {
		v = "x"
	}
	return v + "-" + h
}
