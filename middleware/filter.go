package middleware

import "net/http"

// DefaultUserHeader is the request header that names the user when a filter
// is given an empty header name.
const DefaultUserHeader = "X-Remote-User"

// A Filter wraps a handler: it is what a server puts in front of its own.
// The handler a Filter returns must be safe for concurrent use if next is.
type Filter func(next http.Handler) http.Handler

// Chain returns one Filter made of filters, outermost first: a request meets
// filters[0] first and the handler Chain wraps last. Nil filters are skipped;
// Chain() returns next unchanged.
func Chain(filters ...Filter) Filter {
	fs := make([]Filter, 0, len(filters))
	for _, f := range filters {
		if f != nil {
			fs = append(fs, f)
		}
	}
	return func(next http.Handler) http.Handler {
		for i := len(fs) - 1; i >= 0; i-- {
			next = fs[i](next)
		}
		return next
	}
}

// Passthrough returns a Filter that does nothing but call the next handler.
// It is still a hop — one more handler frame, like any real filter — so it is
// the floor every other filter is compared to.
func Passthrough() Filter {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
		})
	}
}

// userOf returns the first value of the header with canonical name key, or "".
// Indexing the map with a key canonicalised once saves Header.Get's work on
// every request.
func userOf(r *http.Request, key string) string {
	if v := r.Header[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// headerKey returns the canonical form of header, DefaultUserHeader if empty.
func headerKey(header string) string {
	if header == "" {
		header = DefaultUserHeader
	}
	return http.CanonicalHeaderKey(header)
}
