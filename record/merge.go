package record

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// MergeOptions says how Merge combines several generators' results. The
// zero value keeps every raw sample the shards kept.
type MergeOptions struct {
	// KeepRaw caps the raw samples the merged result keeps, shared among
	// the shards (see Merge); 0 keeps every one the shards kept.
	KeepRaw int64
}

// Merge adds up the results of one trial whose load N shards sent, each
// with its own Recorder, started together: it returns the Result one
// generator would have recorded, exactly where counts can be added and
// with a stated bound where they cannot. The shards are numbered by their
// place in shards, and Merge changes none of them; the merged result
// shares no memory with them. One result gives a deep copy of itself.
//
// Histograms are added bucket by bucket by HdrHistogram's own merging,
// never through percentiles: every histogram of the merged result, of the
// whole run, of a step or of an interval, holds in each bucket the sum of
// the shards' counts (CountsDiff compares two bucket by bucket). Counts,
// bytes, status codes and error classes are summed; so are the target
// rate, the concurrency, the warm-up's requests and the connection pool,
// each shard having run its own share. Interrupted is whether any shard
// was, ErrorExample takes each class's example from the first shard, by
// number, that has one.
//
// Time. The merged Start is the earliest shard's; a shard's Start after it
// is its offset, and the largest offset is the start spread. Offsets of
// the whole run (FirstIntended, LastSent, LastDone, HoldFrom) and of raw
// samples are moved by the shard's offset onto the merged Start, so they
// are exact. The per-interval series cannot be: a histogram cannot be
// re-sliced at other edges. Interval k of the merged series is the sum of
// every shard's own interval k, and its Start and End are theirs (the
// earliest start, the latest end): each shard's requests stay in the
// interval its own clock put them in, which on the merged time base lies
// up to the start spread later. So an interval's figures are those of a
// single generator's only up to the requests within the spread of its
// edges, and exactly those when the shards started at one instant; the
// totals over all intervals are exact whatever the spread. The caller
// measures the spread and bounds it; Merge refuses a shard whose Start is
// a whole interval or more after the earliest.
//
// In flight. The union's number of requests in flight is, at each
// instant, the sum of the shards'. An interval's InFlightMean, time in
// flight over the interval's length, is the sum of the shards' means
// (their times in flight over the merged length, where a last interval's
// lengths differ): exact when the shards started together, and otherwise
// off by the time in flight within the spread of the interval's edges,
// like every figure of the series. A peak of a sum is not the sum of the
// peaks: an interval's InFlightMax is the sum of the shards' peaks in
// it, an upper bound of the union's peak (equal to it for one shard), and
// the run's InFlightMax is the sum of the shards' run peaks, an upper
// bound at any spread. The largest InFlightMean of the merged intervals
// is a lower bound of the run's peak, to the same spread as the means.
//
// Raw samples. Up to opts.KeepRaw of the samples the shards kept are
// kept, shared fairly: a shard that kept fewer than an even share gives
// all it has and the rest is shared evenly among the others (water
// filling; the first shards by number take one more where it does not
// divide). Within a shard the samples kept are its first to complete, as
// a Recorder keeps its first requests to be recorded. Their offsets are
// moved onto the merged Start and the merged samples are sorted by
// intended send, as a Recorder sorts them. This differs from a single
// generator, which keeps the first requests to complete whichever shard
// they would have gone to: here each shard keeps its share, its first.
// RawDropped counts every request the shards recorded and the merged
// result does not keep raw.
//
// Merge refuses shards that cannot be added: no result, one whose
// Interval, Mode, Steps or step names differ from the first shard's, one
// whose whole-run or step histogram has another range or precision than
// the first shard's that has one, or one with an interval's histogram
// that does not decode or has another than latlab's (as DecodeResult
// refuses); its errors name the shard and the field.
func Merge(shards []*Result, opts MergeOptions) (*Result, error) {
	m, err := newMerger(shards)
	if err != nil {
		return nil, fmt.Errorf("merging results: %w", err)
	}
	if err := m.merge(opts); err != nil {
		return nil, fmt.Errorf("merging results: %w", err)
	}
	return m.out, nil
}

// A merger adds up shards' results into out.
type merger struct {
	shards  []*Result
	offsets []time.Duration // each shard's Start after the earliest
	out     *Result

	sum    *hdr.Histogram // an interval's histogram being added up
	packer packer         // keeps it
}

