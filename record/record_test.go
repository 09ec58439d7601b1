package record

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

func TestParseCodeSet(t *testing.T) {
	tests := []struct {
		in      string
		has     []int
		hasNot  []int
		wantErr string
	}{
		{in: "200-299", has: []int{200, 250, 299}, hasNot: []int{199, 300, 404}},
		{in: "200, 304 ,404-404", has: []int{200, 304, 404}, hasNot: []int{201, 305}},
		{in: "", wantErr: "empty status code list"},
		{in: "99", wantErr: `"99" is not a status code`},
		{in: "300-200", wantErr: "runs backwards"},
		{in: "2xx", wantErr: `"2xx" is not a status code`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := ParseCodeSet(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.has {
				if !s.Has(c) {
					t.Errorf("missing %d", c)
				}
			}
			for _, c := range tt.hasNot {
				if s.Has(c) {
					t.Errorf("has %d", c)
				}
			}
		})
	}
}

func TestQuantileNeedsSamples(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 50; i++ {
		h.RecordValue(int64(i) * int64(time.Millisecond))
	}
	if _, ok := Quantile(h, 0.99); ok {
		t.Error("p99 from 50 samples: want n/a (needs 100)")
	}
	v, ok := Quantile(h, 0.5)
	if !ok || v < 24*time.Millisecond || v > 26*time.Millisecond {
		t.Errorf("p50 = %s, %v; want about 25ms", v, ok)
	}
	if !LowConfidence(50, 0.9) || LowConfidence(50, 0.5) {
		t.Error("p90 of 50 samples is low confidence (needs 100), p50 is not (needs 20)")
	}
	if _, ok := Quantile(NewHistogram(), 0.5); ok {
		t.Error("a quantile of nothing must be n/a")
	}
}

// TestRecorder feeds a known set of samples through a recorder and checks
// every total, the per-interval series and the step figures.
func TestRecorder(t *testing.T) {
	codes := DefaultSuccess()
	r := NewRecorder(time.Now(), Config{Interval: time.Hour, Steps: []string{"a", "b"}, Success: &codes})
	// 100 successes: latency 10ms, service 4ms, lag 6ms; then a 503, a reset.
	for i := 0; i < 100; i++ {
		r.Sent()
		r.Record(i, &Sample{Intended: 0, Sent: 6 * time.Millisecond, Done: 10 * time.Millisecond, Code: 200, BytesIn: 10, BytesOut: 5, Step: i % 2})
	}
	r.Sent()
	r.Record(1, &Sample{Done: time.Millisecond, Code: 503, Step: 1, Retries: 2})
	r.Sent()
	r.Record(2, &Sample{Done: 2 * time.Millisecond, Error: Reset, Err: errors.New("connection reset"), Step: 0})
	res := r.Stop()

	if res.Sent != 102 || res.Requests != 102 || res.ErrorsTotal != 1 || res.Unsuccessful != 1 || res.Successes() != 100 {
		t.Errorf("sent %d, requests %d, errors %d, unsuccessful %d, successes %d; want 102, 102, 1, 1, 100",
			res.Sent, res.Requests, res.ErrorsTotal, res.Unsuccessful, res.Successes())
	}
	if diff := cmp.Diff(map[int]int64{200: 100, 503: 1}, res.Codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"reset": 1}, res.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if res.ErrorExample["reset"] != "connection reset" {
		t.Errorf("error example %q", res.ErrorExample["reset"])
	}
	if sum, err := Summarize(res); err != nil || res.Retries != 2 || sum.Retries != 2 {
		t.Errorf("retries %d, summary's %d (%v); want 2", res.Retries, sum.Retries, err)
	}
	if res.BytesIn != 1000 || res.BytesOut != 500 {
		t.Errorf("bytes %d in, %d out; want 1000, 500", res.BytesIn, res.BytesOut)
	}
	if got := time.Duration(res.Service.ValueAtQuantile(50)); got < 3990*time.Microsecond || got > 4010*time.Microsecond {
		t.Errorf("service p50 %s, want 4ms", got)
	}
	if got := time.Duration(res.Lag.ValueAtQuantile(50)); got < 5990*time.Microsecond || got > 6010*time.Microsecond {
		t.Errorf("lag p50 %s, want 6ms", got)
	}
	if res.Duration() != 10*time.Millisecond {
		t.Errorf("duration %s, want 10ms (first intended to last done)", res.Duration())
	}
	if len(res.Intervals) != 1 || res.Intervals[0].Completed != 102 {
		t.Fatalf("intervals %+v, want one holding all 102", res.Intervals)
	}
	for _, k := range []Kept{res.Intervals[0].Latency, res.Intervals[0].Service} {
		if h, err := k.Histogram(); err != nil || h.TotalCount() != 102 {
			t.Errorf("the interval's histogram holds %v (%v), want 102 samples", h, err)
		}
	}
	if len(res.StepStats) != 2 {
		t.Fatalf("%d steps, want 2", len(res.StepStats))
	}
	a, b := res.StepStats[0], res.StepStats[1]
	if a.Requests != 51 || a.ErrorsTotal != 1 || b.Requests != 51 || b.Unsuccessful != 1 {
		t.Errorf("step a %d requests %d errors, b %d requests %d unsuccessful; want 51/1, 51/1", a.Requests, a.ErrorsTotal, b.Requests, b.Unsuccessful)
	}
}

