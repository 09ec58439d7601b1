package record

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Summary is the JSON form of a Result. Its keys are a contract: keys may be
// added, never renamed. Rates are per second and times are in seconds; a
// percentile read from too few samples to exist is null.
type Summary struct {
	Mode           string            `json:"mode,omitempty"`
	TargetRate     float64           `json:"target_rate"`
	Concurrency    int               `json:"concurrency,omitempty"`
	Sent           int64             `json:"sent"`
	Unsent         int64             `json:"unsent"`
	Retries        int64             `json:"retries,omitempty"` // sends again on a new connection: see Result.Retries
	Requests       int64             `json:"requests"`
	DurationSec    float64           `json:"duration_seconds"`
	Rate           float64           `json:"rate"`
	Throughput     float64           `json:"throughput"`
	SuccessRatio   float64           `json:"success_ratio"`
	BytesIn        int64             `json:"bytes_in_total"`
	BytesOut       int64             `json:"bytes_out_total"`
	BytesInRate    float64           `json:"bytes_in_per_second"`         // over the window of throughput
	BytesOutRate   float64           `json:"bytes_out_per_second"`        // likewise
	MessagesSent   int64             `json:"messages_sent,omitempty"`     // gRPC messages, of every call
	MessagesRecv   int64             `json:"messages_received,omitempty"` // likewise
	MessagesInRate float64           `json:"messages_received_per_second,omitempty"`
	StatusCodes    map[string]int64  `json:"status_codes"`
	Errors         map[string]int64  `json:"errors"`
	ErrorExamples  map[string]string `json:"error_examples,omitempty"`
	Latency        Dist              `json:"latency_seconds"`
	ServiceTime    Dist              `json:"service_time_seconds"`
	Lag            Dist              `json:"lag_seconds"`
	Connect        Dist              `json:"connect_seconds"`
	TLSHandshake   Dist              `json:"tls_handshake_seconds"`
	Wait           Dist              `json:"wait_seconds"`                // last request byte written → first response byte
	Read           Dist              `json:"read_seconds"`                // first response byte → last
	ReplyGap       *Dist             `json:"reply_gap_seconds,omitempty"` // a gRPC server stream's reply → its next reply; absent without one
	InFlight       InFlight          `json:"in_flight"`
	Interrupted    bool              `json:"interrupted"`
	WarmupRequests int64             `json:"warmup_requests"`
	Pool           int64             `json:"pool,omitempty"`              // connections the event loops opened before the load; connect_seconds counts those opened during it
	Threads        int               `json:"threads,omitempty"`           // event loops (threads) the load ran on; absent on goroutines (HTTP/2, TLS, net/http)
	HoldFrom       float64           `json:"hold_from_seconds,omitempty"` // ramp: when its last workers were due, from the start; the load holds after it
	Intervals      []IntervalJSON    `json:"intervals"`
	Steps          []StepJSON        `json:"steps"`
}

// Dist summarises one histogram in seconds. Count is the number of samples;
// the other fields are null when there are too few samples for them.
type Dist struct {
	Count int64    `json:"count"`
	Min   *float64 `json:"min"`
	Mean  *float64 `json:"mean"`
	Stdev *float64 `json:"stdev"` // standard deviation
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P95   *float64 `json:"p95"`
	P99   *float64 `json:"p99"`
	P999  *float64 `json:"p999"`
	Max   *float64 `json:"max"`
}

// InFlight is the mean and peak number of requests in flight.
type InFlight struct {
	Mean float64 `json:"mean"`
	Max  int64   `json:"max"`
}

// IntervalJSON is one interval of the series.
type IntervalJSON struct {
	StartSec     float64  `json:"start_seconds"`
	EndSec       float64  `json:"end_seconds"`
	Sent         int64    `json:"sent"`
	Completed    int64    `json:"completed"`
	Errors       int64    `json:"errors"`
	Unsuccessful int64    `json:"unsuccessful"`
	InFlight     InFlight `json:"in_flight"`
	Latency      Dist     `json:"latency_seconds"`
}

// StepJSON is what one scenario step measured.
type StepJSON struct {
	Name         string           `json:"name"`
	Requests     int64            `json:"requests"`
	SuccessRatio float64          `json:"success_ratio"`
	StatusCodes  map[string]int64 `json:"status_codes"`
	Errors       map[string]int64 `json:"errors"`
	Latency      Dist             `json:"latency_seconds"`
	ServiceTime  Dist             `json:"service_time_seconds"`
}

// HistogramView is what a summary reads of a histogram; dense and packed
// HdrHistograms both have it.
type HistogramView interface {
	ValueAtPercentile(float64) int64
	TotalCount() int64
	Min() int64
	Max() int64
	Mean() float64
	StdDev() float64
}

var (
	_ HistogramView = (*hdr.Histogram)(nil)
	_ HistogramView = (*hdr.PackedHistogram)(nil)
)

