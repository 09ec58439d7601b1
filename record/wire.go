package record

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// WireVersion is the version of the encoding EncodeResult writes. A
// change of the encoding's meaning or layout takes a new one. A decoder
// reads its own version and those from oldestWire on, which stored
// results and load pods of an earlier latlab wrote: version 1 lacks
// Threads, version 2 MessagesOut and MessagesIn, version 3 ReplyGap.
const WireVersion = 4

// oldestWire is the oldest version DecodeResult reads.
const oldestWire = 1

// wireMagic starts every encoding of a Result, before its version.
const wireMagic = "LLRW"

// wireEnd ends the body of an encoding, so that a body read out of step
// with the fields it holds shows up as an error.
const wireEnd = 0x4c4c454e44 // "LLEND"

// Bounds of what DecodeResult reads, past which an encoding is refused
// rather than allocated: far beyond what a run records, short of what
// would exhaust a machine.
const (
	maxWireBytes     = 1 << 30 // the body, decompressed: about 30 M raw samples, or a day of 1 s intervals a dozen times
	maxWireString    = 1 << 20 // a name, mode or error text
	maxWireHistogram = 1 << 20 // a histogram's V2 encoding; latlab's range takes at most some 300 KB
	maxWireEntries   = 1 << 16 // status codes, error classes or error examples in a map
	maxWireSteps     = 1 << 16 // scenario steps
	maxWireItems     = 1 << 30 // intervals or raw samples
)

// EncodeResult writes r to w exactly, every field of it, in latlab's
// result encoding, which DecodeResult reads: the 4 bytes "LLRW", the
// format's version (WireVersion) as a uvarint, then a gzip stream of
// the fields in their order of declaration, integers as varints, floats
// as their IEEE 754 bits, histograms in HdrHistogram's V2 compressed
// encoding (the intervals' as they are kept, untouched) and raw samples
// as differences from the one before. Nil maps, slices and histograms
// stay nil, and empty ones empty. The same Result always encodes to the
// same bytes.
//
// r must not change while it is encoded; reading it concurrently is safe.
func EncodeResult(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("encoding result: no result")
	}
	if _, err := io.WriteString(w, wireMagic); err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	if _, err := w.Write(binary.AppendUvarint(nil, WireVersion)); err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	// The kept histograms are compressed already; what gzip gains is on
	// their base64 and on the raw samples, for which its fastest level
	// does nearly as well as its best.
	z, _ := gzip.NewWriterLevel(w, gzip.BestSpeed) // a valid level
	ww := &wireWriter{w: bufio.NewWriterSize(z, 64<<10)}
	ww.result(r)
	err := ww.w.Flush()
	if ww.err != nil {
		err = ww.err
	}
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("encoding result: %w", err)
	}
	return nil
}

// result writes r's fields in their order of declaration.
func (w *wireWriter) result(r *Result) {
	start, err := r.Start.MarshalBinary()
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("start time: %w", err)
	}
	w.blob(start)
	w.varint(int64(r.Interval))
	w.count(len(r.Steps), r.Steps == nil)
	for _, s := range r.Steps {
		w.str(s)
	}
	w.str(r.Mode)
	w.float(r.TargetRate)
	w.varint(int64(r.Concurrency))
	w.boolean(r.Interrupted)
	w.varint(r.WarmupRequests)
	w.varint(r.Pool)
	w.varint(int64(r.HoldFrom))
	w.varint(int64(r.Threads))
	for _, v := range []int64{r.Sent, r.Unsent, r.Retries, r.Requests, r.ErrorsTotal, r.Unsuccessful, r.BytesIn, r.BytesOut,
		r.MessagesOut, r.MessagesIn} {
		w.varint(v)
	}
	w.codes(r.Codes)
	w.counts(r.Errors)
	w.texts(r.ErrorExample)
	w.varint(int64(r.FirstIntended))
	w.varint(int64(r.LastSent))
	w.varint(int64(r.LastDone))
	w.boolean(r.seen)
	for _, h := range r.histograms() {
		w.histogram(*h)
	}
	w.varint(r.InFlightMax)
	w.count(len(r.Intervals), r.Intervals == nil)
	for i := range r.Intervals {
		w.interval(&r.Intervals[i])
	}
	w.count(len(r.StepStats), r.StepStats == nil)
	for i := range r.StepStats {
		s := &r.StepStats[i]
		w.str(s.Name)
		w.varint(s.Requests)
		w.varint(s.ErrorsTotal)
		w.varint(s.Unsuccessful)
		w.codes(s.Codes)
		w.counts(s.Errors)
		w.histogram(s.Latency)
		w.histogram(s.Service)
	}
	w.raw(r.Raw)
	w.varint(r.RawDropped)
	w.uvarint(wireEnd)
}

