package middleware

import (
	"net/http"
	"slices"
	"time"
)

// Delay returns a Filter that holds every request from user for d before
// passing it on; requests from anyone else pass at once. The user is the
// first value of the request header named header ("" means
// DefaultUserHeader, X-Remote-User); a request without that header has user
// "", so Delay("", ...) delays anonymous requests. A d ≤ 0 delays nothing.
//
// Given methods, it holds only requests of those methods (an admission
// webhook, say, sees only the mutating ones: POST, PUT, PATCH, DELETE).
//
// It is the artificial delay adder of the kube-apiserver filter-latency
// study: a way to hold many requests in flight on a small machine. If the
// request's context ends while it is held, Delay answers 503 Service
// Unavailable and does not call the next handler.
func Delay(user, header string, d time.Duration, methods ...string) Filter {
	key := headerKey(header)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if d > 0 && userOf(r, key) == user && (len(methods) == 0 || slices.Contains(methods, r.Method)) {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-r.Context().Done():
					t.Stop()
					http.Error(w, "request ended while delayed", http.StatusServiceUnavailable)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}
