package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

// resultCmp compares Results exactly: their unexported fields too, nil
// apart from empty, and histograms by range, counts and what their V2
// encoding leaves out.
var resultCmp = cmp.Options{
	cmp.AllowUnexported(Result{}, Kept{}),
	cmp.Comparer(sameHistogram),
}

func sameHistogram(a, b *hdr.Histogram) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equals(b) && a.Tag() == b.Tag() && a.StartTimeMs() == b.StartTimeMs() && a.EndTimeMs() == b.EndTimeMs()
}

// roundTrip encodes r and decodes it back.
func roundTrip(t *testing.T, r *Result) (*Result, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeResult(&buf, r); err != nil {
		t.Fatal(err)
	}
	enc := bytes.Clone(buf.Bytes())
	got, err := DecodeResult(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return got, enc
}

// TestWireEveryField fills every field of a Result, its intervals, steps
// and raw samples with values from across their ranges, and holds the
// encoding to give each back: a field added to Result and not to the
// encoding fails here, since fill leaves no field zero.
func TestWireEveryField(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		r := &Result{}
		fill(t, reflect.ValueOf(r).Elem(), rng, "Result")
		r.seen = true
		got, enc := roundTrip(t, r)
		if diff := cmp.Diff(r, got, resultCmp); diff != "" {
			t.Fatalf("seed %d: decoded result differs (-sent +got):\n%s", seed, diff)
		}
		again, _ := roundTrip(t, got)
		var buf bytes.Buffer
		if err := EncodeResult(&buf, again); err != nil || !bytes.Equal(buf.Bytes(), enc) {
			t.Fatalf("seed %d: a decoded result encodes otherwise than the one sent (%v)", seed, err)
		}
	}
}

// fill sets every exported field under v to a value other than zero,
// drawn from rng across the field's range; path names v in failures.
func fill(t testing.TB, v reflect.Value, rng *rand.Rand, path string) {
	t.Helper()
	hist := func() *hdr.Histogram {
		h := NewHistogram()
		for range 1 + rng.IntN(20) {
			recordDuration(h, time.Duration(rng.Int64N(int64(time.Minute))))
		}
		h.SetTag(fmt.Sprint("tag", rng.IntN(9)))
		h.SetStartTimeMs(rng.Int64())
		h.SetEndTimeMs(-rng.Int64())
		return h
	}
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		zone := time.FixedZone("", 60*(rng.IntN(24*60)-12*60))
		v.Set(reflect.ValueOf(time.Unix(rng.Int64N(1<<40), rng.Int64N(1e9)).In(zone)))
		return
	case reflect.TypeFor[*hdr.Histogram]():
		v.Set(reflect.ValueOf(hist()))
		return
	case reflect.TypeFor[Kept]():
		k, err := Keep(hist())
		if err != nil {
			t.Fatal(err)
		}
		v.Set(reflect.ValueOf(k))
		return
	case reflect.TypeFor[ErrorClass]():
		v.SetUint(uint64(1 + rng.IntN(int(numClasses)-1)))
		return
	}
	// A random number of the kind's bits, of any magnitude and sign.
	bits := func() uint64 { return rng.Uint64()>>rng.IntN(64) | 1 }
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(t, f, rng, path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		n := int64(bits()) >> (64 - v.Type().Bits())
		if rng.IntN(2) == 0 {
			n = -n
		}
		v.SetInt(n | 1)
	case reflect.Uint8, reflect.Uint16:
		v.SetUint(bits()>>(64-v.Type().Bits()) | 1)
	case reflect.Float64:
		v.SetFloat(rng.NormFloat64() * 1e6)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString(strings.Repeat("é", rng.IntN(5)) + fmt.Sprint(rng.Int()))
	case reflect.Slice:
		n := 1 + rng.IntN(5)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(t, s.Index(i), rng, fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 1 + rng.IntN(5) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, rng, path+" key")
			fill(t, e, rng, path+" value")
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		t.Fatalf("%s: fill does not know %s", path, v.Type())
	}
	if v.IsZero() {
		t.Fatalf("%s: fill left it zero", path)
	}
}