func (w *wireWriter) interval(in *Interval) {
	w.varint(int64(in.Start))
	w.varint(int64(in.End))
	w.varint(in.Sent)
	w.varint(in.Completed)
	w.varint(in.Errors)
	w.varint(in.Unsuccessful)
	w.float(in.InFlightMean)
	w.varint(in.InFlightMax)
	w.kept(in.Latency)
	w.kept(in.Service)
}

// raw writes the raw samples, each time as a difference: the intended
// send from the one before's (they come sorted by it), the send from the
// intended send, the completion from the send. Differences wrap around
// as int64s do, so any values come back exactly.
func (w *wireWriter) raw(raw []Raw) {
	w.count(len(raw), raw == nil)
	var prev time.Duration
	for i := range raw {
		s := &raw[i]
		w.varint(int64(s.Intended - prev))
		w.varint(int64(s.Sent - s.Intended))
		w.varint(int64(s.Done - s.Sent))
		w.varint(s.BytesIn)
		w.varint(int64(s.BytesOut))
		w.uvarint(uint64(s.Code))
		w.u8(byte(s.Error))
		w.u8(s.Step)
		prev = s.Intended
	}
}

// histograms returns r's whole-run histograms in their order of
// declaration.
func (r *Result) histograms() []**hdr.Histogram {
	return []**hdr.Histogram{&r.Latency, &r.Service, &r.Lag, &r.Connect, &r.TLS, &r.Wait, &r.Read, &r.ReplyGap}
}

// DecodeResult reads a Result that EncodeResult wrote, exactly as it was
// encoded, and all of rd: data after the encoding is an error. It refuses
// an encoding of another version, one that is truncated or corrupt (gzip's
// checksum covers the body), and one whose sizes are past what any run
// records (a gigabyte decompressed, a megabyte per histogram or text)
// before allocating them; histograms must have latlab's range and
// precision. Its errors say what was being read.
func DecodeResult(rd io.Reader) (*Result, error) {
	br := bufio.NewReader(rd)
	v, err := readWireHeader(br)
	if err != nil {
		return nil, fmt.Errorf("decoding result: %w", err)
	}
	z, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("decoding result: %w", wireIOError(err))
	}
	z.Multistream(false)
	lim := &wireLimit{r: z, n: maxWireBytes}
	wr := &wireReader{r: bufio.NewReaderSize(lim, 64<<10), idx: -1, version: v}
	res := wr.result()
	if wr.err == nil {
		wr.end(br)
	}
	if wr.err != nil {
		return nil, fmt.Errorf("decoding result: %w", wr.err)
	}
	return res, nil
}

// readWireHeader reads the magic bytes and the version, and returns the
// version.
func readWireHeader(br *bufio.Reader) (uint64, error) {
	magic := make([]byte, len(wireMagic))
	if n, err := io.ReadFull(br, magic); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return 0, errors.New("empty input, not a result encoding")
		}
		return 0, fmt.Errorf("not a result encoding: %d bytes", n)
	}
	if string(magic) != wireMagic {
		return 0, fmt.Errorf("not a result encoding: it starts %q, not %q", magic, wireMagic)
	}
	v, err := binary.ReadUvarint(br)
	switch {
	case err != nil:
		return 0, fmt.Errorf("reading the encoding's version: %w", wireIOError(err))
	case v < oldestWire || v > WireVersion:
		return 0, fmt.Errorf("encoding version %d: this latlab reads versions %d to %d; run the same latlab on both sides", v, oldestWire, WireVersion)
	}
	return v, nil
}

// wireIOError names an early end as truncation.
func wireIOError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTruncated
	}
	return err
}

// end checks that the body ends where its last field does, that gzip's
// checksum holds, and that nothing follows the gzip stream in br.
func (r *wireReader) end(br *bufio.Reader) {
	r.section("end", -1)
	if v := r.uvarint(); r.err == nil && v != wireEnd {
		r.fail("the body does not end where its fields do")
		return
	}
	// Reading past the end has gzip check its checksum and the length.
	if _, err := r.r.ReadByte(); err == nil {
		r.fail("data after the body's last field")
		return
	} else if !errors.Is(err, io.EOF) {
		r.ioError(err)
		return
	}
	if _, err := br.ReadByte(); err == nil {
		r.fail("data after the gzip stream")
	}
}

// wireLimit reads from r up to n bytes, and fails when r holds more.
type wireLimit struct {
	r io.Reader
	n int64
}

