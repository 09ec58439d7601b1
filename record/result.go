package record

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A Result is everything one run measured.
type Result struct {
	Start    time.Time     // wall-clock start; offsets below are from here
	Interval time.Duration // length of each interval
	Steps    []string      // scenario step names, if any

	// Set by the generator, not the recorder.
	Mode           string  // open, closed, ramp or sequential
	TargetRate     float64 // intended requests (or iterations) per second; 0 in closed loop
	Concurrency    int     // workers, or the cap on requests in flight in open loop
	Interrupted    bool    // the run was stopped before its end
	WarmupRequests int64   // requests sent while warming up, not recorded

	Sent         int64 // requests whose first byte was written
	Unsent       int64 // open loop: requests due before the end but never sent (the in-flight cap held them)
	Requests     int64 // completed: responses plus errors
	ErrorsTotal  int64 // requests that ended in an error, without a response
	Unsuccessful int64 // responses whose code is not a success
	BytesIn      int64
	BytesOut     int64
	Codes        map[int]int64     // status code → responses
	Errors       map[string]int64  // error class → requests
	ErrorExample map[string]string // error class → the first error of that class

	FirstIntended time.Duration // earliest intended send
	LastDone      time.Duration // latest completion

	Latency *hdr.Histogram // completion − intended send
	Service *hdr.Histogram // completion − actual send
	Lag     *hdr.Histogram // actual send − intended send
	Connect *hdr.Histogram // new connections: dial time
	TLS     *hdr.Histogram // new connections: TLS handshake time

	InFlightSum float64 // sum of in-flight samples, for the mean
	InFlightN   int64
	InFlightMax int64

	Intervals []Interval
	StepStats []StepStats // per scenario step, when there are several

	Raw        []Raw // the first Config.KeepRaw requests, by intended time
	RawDropped int64 // requests past the cap, not kept raw

	seen bool // FirstIntended holds a sample's time
}

// Duration returns the span from the first intended send to the last
// completion.
func (r *Result) Duration() time.Duration {
	if r.LastDone <= r.FirstIntended {
		return 0
	}
	return r.LastDone - r.FirstIntended
}

// Successes returns the responses whose code counts as success.
func (r *Result) Successes() int64 { return r.Requests - r.ErrorsTotal - r.Unsuccessful }

// InFlightMean returns the mean number of requests in flight.
func (r *Result) InFlightMean() float64 {
	if r.InFlightN == 0 {
		return 0
	}
	return r.InFlightSum / float64(r.InFlightN)
}

func (r *Result) addInterval(in Interval, c *counters) {
	r.Intervals = append(r.Intervals, in)
	r.Latency.Merge(c.latency)
	r.Service.Merge(c.service)
	r.Lag.Merge(c.lag)
	r.Requests += c.completed
	r.ErrorsTotal += c.errors
	r.Unsuccessful += c.unsuccessful
	r.BytesIn += c.bytesIn
	r.BytesOut += c.bytesOut
	for k, v := range c.codes {
		r.Codes[k] += v
	}
	for cl, v := range c.classes {
		if v > 0 {
			r.Errors[ErrorClass(cl).String()] += v
		}
	}
	if c.any {
		if !r.seen || c.firstIntended < r.FirstIntended {
			r.FirstIntended = c.firstIntended
		}
		r.seen = true
		if c.lastDone > r.LastDone {
			r.LastDone = c.lastDone
		}
	}
	if in.InFlightMax > r.InFlightMax {
		r.InFlightMax = in.InFlightMax
	}
}

// An Interval is one slice of the per-interval series.
type Interval struct {
	Start, End   time.Duration // offsets from the run's start
	Sent         int64
	Completed    int64
	Errors       int64
	Unsuccessful int64
	InFlightMean float64
	InFlightMax  int64
	Latency      *hdr.PackedHistogram
	Service      *hdr.PackedHistogram
}

// StepStats is what one scenario step measured over the whole run.
type StepStats struct {
	Name         string
	Requests     int64
	ErrorsTotal  int64
	Unsuccessful int64
	Codes        map[int]int64
	Errors       map[string]int64
	Latency      *hdr.Histogram
	Service      *hdr.Histogram
}