// newMerger checks that shards can be added and finds their offsets.
func newMerger(shards []*Result) (*merger, error) {
	if len(shards) == 0 {
		return nil, errors.New("no result")
	}
	first := shards[0]
	if first == nil {
		return nil, errors.New("shard 0: no result")
	}
	start := first.Start
	for i := 1; i < len(shards); i++ {
		r := shards[i]
		switch {
		case r == nil:
			return nil, fmt.Errorf("shard %d: no result", i)
		case r.Interval != first.Interval:
			return nil, fmt.Errorf("shard %d: Interval %s, shard 0's %s", i, r.Interval, first.Interval)
		case r.Mode != first.Mode:
			return nil, fmt.Errorf("shard %d: Mode %q, shard 0's %q", i, r.Mode, first.Mode)
		case !slices.Equal(r.Steps, first.Steps):
			return nil, fmt.Errorf("shard %d: Steps %q, shard 0's %q", i, r.Steps, first.Steps)
		case len(r.StepStats) != len(first.StepStats):
			return nil, fmt.Errorf("shard %d: StepStats of %d steps, shard 0's of %d", i, len(r.StepStats), len(first.StepStats))
		}
		for j := range r.StepStats {
			if a, b := r.StepStats[j].Name, first.StepStats[j].Name; a != b {
				return nil, fmt.Errorf("shard %d: StepStats[%d] named %q, shard 0's %q", i, j, a, b)
			}
		}
		if r.Start.Before(start) {
			start = r.Start
		}
	}
	m := &merger{shards: shards, offsets: make([]time.Duration, len(shards))}
	for i, r := range shards {
		d := r.Start.Sub(start)
		if d > 0 && d >= r.Interval {
			return nil, fmt.Errorf("shard %d: Start %s after the earliest shard's, not within one interval (%s)", i, d, r.Interval)
		}
		m.offsets[i] = d
	}
	m.out = &Result{Start: start, Interval: first.Interval, Steps: slices.Clone(first.Steps), Mode: first.Mode}
	return m, nil
}

func (m *merger) merge(opts MergeOptions) error {
	out := m.out
	m.scalars()
	for j, name := range histogramNames {
		h, err := addHistograms(m.shards, name, func(r *Result) *hdr.Histogram { return *r.histograms()[j] })
		if err != nil {
			return err
		}
		*out.histograms()[j] = h
	}
	if err := m.steps(); err != nil {
		return err
	}
	if err := m.intervals(); err != nil {
		return err
	}
	m.raw(opts.KeepRaw)
	return nil
}

// histogramNames names the whole-run histograms in the order
// Result.histograms returns them.
var histogramNames = [...]string{"Latency", "Service", "Lag", "Connect", "TLS", "Wait", "Read", "ReplyGap"}

// scalars adds up the figures that are not histograms, intervals or raw
// samples.
func (m *merger) scalars() {
	out := m.out
	for i, r := range m.shards {
		if i == 0 {
			out.TargetRate = r.TargetRate
		} else {
			out.TargetRate += r.TargetRate
		}
		out.Concurrency += r.Concurrency
		out.Interrupted = out.Interrupted || r.Interrupted
		out.WarmupRequests += r.WarmupRequests
		out.Pool += r.Pool
		out.Threads += r.Threads
		if r.HoldFrom != 0 { // 0 is no ramp's
			if v := m.offsets[i] + r.HoldFrom; out.HoldFrom == 0 || v > out.HoldFrom {
				out.HoldFrom = v
			}
		}
		out.Sent += r.Sent
		out.Unsent += r.Unsent
		out.Retries += r.Retries
		out.Requests += r.Requests
		out.ErrorsTotal += r.ErrorsTotal
		out.Unsuccessful += r.Unsuccessful
		out.BytesIn += r.BytesIn
		out.BytesOut += r.BytesOut
		out.MessagesOut += r.MessagesOut
		out.MessagesIn += r.MessagesIn
		out.Codes = addCounts(out.Codes, r.Codes)
		out.Errors = addCounts(out.Errors, r.Errors)
		if r.ErrorExample != nil && out.ErrorExample == nil {
			out.ErrorExample = map[string]string{}
		}
		for class, text := range r.ErrorExample {
			if _, ok := out.ErrorExample[class]; !ok {
				out.ErrorExample[class] = text
			}
		}
		if r.seen {
			d := m.offsets[i]
			first, sent, done := d+r.FirstIntended, d+r.LastSent, d+r.LastDone
			if out.seen {
				first, sent, done = min(first, out.FirstIntended), max(sent, out.LastSent), max(done, out.LastDone)
			}
			out.FirstIntended, out.LastSent, out.LastDone, out.seen = first, sent, done, true
		}
		out.InFlightMax += r.InFlightMax
	}
}