// TestWireNilAndEmpty holds the encoding to keep nil maps, slices,
// histograms and kept encodings apart from empty ones.
func TestWireNilAndEmpty(t *testing.T) {
	empty := &Result{
		Steps: []string{}, Codes: map[int]int64{}, Errors: map[string]int64{}, ErrorExample: map[string]string{},
		Latency: NewHistogram(), Intervals: []Interval{{Latency: KeptEncoding(nil)}}, StepStats: []StepStats{{}},
		Raw: []Raw{},
	}
	for name, r := range map[string]*Result{"zero": {}, "empty": empty} {
		got, _ := roundTrip(t, r)
		if diff := cmp.Diff(r, got, resultCmp); diff != "" {
			t.Errorf("%s: decoded result differs (-sent +got):\n%s", name, diff)
		}
	}
}

// recorded returns a run recorded from synthetic samples: two steps,
// three intervals, errors and codes, raw samples up to a cap of 50.
func recorded(t testing.TB) *Result {
	t.Helper()
	start := time.Now()
	rec := NewRecorder(start, Config{Interval: time.Second, Steps: []string{"login", "get"}, KeepRaw: 50})
	for i := range 120 {
		at := time.Duration(i) * 25 * time.Millisecond
		s := Sample{Intended: at, Sent: at + time.Microsecond, Done: at + time.Duration(1+i%7)*time.Millisecond,
			Code: 200, BytesIn: 100, BytesOut: 50, Step: i % 2, Wait: time.Millisecond, Read: time.Microsecond}
		switch i % 10 {
		case 3:
			s.Code = 503
		case 7:
			s.Code, s.Error, s.Err = 0, Reset, fmt.Errorf("read: connection reset by peer (%d)", i)
		}
		if i%30 == 0 {
			s.Connect = 200 * time.Microsecond
		}
		rec.Sent()
		rec.Record(i, &s)
	}
	r := rec.Stop()
	r.Mode, r.TargetRate, r.Concurrency, r.Pool, r.Threads = "open", 40, 100, 8, 2
	return r
}

// TestWireRecorded round-trips a recorded run: the result and its summary
// come back the same.
func TestWireRecorded(t *testing.T) {
	r := recorded(t)
	if len(r.Raw) != 50 || r.RawDropped != 70 || len(r.StepStats) != 2 || len(r.Intervals) == 0 {
		t.Fatalf("recorded %d raw (%d dropped), %d steps, %d intervals; want 50 (70), 2 and some", len(r.Raw), r.RawDropped, len(r.StepStats), len(r.Intervals))
	}
	got, _ := roundTrip(t, r)
	if diff := cmp.Diff(r, got, resultCmp); diff != "" {
		t.Fatalf("decoded result differs (-sent +got):\n%s", diff)
	}
	want, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(got)
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(sum)
	if !bytes.Equal(wj, gj) {
		t.Errorf("summary of the decoded result:\n%s\nwant\n%s", gj, wj)
	}
}

// encodeBody returns an encoding of version v whose body body writes.
func encodeBody(v uint64, body func(w *wireWriter)) []byte {
	var buf bytes.Buffer
	buf.WriteString(wireMagic)
	buf.Write(binary.AppendUvarint(nil, v))
	z := gzip.NewWriter(&buf)
	w := &wireWriter{w: bufio.NewWriter(z)}
	body(w)
	w.w.Flush()
	z.Close()
	return buf.Bytes()
}

