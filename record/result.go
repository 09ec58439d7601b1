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
	WarmupRequests int64   // requests the warm-up completed, counted in no other figure
	Pool           int64   // connections the event loops opened before the load started
	Threads        int     // event loops (threads) the load ran on; 0 on goroutines
	// HoldFrom is, for a ramp, when its last workers were due to start,
	// an offset from Start: the load is constant after it. 0 otherwise.
	HoldFrom time.Duration

	Sent         int64 // requests whose first byte was written
	Unsent       int64 // open loop: requests due before the end but never sent (the in-flight cap held them, or the generator was behind)
	Retries      int64 // sends again on a new connection, of requests whose kept-alive one the server had closed
	Requests     int64 // completed: responses plus errors
	ErrorsTotal  int64 // requests that ended in an error, without a response
	Unsuccessful int64 // responses whose code is not a success
	BytesIn      int64
	BytesOut     int64
	MessagesOut  int64             // gRPC messages sent, of every call; 0 for HTTP
	MessagesIn   int64             // gRPC messages received
	Codes        map[int]int64     // status code → responses
	Errors       map[string]int64  // error class → requests
	ErrorExample map[string]string // error class → the first error of that class

	FirstIntended time.Duration // earliest intended send
	LastSent      time.Duration // latest actual send of a completed request
	LastDone      time.Duration // latest completion

	Latency *hdr.Histogram // completion − intended send
	Service *hdr.Histogram // completion − actual send
	Lag     *hdr.Histogram // actual send − intended send
	Connect *hdr.Histogram // new connections: dial time
	TLS     *hdr.Histogram // new connections: TLS handshake time
	Wait    *hdr.Histogram // last request byte written → first response byte read
	Read    *hdr.Histogram // first response byte → last response byte read
	// ReplyGap holds the times between a gRPC server stream's consecutive
	// replies; nil when no call had two.
	ReplyGap *hdr.Histogram

	// InFlightMax is the peak number of requests in flight. Merged from
	// several shards' results, it is the sum of their peaks: an upper
	// bound (see Merge).
	InFlightMax int64

	Intervals []Interval
	StepStats []StepStats // per scenario step, when there are several

	Raw        []Raw // the first Config.KeepRaw requests to complete, sorted by intended time
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

// SendRate returns the requests sent per second. In the open loop the
// schedule defines the window: n requests due 1/rate apart span (n−1)/rate
// from the first intended send to the last actual one, so the rate is
// (n−1) over that span, and a generator that fell behind shows as a lower
// rate. A run of 10 requests at 10/s is 10/s, not 10 over the 0.9 s
// between its first and last request. Other modes have no schedule: the
// rate is the sends over Duration, as wrk counts requests per second.
func (r *Result) SendRate() float64 {
	if w := r.sendWindow(); w > 0 {
		return float64(r.Sent) / w.Seconds()
	}
	return 0
}

// Throughput returns the successful responses per second, over the longer
// of the send window (see SendRate) and Duration: a target that keeps up
// answers at the rate requests were sent, one that fell behind at the rate
// it got through them.
func (r *Result) Throughput() float64 {
	if w := r.Window(); w > 0 {
		return float64(r.Successes()) / w.Seconds()
	}
	return 0
}

// Window returns the span that Throughput and the transfer rates divide
// by: the longer of the send window (see SendRate) and Duration.
func (r *Result) Window() time.Duration { return max(r.sendWindow(), r.Duration()) }

// sendWindow is the time the sends took: in the open loop the span from the
// first intended send to the last actual one, stretched by one mean gap
// (n/(n−1)); otherwise Duration.
func (r *Result) sendWindow() time.Duration {
	n := r.Requests
	span := r.LastSent - r.FirstIntended
	if r.Mode != "open" || n < 2 || span <= 0 {
		return r.Duration()
	}
	return time.Duration(float64(span) * float64(n) / float64(n-1))
}

// Successes returns the responses whose code counts as success.
func (r *Result) Successes() int64 { return r.Requests - r.ErrorsTotal - r.Unsuccessful }

// InFlightMean returns the time-weighted mean number of requests in flight
// over the run: the time requests spent in flight divided by the run's
// span (Little's law), from the intervals' own means.
func (r *Result) InFlightMean() float64 {
	var area, span float64
	for _, in := range r.Intervals {
		d := (in.End - in.Start).Seconds()
		area += in.InFlightMean * d
		span += d
	}
	if span <= 0 {
		return 0
	}
	return area / span
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
	r.MessagesOut += c.msgsOut
	r.MessagesIn += c.msgsIn
	addOutcomes(r.Codes, r.Errors, c.codes, &c.classes)
	if c.any {
		if !r.seen || c.firstIntended < r.FirstIntended {
			r.FirstIntended = c.firstIntended
		}
		r.seen = true
		r.LastSent = max(r.LastSent, c.lastSent)
		r.LastDone = max(r.LastDone, c.lastDone)
	}
	if in.InFlightMax > r.InFlightMax {
		r.InFlightMax = in.InFlightMax
	}
}

// addOutcomes adds the counts of status codes and of error classes, a
// recorder's, to codes and to errs, the result's, which name each class.
func addOutcomes(codes map[int]int64, errs map[string]int64, fromCodes map[int]int64, fromClasses *[numClasses]int64) {
	for k, v := range fromCodes {
		codes[k] += v
	}
	for cl, v := range fromClasses {
		if v > 0 {
			errs[ErrorClass(cl).String()] += v
		}
	}
}

// An Interval is one slice of the per-interval series.
type Interval struct {
	Start, End   time.Duration // offsets from the run's start
	Sent         int64
	Completed    int64
	Errors       int64
	Unsuccessful int64
	InFlightMean float64 // time-weighted: time requests spent in flight within the interval, over its length
	InFlightMax  int64   // peak requests in flight within the interval; merged, the sum of the shards' peaks, an upper bound
	Latency      Kept    // completion − intended send, of the requests completed within the interval
	Service      Kept    // completion − actual send
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
