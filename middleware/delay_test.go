package middleware

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDelay(t *testing.T) {
	const d = 50 * time.Millisecond
	tests := []struct {
		name         string
		user, header string // Delay's arguments
		reqHeader    string // the header the request sets
		reqUser      string // its value; "" sets no header
		methods      []string
		method       string // the request's; "" is GET
		want         time.Duration
	}{
		{name: "a method delayed", user: "slow", reqHeader: DefaultUserHeader, reqUser: "slow", methods: []string{"POST", "PUT"}, method: "PUT", want: d},
		{name: "a method not delayed", user: "slow", reqHeader: DefaultUserHeader, reqUser: "slow", methods: []string{"POST", "PUT"}, want: 0},
		{name: "named user", user: "slow", reqHeader: DefaultUserHeader, reqUser: "slow", want: d},
		{name: "other user", user: "slow", reqHeader: DefaultUserHeader, reqUser: "fast", want: 0},
		{name: "no user header", user: "slow", want: 0},
		{name: "anonymous delayed when user is empty", user: "", want: d},
		{name: "custom header", user: "slow", header: "X-User", reqHeader: "X-User", reqUser: "slow", want: d},
		{name: "custom header not canonical", user: "slow", header: "x-user", reqHeader: "X-User", reqUser: "slow", want: d},
		{name: "default header ignored under custom", user: "slow", header: "X-User", reqHeader: DefaultUserHeader, reqUser: "slow", want: 0},
		{name: "other user in custom header", user: "slow", header: "X-User", reqHeader: "X-User", reqUser: "fast", want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				called := false
				h := Delay(tc.user, tc.header, d, tc.methods...)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
				method := tc.method
				if method == "" {
					method = http.MethodGet
				}
				req := httptest.NewRequestWithContext(t.Context(), method, "http://127.0.0.1/", nil)
				if tc.reqUser != "" {
					req.Header.Set(tc.reqHeader, tc.reqUser)
				}
				start := time.Now()
				h.ServeHTTP(httptest.NewRecorder(), req)
				got := time.Since(start)
				if got != tc.want || !called {
					t.Errorf("held %v, handler called %v; want %v, true", got, called, tc.want)
				}
			})
		})
	}
}

func TestDelayZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		serve(t.Context(), Delay("slow", "", 0)(ok), "slow")
		if got := time.Since(start); got != 0 {
			t.Errorf("held %v; want 0", got)
		}
	})
}

func TestDelayContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		called := false
		h := Delay("slow", "", time.Second)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true }))
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		start := time.Now()
		rec := serve(ctx, h, "slow")
		type result struct {
			Code   int
			Held   time.Duration
			Called bool
		}
		got := result{rec.Code, time.Since(start), called}
		want := result{http.StatusServiceUnavailable, 10 * time.Millisecond, false}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}
