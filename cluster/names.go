package cluster

import "strings"

// lowerKind returns kind as kubectl writes it in kind/name.
func lowerKind(kind string) string { return strings.ToLower(kind) }

// pathString returns a field path as dotted YAML keys.
func pathString(path []string) string { return strings.Join(path, ".") }