// TestWireReadsOlderVersions decodes results that earlier versions of the
// encoding stored: stored studies and load pods of an earlier latlab stay
// readable. Version 1 (testdata/result-v1.bin) has no Threads; version 3
// (testdata/result-v3.bin, 40 gRPC calls of 3 replies each) has message
// counts and no reply gaps.
func TestWireReadsOlderVersions(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(*Result) string
	}{
		{"result-v1.bin", func(r *Result) string {
			if r.Requests != 120 || r.Mode != "closed" || r.Pool != 4 || r.Threads != 0 || len(r.Raw) != 50 || !slices.Equal(r.Steps, []string{"login", "get"}) {
				return fmt.Sprintf("decoded %d requests, mode %q, pool %d, threads %d, %d raw, steps %v; want 120, closed, 4, 0, 50, [login get]",
					r.Requests, r.Mode, r.Pool, r.Threads, len(r.Raw), r.Steps)
			}
			return ""
		}},
		{"result-v3.bin", func(r *Result) string {
			if r.Requests != 40 || r.Threads != 2 || r.MessagesIn != 120 || r.MessagesOut != 40 || r.ReplyGap != nil || r.Read.TotalCount() != 40 {
				return fmt.Sprintf("decoded %d requests, threads %d, messages %d in and %d out, reply gaps %v, %d reads; want 40, 2, 120, 40, nil, 40",
					r.Requests, r.Threads, r.MessagesIn, r.MessagesOut, r.ReplyGap, r.Read.TotalCount())
			}
			return ""
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := DecodeResult(f)
			if err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(r); msg != "" {
				t.Error(msg)
			}
			if _, err := Summarize(r); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestWireRefuses holds DecodeResult to an error, never a panic, and a
// message saying what is wrong and where, for each kind of bad input.
func TestWireRefuses(t *testing.T) {
	var good bytes.Buffer
	if err := EncodeResult(&good, recorded(t)); err != nil {
		t.Fatal(err)
	}
	other := hdr.New(1, 1000, 2)
	other.RecordValue(5)
	otherEnc, _ := other.Encode(hdr.V2CompressedEncodingCookieBase)
	fields := func(w *wireWriter, r *Result) { w.result(r) }
	for _, tt := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "empty input"},
		{"not ours", []byte(`{"error": "no"}`), `not a result encoding: it starts "{\"er"`},
		{"short", []byte("LL"), "not a result encoding: 2 bytes"},
		{"no version", []byte(wireMagic), "version: truncated"},
		{"newer", encodeBody(WireVersion+1, func(w *wireWriter) { fields(w, &Result{}) }), "encoding version 5: this latlab reads versions 1 to 4"},
		{"older", encodeBody(0, func(w *wireWriter) { fields(w, &Result{}) }), "encoding version 0: this latlab reads versions 1 to 4"},
		{"not gzip", append([]byte(wireMagic+"\x01"), strings.Repeat("xy", 10)...), "gzip: invalid header"},
		{"trailing", append(bytes.Clone(good.Bytes()), 0), "data after the gzip stream"},
		{"body too long", encodeBody(WireVersion, func(w *wireWriter) { fields(w, &Result{}); w.u8(0) }), "data after the body's last field"},
		{"body cut short", encodeBody(WireVersion, func(w *wireWriter) {}), "start: truncated"},
		{"nil count", encodeBody(WireVersion, func(w *wireWriter) {
			w.blob(must(time.Time{}.MarshalBinary()))
			w.varint(0)
			w.varint(-5)
		}), "steps: -5 steps: want 0 to 65536"},
		{"huge string", encodeBody(WireVersion, func(w *wireWriter) {
			w.blob(must(time.Time{}.MarshalBinary()))
			w.varint(0)
			w.count(0, true)
			w.uvarint(1 << 40)
		}), "load: mode of 1099511627776 bytes: at most 1048576"},
		{"other histogram", encodeBody(WireVersion, func(w *wireWriter) {
			r := &Result{Intervals: make([]Interval, 4)}
			r.Intervals[3].Latency = KeptEncoding(otherEnc)
			fields(w, r)
		}), "intervals[3]: latency histogram: range 1 to 1000 ns at 2 significant digits, not latlab's"},
		{"bad class", encodeBody(WireVersion, func(w *wireWriter) {
			r := &Result{Raw: make([]Raw, 3)}
			r.Raw[2].Error = 99
			fields(w, r)
		}), "raw[2]: unknown error class 99"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeResult(bytes.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DecodeResult = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	// A prefix of a good encoding, and the encoding with a byte changed, is
	// an error: gzip's checksum covers the body. Some 500 of each.
	b := good.Bytes()
	for n := 0; n < len(b); n += 1 + len(b)/500 {
		if _, err := DecodeResult(bytes.NewReader(b[:n])); err == nil {
			t.Fatalf("the first %d of %d bytes decode", n, len(b))
		}
	}
	// Past gzip's header, whose time and flags it does not check.
	for i := len(wireMagic) + 1 + 10; i < len(b); i += 1 + len(b)/500 {
		bad := bytes.Clone(b)
		bad[i] ^= 0x55
		if _, err := DecodeResult(bytes.NewReader(bad)); err == nil {
			t.Fatalf("the encoding with byte %d of %d changed decodes", i, len(b))
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestWireLimit holds the bound on a body's size to an error past it and
// to the body's own end at it.
func TestWireLimit(t *testing.T) {
	l := &wireLimit{r: strings.NewReader("abcdef"), n: 3}
	got, err := io.ReadAll(l)
	if string(got) != "abc" || err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("past the bound: read %q, %v; want abc and an error", got, err)
	}
	l = &wireLimit{r: strings.NewReader("abc"), n: 3}
	if got, err := io.ReadAll(l); string(got) != "abc" || err != nil {
		t.Errorf("at the bound: read %q, %v; want abc and no error", got, err)
	}
}