func secs(d time.Duration) *float64 { v := d.Seconds(); return &v }

// NewDist summarises h.
func NewDist(h HistogramView) Dist {
	d := Dist{Count: h.TotalCount()}
	if d.Count == 0 {
		return d
	}
	d.Min = secs(time.Duration(h.Min()))
	d.Max = secs(time.Duration(h.Max()))
	d.Mean = secs(time.Duration(h.Mean()))
	d.Stdev = secs(time.Duration(h.StdDev()))
	for _, p := range []struct {
		q   float64
		dst **float64
	}{{0.5, &d.P50}, {0.9, &d.P90}, {0.95, &d.P95}, {0.99, &d.P99}, {0.999, &d.P999}} {
		if v, ok := Quantile(h, p.q); ok {
			*p.dst = secs(v)
		}
	}
	return d
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func codeKeys(m map[int]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[CodeName(k)] = v
	}
	return out
}

// Summarize turns a Result into its JSON form. It fails only on an
// interval whose kept histogram does not decode.
func Summarize(r *Result) (Summary, error) {
	d := r.Duration().Seconds()
	s := Summary{
		Mode:           r.Mode,
		Concurrency:    r.Concurrency,
		WarmupRequests: r.WarmupRequests,
		Pool:           r.Pool,
		Threads:        r.Threads,
		HoldFrom:       r.HoldFrom.Seconds(),
		ErrorExamples:  r.ErrorExample,
		TargetRate:     r.TargetRate,
		Sent:           r.Sent,
		Unsent:         r.Unsent,
		Retries:        r.Retries,
		Requests:       r.Requests,
		DurationSec:    d,
		SuccessRatio:   ratio(r.Successes(), r.Requests),
		BytesIn:        r.BytesIn,
		BytesOut:       r.BytesOut,
		MessagesSent:   r.MessagesOut,
		MessagesRecv:   r.MessagesIn,
		StatusCodes:    codeKeys(r.Codes),
		Errors:         r.Errors,
		Latency:        NewDist(r.Latency),
		ServiceTime:    NewDist(r.Service),
		Lag:            NewDist(r.Lag),
		InFlight:       InFlight{Mean: r.InFlightMean(), Max: r.InFlightMax},
		Interrupted:    r.Interrupted,
	}
	if r.Connect != nil {
		s.Connect = NewDist(r.Connect)
	}
	if r.TLS != nil {
		s.TLSHandshake = NewDist(r.TLS)
	}
	if r.Wait != nil {
		s.Wait = NewDist(r.Wait)
	}
	if r.Read != nil {
		s.Read = NewDist(r.Read)
	}
	if r.ReplyGap != nil {
		d := NewDist(r.ReplyGap)
		s.ReplyGap = &d
	}
	s.Rate = r.SendRate()
	s.Throughput = r.Throughput()
	if w := r.Window(); w > 0 {
		s.BytesInRate = float64(r.BytesIn) / w.Seconds()
		s.BytesOutRate = float64(r.BytesOut) / w.Seconds()
		s.MessagesInRate = float64(r.MessagesIn) / w.Seconds()
	}
	var err error
	if s.Intervals, err = intervalsJSON(r.Intervals); err != nil {
		return s, err
	}
	s.Steps = stepsJSON(r.StepStats)
	return s, nil
}

// intervalsJSON returns the JSON form of ins, never nil.
func intervalsJSON(ins []Interval) ([]IntervalJSON, error) {
	out := []IntervalJSON{}
	for i, in := range ins {
		lat, err := in.Latency.Histogram()
		if err != nil {
			return out, fmt.Errorf("interval %d latency: %w", i, err)
		}
		out = append(out, IntervalJSON{
			StartSec:     in.Start.Seconds(),
			EndSec:       in.End.Seconds(),
			Sent:         in.Sent,
			Completed:    in.Completed,
			Errors:       in.Errors,
			Unsuccessful: in.Unsuccessful,
			InFlight:     InFlight{Mean: in.InFlightMean, Max: in.InFlightMax},
			Latency:      NewDist(lat),
		})
	}
	return out, nil
}

// stepsJSON returns the JSON form of sts, never nil.
func stepsJSON(sts []StepStats) []StepJSON {
	out := []StepJSON{}
	for _, st := range sts {
		out = append(out, StepJSON{
			Name:         st.Name,
			Requests:     st.Requests,
			SuccessRatio: ratio(st.Requests-st.ErrorsTotal-st.Unsuccessful, st.Requests),
			StatusCodes:  codeKeys(st.Codes),
			Errors:       st.Errors,
			Latency:      NewDist(st.Latency),
			ServiceTime:  NewDist(st.Service),
		})
	}
	return out
}

// WriteJSON writes s as one indented JSON object.
func (s Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