func (l *wireLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var b [1]byte
		if n, err := io.ReadFull(l.r, b[:]); n == 0 {
			return 0, err // io.EOF at the end
		}
		return 0, fmt.Errorf("the body is larger than %d MiB decompressed", maxWireBytes>>20)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// result reads what wireWriter.result writes.
func (r *wireReader) result() *Result {
	res := &Result{}
	r.section("start", -1)
	if start := r.blob(64, "start time"); r.err == nil {
		if err := res.Start.UnmarshalBinary(start); err != nil {
			r.fail("%w", err)
		}
	}
	r.section("interval", -1)
	res.Interval = r.duration()
	r.section("steps", -1)
	if n, isNil := r.count(maxWireSteps, "steps"); !isNil && r.err == nil {
		res.Steps = make([]string, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			res.Steps = append(res.Steps, r.str("step name"))
		}
	}
	r.section("load", -1)
	res.Mode = r.str("mode")
	res.TargetRate = r.float()
	res.Concurrency = r.integer()
	res.Interrupted = r.boolean()
	res.WarmupRequests = r.varint()
	res.Pool = r.varint()
	res.HoldFrom = r.duration()
	if r.version >= 2 {
		res.Threads = r.integer()
	}
	r.section("counts", -1)
	for _, v := range []*int64{&res.Sent, &res.Unsent, &res.Retries, &res.Requests, &res.ErrorsTotal, &res.Unsuccessful, &res.BytesIn, &res.BytesOut} {
		*v = r.varint()
	}
	if r.version >= 3 {
		res.MessagesOut, res.MessagesIn = r.varint(), r.varint()
	}
	r.section("codes", -1)
	res.Codes = r.codes()
	r.section("errors", -1)
	res.Errors = r.counts("error classes")
	r.section("error examples", -1)
	res.ErrorExample = r.texts("error examples")
	r.section("times", -1)
	res.FirstIntended = r.duration()
	res.LastSent = r.duration()
	res.LastDone = r.duration()
	res.seen = r.boolean()
	hs := res.histograms()
	if r.version < 4 {
		hs = hs[:len(hs)-1] // ReplyGap, the last, came in version 4
	}
	for i, h := range hs {
		name := totalNames[i]
		r.section(name, -1)
		*h = r.histogram(name)
	}
	r.section("in flight", -1)
	res.InFlightMax = r.varint()
	res.Intervals = r.intervals()
	res.StepStats = r.stepStats()
	res.Raw = r.raw()
	r.section("raw dropped", -1)
	res.RawDropped = r.varint()
	return res
}

// totalNames name the whole-run histograms in errors, in their order.
var totalNames = []string{"latency", "service", "lag", "connect", "tls", "wait", "read", "reply gap"}

func (r *wireReader) intervals() []Interval {
	return readList(r, "intervals", maxWireItems, "intervals", func() Interval {
		return Interval{
			Start: r.duration(), End: r.duration(),
			Sent: r.varint(), Completed: r.varint(), Errors: r.varint(), Unsuccessful: r.varint(),
			InFlightMean: r.float(), InFlightMax: r.varint(),
			Latency: r.kept("latency"), Service: r.kept("service"),
		}
	})
}

func (r *wireReader) stepStats() []StepStats {
	return readList(r, "step stats", maxWireSteps, "steps", func() StepStats {
		return StepStats{
			Name: r.str("step name"), Requests: r.varint(), ErrorsTotal: r.varint(), Unsuccessful: r.varint(),
			Codes: r.codes(), Errors: r.counts("error classes"),
			Latency: r.histogram("latency"), Service: r.histogram("service"),
		}
	})
}

// readList reads a list that a count of at most max begins, naming it
// what in errors: each item by item, in section, numbered; nil for a nil
// list or after an error.
func readList[T any](r *wireReader, section string, max int, what string, item func() T) []T {
	r.section(section, -1)
	n, isNil := r.count(max, what)
	if isNil || r.err != nil {
		return nil
	}
	out := make([]T, 0, capacity(n))
	for i := 0; i < n && r.err == nil; i++ {
		r.section(section, i)
		out = append(out, item())
	}
	return out
}

// raw reads what wireWriter.raw writes.
func (r *wireReader) raw() []Raw {
	var prev time.Duration
	return readList(r, "raw", maxWireItems, "raw samples", func() Raw {
		var s Raw
		s.Intended = prev + r.duration()
		s.Sent = s.Intended + r.duration()
		s.Done = s.Sent + r.duration()
		s.BytesIn = r.varint()
		bytesOut := r.varint()
		code := r.uvarint()
		class := r.u8()
		s.Step = r.u8()
		switch {
		case r.err != nil:
		case bytesOut < math.MinInt32 || bytesOut > math.MaxInt32:
			r.fail("%d bytes out do not fit an int32", bytesOut)
		case code > math.MaxUint16:
			r.fail("status code %d does not fit a uint16", code)
		case class >= uint8(numClasses):
			r.fail("unknown error class %d", class)
		}
		s.BytesOut, s.Code, s.Error = int32(bytesOut), uint16(code), ErrorClass(class)
		prev = s.Intended
		return s
	})
}