// addCounts adds src's counts to dst, which it allocates when src is the
// first map: nil only when every map added is nil.
func addCounts[K comparable](dst, src map[K]int64) map[K]int64 {
	if src == nil {
		return dst
	}
	if dst == nil {
		return maps.Clone(src)
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// addHistograms returns the sum of the histograms get reads from each
// shard: a nil one counts as empty, and the sum of none but nil ones is
// nil. The first shard's histogram, copied, takes the others' counts, so
// that it keeps its tag and times; name says which histogram it is in
// errors.
func addHistograms(shards []*Result, name string, get func(*Result) *hdr.Histogram) (*hdr.Histogram, error) {
	var sum *hdr.Histogram
	from := 0
	for i, r := range shards {
		h := get(r)
		switch {
		case h == nil:
			continue
		case sum == nil:
			sum, from = h.Clone(), i
			continue
		}
		if err := sameGeometry(h, sum); err != nil {
			return nil, fmt.Errorf("shard %d: %s histogram: %w of shard %d", i, name, err, from)
		}
		if dropped := sum.Merge(h); dropped != 0 {
			return nil, fmt.Errorf("shard %d: %s histogram: %d counts past the sum's", i, name, dropped)
		}
	}
	return sum, nil
}

// geometry is what a histogram's buckets depend on.
type geometry interface {
	LowestTrackableValue() int64
	HighestTrackableValue() int64
	SignificantFigures() int64
}

// sameGeometry returns an error unless h has want's range and precision.
func sameGeometry(h, want geometry) error {
	type geom struct{ lo, hi, digits int64 }
	a := geom{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
	b := geom{want.LowestTrackableValue(), want.HighestTrackableValue(), want.SignificantFigures()}
	if a != b {
		return fmt.Errorf("range %d to %d ns at %d significant digits, not the %d to %d at %d", a.lo, a.hi, a.digits, b.lo, b.hi, b.digits)
	}
	return nil
}

// steps adds up the shards' figures of each scenario step; newMerger has
// checked that they hold the same steps.
func (m *merger) steps() error {
	first := m.shards[0].StepStats
	if first == nil {
		return nil
	}
	m.out.StepStats = make([]StepStats, len(first))
	for j := range first {
		st := &m.out.StepStats[j]
		st.Name = first[j].Name
		for _, r := range m.shards {
			s := &r.StepStats[j]
			st.Requests += s.Requests
			st.ErrorsTotal += s.ErrorsTotal
			st.Unsuccessful += s.Unsuccessful
			st.Codes = addCounts(st.Codes, s.Codes)
			st.Errors = addCounts(st.Errors, s.Errors)
		}
		var err error
		name := fmt.Sprintf("StepStats[%d].Latency", j)
		if st.Latency, err = addHistograms(m.shards, name, func(r *Result) *hdr.Histogram { return r.StepStats[j].Latency }); err != nil {
			return err
		}
		name = fmt.Sprintf("StepStats[%d].Service", j)
		if st.Service, err = addHistograms(m.shards, name, func(r *Result) *hdr.Histogram { return r.StepStats[j].Service }); err != nil {
			return err
		}
	}
	return nil
}

// intervals adds up the shards' interval k into the merged interval k, for
// every k any shard reached.
func (m *merger) intervals() error {
	n := -1
	for _, r := range m.shards {
		if r.Intervals != nil {
			n = max(n, len(r.Intervals))
		}
	}
	if n < 0 {
		return nil
	}
	m.out.Intervals = make([]Interval, n)
	var from []int // the shards that reached the interval
	for k := range m.out.Intervals {
		from = from[:0]
		for i, r := range m.shards {
			if k < len(r.Intervals) {
				from = append(from, i)
			}
		}
		if err := m.interval(k, from); err != nil {
			return err
		}
	}
	return nil
}

// interval adds up interval k of the shards numbered in from.
func (m *merger) interval(k int, from []int) error {
	out := &m.out.Intervals[k]
	first := &m.shards[from[0]].Intervals[k]
	out.Start, out.End = first.Start, first.End
	length := first.End - first.Start
	sameLength := true
	for _, i := range from {
		in := &m.shards[i].Intervals[k]
		out.Start, out.End = min(out.Start, in.Start), max(out.End, in.End)
		sameLength = sameLength && in.End-in.Start == length
		out.Sent += in.Sent
		out.Completed += in.Completed
		out.Errors += in.Errors
		out.Unsuccessful += in.Unsuccessful
		out.InFlightMax += in.InFlightMax
	}
	// Time in flight over the merged length: the sum of the means where
	// the lengths agree, which keeps one shard's mean as it was.
	merged := out.End - out.Start
	for j, i := range from {
		in := &m.shards[i].Intervals[k]
		mean := in.InFlightMean
		if !sameLength && merged > 0 {
			mean = mean * float64(in.End-in.Start) / float64(merged)
		}
		if j == 0 {
			out.InFlightMean = mean
		} else {
			out.InFlightMean += mean
		}
	}
	var err error
	if out.Latency, err = m.addKept(k, from, "Latency", func(in *Interval) Kept { return in.Latency }); err != nil {
		return err
	}
	out.Service, err = m.addKept(k, from, "Service", func(in *Interval) Kept { return in.Service })
	return err
}

// addKept returns the sum of the histograms get reads from interval k of
// the shards numbered in from, kept encoded. One shard's encoding is
// copied as it is. Each is added into a dense histogram, which costs the
// buckets it fills, and the sum packed and encoded as a Recorder keeps
// an interval's; they must have latlab's range and precision, as a Kept
// read from an encoded Result has.
func (m *merger) addKept(k int, from []int, name string, get func(*Interval) Kept) (Kept, error) {
	if len(from) == 1 {
		return Kept{enc: bytes.Clone(get(&m.shards[from[0]].Intervals[k]).enc)}, nil
	}
	if m.sum == nil {
		m.sum = NewHistogram()
	}
	m.sum.Reset()
	for _, i := range from {
		h, err := get(&m.shards[i].Intervals[k]).Histogram()
		if err != nil {
			return Kept{}, fmt.Errorf("shard %d: interval %d: %s: %w", i, k, name, err)
		}
		if err := sameGeometry(h, m.sum); err != nil {
			return Kept{}, fmt.Errorf("shard %d: interval %d: %s histogram: %w of latlab's", i, k, name, err)
		}
		if dropped := h.MergeInto(m.sum); dropped != 0 {
			return Kept{}, fmt.Errorf("shard %d: interval %d: %s histogram: %d counts past the sum's", i, k, name, dropped)
		}
	}
	return m.packer.keep(m.sum), nil
}

// raw keeps up to keep of the shards' raw samples (every one for 0),
// shared among the shards as Merge says, on the merged time base.
func (m *merger) raw(keep int64) {
	have := make([]int64, len(m.shards))
	var total, dropped int64
	kept := false
	for i, r := range m.shards {
		have[i] = int64(len(r.Raw))
		total += have[i]
		dropped += r.RawDropped
		kept = kept || r.Raw != nil
	}
	if !kept {
		m.out.RawDropped = dropped
		return
	}
	share, n := have, total
	if keep > 0 && total > keep {
		share, n = fairShares(have, keep), keep
	}
	out := make([]Raw, 0, n)
	from := 0
	for i, r := range m.shards {
		raw := r.Raw
		if share[i] < have[i] {
			// The first to complete, as a Recorder keeps them.
			raw = slices.Clone(raw)
			slices.SortStableFunc(raw, func(a, b Raw) int { return cmp.Or(cmp.Compare(a.Done, b.Done), cmp.Compare(a.Intended, b.Intended)) })
			raw = raw[:share[i]]
		}
		if len(raw) > 0 {
			from++
		}
		d := m.offsets[i]
		for _, s := range raw {
			s.Intended += d
			s.Sent += d
			s.Done += d
			out = append(out, s)
		}
	}
	if from > 1 || n < total {
		slices.SortStableFunc(out, func(a, b Raw) int { return cmp.Compare(a.Intended, b.Intended) })
	}
	m.out.Raw = out
	m.out.RawDropped = dropped + total - n
}

// fairShares shares keep among shards that have have[i] each, keep being
// less than their sum: a shard with less than an even share of what is
// left gives all it has, the others an even share of the rest, the first
// of them by number one more where it does not divide.
func fairShares(have []int64, keep int64) []int64 {
	order := make([]int, len(have))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(have[a], have[b]) })
	share := make([]int64, len(have))
	left := keep
	for j, i := range order {
		even := left / int64(len(order)-j)
		if have[i] <= even {
			share[i] = have[i]
			left -= have[i]
			continue
		}
		// Every shard from here on has more than an even share.
		rest := order[j:]
		slices.Sort(rest)
		extra := left - even*int64(len(rest))
		for n, i := range rest {
			share[i] = even
			if int64(n) < extra {
				share[i]++
			}
		}
		break
	}
	return share
}
