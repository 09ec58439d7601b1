package remote

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/latlab/latlab/probe"
)

// pointsCmp compares points exactly: values by their bits but for NaN,
// which is any NaN, so that -0 differs from 0.
var pointsCmp = cmp.Comparer(func(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
})

// randomPoints returns n points of a few series, their values and offsets
// drawn from every corner of float64 and int64.
func randomPoints(rng *rand.Rand, n int) []probe.Point {
	hop := map[string]string{"caller": "front", "callee": "back"}
	labels := []map[string]string{nil, {}, hop, {"service": "ümlaut <&>", "span": "a\"b\\c\n"}, {"": ""}}
	values := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64,
		-math.MaxFloat64, 1e21, 1e-7, 0.1, 1.0 / 3}
	out := make([]probe.Point, n)
	for i := range out {
		v := values[rng.IntN(len(values))]
		if rng.IntN(2) == 0 {
			v = math.Float64frombits(rng.Uint64())
		}
		t := time.Duration(rng.Int64())
		if rng.IntN(2) == 0 {
			t = -t
		}
		out[i] = probe.Point{Probe: []string{"traces", "metrics", ""}[rng.IntN(3)], Series: []string{"network_seconds", "up"}[rng.IntN(2)],
			Labels: labels[rng.IntN(len(labels))], T: t, Value: v}
	}
	return out
}

// roundTrip encodes points and decodes them back.
func roundTrip(t *testing.T, points []probe.Point) ([]probe.Point, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := encodePoints(&buf, points); err != nil {
		t.Fatal(err)
	}
	enc := bytes.Clone(buf.Bytes())
	got, err := decodePoints(&buf, maxPointsBytes)
	if err != nil {
		t.Fatalf("decoding %s: %v", enc, err)
	}
	return got, enc
}

// TestPointsRoundTrip holds the points' encoding to bringing every point
// back exactly: NaN, infinities and -0, every int64 of T, nil labels nil
// and empty ones empty, every string, and their order.
func TestPointsRoundTrip(t *testing.T) {
	shared := map[string]string{"caller": "a", "callee": "b"}
	for _, tt := range []struct {
		name   string
		points []probe.Point
	}{
		{"one", []probe.Point{{Probe: "traces", Series: "network_seconds", Labels: shared, T: 1500 * time.Microsecond, Value: 0.0021}}},
		{"nil and empty labels", []probe.Point{{Probe: "p", Series: "s"}, {Probe: "p", Series: "s", Labels: map[string]string{}}, {Probe: "p", Series: "s"}}},
		{"extremes", []probe.Point{
			{T: math.MinInt64, Value: math.Inf(-1)}, {T: math.MaxInt64, Value: math.Inf(1)}, {T: -1, Value: math.NaN()},
			{Value: math.Copysign(0, -1)}, {Value: math.SmallestNonzeroFloat64}, {Value: math.MaxFloat64}, {Value: 5e-324 * 3},
		}},
		{"random", randomPoints(rand.New(rand.NewPCG(7, 11)), 2000)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, enc := roundTrip(t, tt.points)
			if diff := cmp.Diff(tt.points, got, pointsCmp); diff != "" {
				t.Errorf("points back (-sent +got):\n%s\nencoding: %s", diff, enc)
			}
		})
	}
}

// TestPointsShareLabels holds decoded points of one series to one Labels
// map, as a trace receiver's points of one hop are, whether or not they
// shared one when encoded.
func TestPointsShareLabels(t *testing.T) {
	points := []probe.Point{
		{Probe: "traces", Series: "network_seconds", Labels: map[string]string{"caller": "a", "callee": "b"}},
		{Probe: "traces", Series: "framework_seconds", Labels: map[string]string{"caller": "a", "callee": "b"}},
		{Probe: "traces", Series: "network_seconds", Labels: map[string]string{"callee": "b", "caller": "a"}},
	}
	got, enc := roundTrip(t, points)
	if !strings.Contains(string(enc), `"of":[0,1,0]`) {
		t.Errorf("encoding %s; want two series, the first point's and the third's one", enc)
	}
	if p := reflect.ValueOf(got[0].Labels).Pointer(); p != reflect.ValueOf(got[2].Labels).Pointer() || p == reflect.ValueOf(got[1].Labels).Pointer() {
		t.Errorf("decoded points 0 and 2 do not share their labels, or 1 shares theirs")
	}
}