func TestRecorderIntervals(t *testing.T) {
	r := NewRecorder(time.Now(), Config{Interval: 50 * time.Millisecond, SampleEvery: 5 * time.Millisecond})
	r.Start()
	for i := 0; i < 4; i++ {
		r.Sent()
		now := r.Since()
		r.Record(0, &Sample{Intended: now, Sent: now, Done: now + time.Millisecond, Code: 200})
		time.Sleep(60 * time.Millisecond)
	}
	res := r.Stop()
	var total int64
	for _, in := range res.Intervals {
		total += in.Completed
		if in.End <= in.Start {
			t.Errorf("interval %s–%s is empty", in.Start, in.End)
		}
	}
	if total != 4 || len(res.Intervals) < 4 {
		t.Errorf("%d intervals holding %d requests, want at least 4 holding 4", len(res.Intervals), total)
	}
}

func TestSummarizeNulls(t *testing.T) {
	r := NewRecorder(time.Now(), Config{})
	for i := 0; i < 20; i++ {
		r.Sent()
		r.Record(0, &Sample{Done: time.Millisecond, Code: 200})
	}
	s := summarize(t, r.Stop())
	if s.Latency.P50 == nil || s.Latency.P99 != nil || s.Latency.P999 != nil {
		t.Errorf("from 20 samples want p50 set and p99, p999 null; got %v %v %v", s.Latency.P50, s.Latency.P99, s.Latency.P999)
	}
	var buf bytes.Buffer
	if err := s.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"unsent": 0`) {
		t.Errorf("JSON lacks the unsent count:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), `"p99": null`) {
		t.Errorf("JSON does not say p99 is null:\n%s", buf.String())
	}
}

// TestHlogRoundTrip writes an interval log and reads it back with
// HdrHistogram's own reader.
func TestHlogRoundTrip(t *testing.T) {
	r := NewRecorder(time.Now(), Config{Interval: time.Hour})
	for i := 1; i <= 300; i++ {
		r.Sent()
		r.Record(i, &Sample{Done: time.Duration(i) * time.Microsecond, Code: 200})
	}
	res := r.Stop()
	var buf bytes.Buffer
	if err := WriteHlog(&buf, res); err != nil {
		t.Fatal(err)
	}
	lr := hdr.NewHistogramLogReader(&buf)
	var latency, service int64
	for {
		h, err := lr.NextIntervalHistogram()
		if errors.Is(err, io.EOF) || (err == nil && h == nil) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Tag() {
		case "latency":
			latency += h.TotalCount()
		case "service":
			service += h.TotalCount()
		}
	}
	if latency != 300 || service != 300 {
		t.Errorf("read back %d latency and %d service samples, want 300 each", latency, service)
	}
}

func TestKeepRaw(t *testing.T) {
	r := NewRecorder(time.Now(), Config{KeepRaw: 5000})
	for i := 6000; i > 0; i-- {
		r.Sent()
		r.Record(i, &Sample{Intended: time.Duration(i), Sent: time.Duration(i) + 1, Done: time.Duration(i) + 2, Code: 200, BytesIn: 7, Step: 0})
	}
	res := r.Stop()
	if len(res.Raw) != 5000 || res.RawDropped != 1000 {
		t.Fatalf("kept %d, dropped %d; want 5000 and 1000", len(res.Raw), res.RawDropped)
	}
	for i := 1; i < len(res.Raw); i++ {
		if res.Raw[i].Intended < res.Raw[i-1].Intended {
			t.Fatalf("raw samples out of order at %d", i)
		}
	}
	if got := res.Raw[0]; got.Code != 200 || got.BytesIn != 7 || got.Done-got.Intended != 2 {
		t.Errorf("first raw sample %+v", got)
	}
}
