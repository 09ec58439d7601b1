package middleware

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChain(t *testing.T) {
	tests := []struct {
		name    string
		filters []string // names; "" stands for a nil Filter
		want    []string
	}{
		{"none", nil, []string{"handler"}},
		{"one", []string{"a"}, []string{"a>", "handler", "<a"}},
		{"outermost first", []string{"a", "b", "c"}, []string{"a>", "b>", "c>", "handler", "<c", "<b", "<a"}},
		{"nil skipped", []string{"a", "", "b"}, []string{"a>", "b>", "handler", "<b", "<a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var filters []Filter
			for _, name := range tc.filters {
				if name == "" {
					filters = append(filters, nil)
					continue
				}
				filters = append(filters, func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						got = append(got, name+">")
						next.ServeHTTP(w, r)
						got = append(got, "<"+name)
					})
				})
			}
			h := Chain(filters...)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
				got = append(got, "handler")
			}))
			serve(t.Context(), h, "")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("call order (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPassthrough(t *testing.T) {
	h := Passthrough()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-User-Seen", r.Header.Get(DefaultUserHeader))
		w.WriteHeader(http.StatusTeapot)
	}))
	rec := serve(t.Context(), h, "alice")
	got := [2]string{http.StatusText(rec.Code), rec.Header().Get("X-User-Seen")}
	want := [2]string{http.StatusText(http.StatusTeapot), "alice"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}