// TestDecodePointsErrors holds decodePoints to refusing what encodePoints
// does not write, saying what is wrong, and an encoding past its bound.
func TestDecodePointsErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := encodePoints(&buf, randomPoints(rand.New(rand.NewPCG(1, 2)), 100)); err != nil {
		t.Fatal(err)
	}
	enc := buf.String()
	if _, err := decodePoints(strings.NewReader(enc), int64(len(enc))); err != nil {
		t.Fatalf("an encoding of %d bytes, bound %[1]d: %v", len(enc), err)
	}
	const good = `{"version":1,"series":[{"probe":"p","series":"s","labels":null}],`
	for _, tt := range []struct {
		name, in string
		limit    int64
		want     string
	}{
		{"past the bound", enc, int64(len(enc)) - 1, "decoding points: more than " + strconv.Itoa(len(enc)-1) + " bytes, the most a trial's points may take"},
		{"empty", "", 100, "decoding points: unexpected end of JSON input"},
		{"no version", `{"series":[]}`, 100, "decoding points: no version: not an encoding of points"},
		{"version 2", `{"version":2,"rows":[]}`, 100, "decoding points: encoding version 2: this latlab reads version 1; run the same latlab on both sides"},
		{"unknown field", good + `"of":[],"t_ns":[],"value":[],"extra":1}`, 1000, `decoding points: json: unknown field "extra"`},
		{"data after", good + `"of":[0],"t_ns":[0],"value":[0]} {}`, 1000, "decoding points: invalid character '{' after top-level value"},
		{"columns", good + `"of":[0,0],"t_ns":[0],"value":[0]}`, 1000, "decoding points: columns of 2, 1 and 1 points: want one length"},
		{"series out of range", good + `"of":[0,1],"t_ns":[0,0],"value":[0,0]}`, 1000, "decoding points: point 1 of series 1, of 1"},
		{"negative series", good + `"of":[-1],"t_ns":[0],"value":[0]}`, 1000, "decoding points: point 0 of series -1, of 1"},
		{"t not an integer", good + `"of":[0],"t_ns":[1.5],"value":[0]}`, 1000, "decoding points: json: cannot unmarshal number 1.5 into Go struct field pointsWire.t_ns of type int64"},
		{"value a word", good + `"of":[0],"t_ns":[0],"value":["Inf"]}`, 1000, `value "Inf": want a number, "NaN", "+Inf" or "-Inf"`},
		{"value null", good + `"of":[0],"t_ns":[0],"value":[null]}`, 1000, `value null: want a number`},
		{"value out of range", good + `"of":[0],"t_ns":[0],"value":[1e400]}`, 1000, "value 1e400: value out of range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodePoints(strings.NewReader(tt.in), tt.limit)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decodePoints = %v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

// TestEncodePointsNotUTF8 holds encodePoints to refusing, before it
// writes, a string JSON would change.
func TestEncodePointsNotUTF8(t *testing.T) {
	for _, p := range []probe.Point{
		{Probe: "traces", Series: "s\xff"},
		{Probe: "traces", Series: "s", Labels: map[string]string{"callee": "\xc3"}},
	} {
		var buf bytes.Buffer
		err := encodePoints(&buf, []probe.Point{{Probe: "ok", Series: "ok"}, p})
		if err == nil || !strings.Contains(err.Error(), "encoding points: point 1: ") || !strings.Contains(err.Error(), "is not UTF-8") || buf.Len() != 0 {
			t.Errorf("encodePoints of %+v = %v, wrote %d bytes; want it refused, naming point 1, nothing written", p, err, buf.Len())
		}
	}
}

// FuzzDecodePoints holds decodePoints to an error or points that encode
// and decode back to themselves, never a panic, for any input.
func FuzzDecodePoints(f *testing.F) {
	for _, n := range []int{1, 5, 40} {
		var buf bytes.Buffer
		if err := encodePoints(&buf, randomPoints(rand.New(rand.NewPCG(uint64(n), 3)), n)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"version":1,"series":[],"of":[],"t_ns":[],"value":[]}`))
	f.Add([]byte(`{"version":1,"series":[{"probe":"p","series":"s","labels":{}}],"of":[0],"t_ns":[-9223372036854775808],"value":["-Inf"]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		points, err := decodePoints(bytes.NewReader(in), 1<<20)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		var buf bytes.Buffer
		if err := encodePoints(&buf, points); err != nil {
			t.Fatalf("decoded points do not encode: %v", err)
		}
		again, err := decodePoints(&buf, maxPointsBytes)
		if err != nil {
			t.Fatalf("decoded points, encoded again, do not decode: %v", err)
		}
		if len(points) == 0 {
			points = nil
		}
		if diff := cmp.Diff(points, again, pointsCmp); diff != "" {
			t.Fatalf("decoded points, encoded again, decode otherwise (-first +again):\n%s", diff)
		}
	})
}

// BenchmarkPoints encodes and decodes the points of 100,000 spans' hops,
// as a trace receiver makes them.
func BenchmarkPoints(b *testing.B) {
	hops := []map[string]string{{"caller": "", "callee": "front"}, {"caller": "front", "callee": "back"}}
	var points []probe.Point
	for i := range 100_000 {
		l := hops[i%2]
		points = append(points, probe.Point{Probe: "traces", Series: "network_seconds", Labels: l, T: time.Duration(i) * 37 * time.Microsecond, Value: float64(i%997) * 1.3e-6},
			probe.Point{Probe: "traces", Series: "framework_seconds", Labels: l, T: time.Duration(i) * 37 * time.Microsecond, Value: float64(i%991) * 2.1e-6})
	}
	var buf bytes.Buffer
	if err := encodePoints(&buf, points); err != nil {
		b.Fatal(err)
	}
	size := buf.Len()
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := encodePoints(&buf, points); err != nil {
			b.Fatal(err)
		}
		if _, err := decodePoints(&buf, maxPointsBytes); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/float64(len(points)), "bytes/point")
}
