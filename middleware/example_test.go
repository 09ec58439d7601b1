package middleware_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/latlab/latlab/middleware"
)

// A server that delays user "slow", admits requests through a fair queue
// with two priority levels, and measures both filters.
func Example() {
	reg := prometheus.NewRegistry()
	m := middleware.NewMetrics(reg)
	fq, err := middleware.NewFairQueue(middleware.FairQueueConfig{
		Concurrency: 16,
		Queues:      16,
		HandSize:    4,
		QueueLength: 32,
		Levels: []middleware.Level{
			{Name: "system", Shares: 1, Users: []string{"admin"}},
			{Name: "workload", Shares: 3}, // everyone else
		},
	}, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	filters := middleware.Chain(
		middleware.Track("delay", m, middleware.Delay("slow", "", 10*time.Millisecond)),
		middleware.Track("fairqueue", m, fq.Filter()),
	)
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.Header.Get(middleware.DefaultUserHeader))
	})
	srv := httptest.NewServer(filters(app)) // on 127.0.0.1
	defer srv.Close()

	for _, user := range []string{"admin", "alice", "slow"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set(middleware.DefaultUserHeader, user)
		resp, err := srv.Client().Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	printCounts(reg)

	// The delay filter's B−A includes the 10 ms it held "slow".
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if mf.GetName() == "latlab_request_filter_duration_seconds" && m.GetLabel()[0].GetValue() == "delay" {
				fmt.Println("delay filter held requests ≥ 10 ms in all:", m.GetHistogram().GetSampleSum() >= 0.010)
			}
		}
	}
	// Output:
	// 200 hello admin
	// 200 hello alice
	// 200 hello slow
	// latlab_flowcontrol_request_wait_duration_seconds{flow="admin",priority_level="system"} 1
	// latlab_flowcontrol_request_wait_duration_seconds{flow="alice",priority_level="workload"} 1
	// latlab_flowcontrol_request_wait_duration_seconds{flow="slow",priority_level="workload"} 1
	// latlab_request_filter_duration_seconds{filter="delay"} 3
	// latlab_request_filter_duration_seconds{filter="fairqueue"} 3
	// delay filter held requests ≥ 10 ms in all: true
}

// Track measures an authentication filter. The request it refuses is counted
// as rejected, not observed.
func ExampleTrack() {
	reg := prometheus.NewRegistry()
	m := middleware.NewMetrics(reg)
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "" {
				http.Error(w, "who are you?", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := middleware.Track("auth", m, auth)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, token := range []string{"Bearer a", "", "Bearer b"} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if token != "" {
			req.Header.Set("Authorization", token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	printCounts(reg)
	// Output:
	// 200
	// 401
	// 200
	// latlab_request_filter_duration_seconds{filter="auth"} 2
	// latlab_request_filter_rejected_total{filter="auth"} 1
}

func ExampleNewFairQueue() {
	_, err := middleware.NewFairQueue(middleware.FairQueueConfig{Queues: 4, HandSize: 5, Levels: []middleware.Level{{Name: ""}}}, nil)
	fmt.Println(err)

	fq, err := middleware.NewFairQueue(middleware.FairQueueConfig{Concurrency: 2, Queues: 8, HandSize: 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Hands are deterministic: light has queue 1 to itself.
	fmt.Println("heavy", fq.Hand("heavy"), "light", fq.Hand("light"))

	h := fq.Filter()(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(middleware.DefaultUserHeader, "light")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code)
	// Output:
	// fair queue config: HandSize: 5 is more than Queues (4)
	// fair queue config: Levels[0].Name: empty
	// heavy [5 2] light [1 5]
	// 200
}

// printCounts prints the number of observations of each histogram series and
// the value of each counter series that is not zero, sorted.
func printCounts(g prometheus.Gatherer) {
	mfs, err := g.Gather() // sorted by name, series by labels
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels string
			for i, lp := range m.GetLabel() {
				if i > 0 {
					labels += ","
				}
				labels += fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue())
			}
			var v float64
			switch {
			case m.GetHistogram() != nil:
				v = float64(m.GetHistogram().GetSampleCount())
			case m.GetCounter() != nil:
				v = m.GetCounter().GetValue()
			}
			if v != 0 {
				fmt.Printf("%s{%s} %v\n", mf.GetName(), labels, v)
			}
		}
	}
}
