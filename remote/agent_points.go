package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/latlab/latlab/probe"
)

// PointsMedia is the media type of GET /result's part points: probe
// points, such as the hops of the spans an agent received, encoded as
// pointsWire says.
const PointsMedia = "application/vnd.latlab.points+json"

// pointsVersion is the version of the points' encoding. A decoder reads
// only its own version: a change of the encoding's meaning or layout
// takes a new one.
const pointsVersion = 1

// maxPointsBytes bounds the points part a Client reads: some nine million
// hop points at 28 bytes each (BenchmarkPoints), several times what a
// trace receiver's million spans give.
const maxPointsBytes = 256 << 20

// pointsWire is the encoding of a trial's points: JSON, with a table of
// the distinct probes, series and labels among them, and the points as
// three columns of one length, in their order.
//
//	{"version": 1,
//	 "series": [{"probe": "traces", "series": "network_seconds", "labels": {"callee": "b", "caller": "a"}}],
//	 "of": [0, 0], "t_ns": [1500000, 2600000], "value": [0.0021, 0.0019]}
//
// of is the index of a point's probe, series and labels in the table,
// t_ns its offset T in integer nanoseconds, and value its Value as the
// shortest JSON number that reads back as the same float64, or "NaN",
// "+Inf" or "-Inf", which JSON has no number for. Labels are null for a
// point without any (a nil map) and {} for an empty map. Every point of
// one entry of the table shares one Labels map once decoded, as the
// points of one hop do when a trace receiver makes them.
type pointsWire struct {
	Version int          `json:"version"`
	Series  []wireSeries `json:"series"`
	Of      []int        `json:"of"`
	TNanos  []int64      `json:"t_ns"`
	Value   []wireFloat  `json:"value"`
}

// wireSeries is an entry of pointsWire's table.
type wireSeries struct {
	Probe  string            `json:"probe"`
	Series string            `json:"series"`
	Labels map[string]string `json:"labels"`
}

// wireFloat is a float64 in JSON, "NaN", "+Inf" and "-Inf" included.
type wireFloat float64

func (f wireFloat) MarshalJSON() ([]byte, error) { return appendWireFloat(nil, float64(f)), nil }

func (f *wireFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = wireFloat(math.NaN())
	case `"+Inf"`:
		*f = wireFloat(math.Inf(1))
	case `"-Inf"`:
		*f = wireFloat(math.Inf(-1))
	default:
		// A JSON number is a Go float literal: ParseFloat reads it
		// exactly, and refuses what JSON would not hold as a number.
		if len(b) == 0 || b[0] == '"' || b[0] == 'n' {
			return fmt.Errorf("value %s: want a number, \"NaN\", \"+Inf\" or \"-Inf\"", b)
		}
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("value %s: %w", b, errors.Unwrap(err))
		}
		*f = wireFloat(v)
	}
	return nil
}

func appendWireFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// encodePoints writes points to w in their encoding (pointsWire), which
// decodePoints reads back exactly. It refuses strings that are not UTF-8,
// which JSON would change, before it writes anything.
func encodePoints(w io.Writer, points []probe.Point) error {
	table, of, err := pointsTable(points)
	if err != nil {
		return fmt.Errorf("encoding points: %w", err)
	}
	head, err := json.Marshal(table)
	if err != nil {
		return fmt.Errorf("encoding points: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `{"version":%d,"series":%s,"of":[`, pointsVersion, head)
	var num []byte
	column := func(name string, n int, item func(b []byte, i int) []byte) {
		bw.WriteString(name)
		for i := range n {
			num = num[:0]
			if i > 0 {
				num = append(num, ',')
			}
			bw.Write(item(num, i))
		}
	}
	column("", len(of), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(of[i]), 10) })
	column(`],"t_ns":[`, len(points), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(points[i].T), 10) })
	column(`],"value":[`, len(points), func(b []byte, i int) []byte { return appendWireFloat(b, points[i].Value) })
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("encoding points: %w", err)
	}
	return nil
}

// pointsTable returns the distinct probes, series and labels of points and
// each point's index among them.
func pointsTable(points []probe.Point) ([]wireSeries, []int, error) {
	// Points share Labels maps, a hop's points one: looking a map up by
	// its identity first spares rendering its content for each point.
	type shared struct {
		probe, series string
		labels        uintptr
	}
	byMap := map[shared]int{}
	byContent := map[string]int{}
	table := []wireSeries{}
	of := make([]int, len(points))
	for i, p := range points {
		key := shared{p.Probe, p.Series, reflect.ValueOf(p.Labels).Pointer()}
		k, ok := byMap[key]
		if !ok {
			if err := checkUTF8(p); err != nil {
				return nil, nil, fmt.Errorf("point %d: %w", i, err)
			}
			content := seriesKey(p)
			if k, ok = byContent[content]; !ok {
				k = len(table)
				table = append(table, wireSeries{Probe: p.Probe, Series: p.Series, Labels: p.Labels})
				byContent[content] = k
			}
			byMap[key] = k
		}
		of[i] = k
	}
	return table, of, nil
}

// seriesKey tells apart points of different probes, series or labels; nil
// labels differ from empty ones.
func seriesKey(p probe.Point) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(p.Probe))
	b.WriteString(strconv.Quote(p.Series))
	if p.Labels == nil {
		return b.String()
	}
	b.WriteByte('{')
	for _, k := range slices.Sorted(maps.Keys(p.Labels)) {
		b.WriteString(strconv.Quote(k))
		b.WriteString(strconv.Quote(p.Labels[k]))
	}
	return b.String()
}

// checkUTF8 refuses a point whose strings JSON would change.
func checkUTF8(p probe.Point) error {
	for what, s := range map[string]string{"probe": p.Probe, "series": p.Series} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("%s %q is not UTF-8", what, s)
		}
	}
	for k, v := range p.Labels {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("label %q=%q is not UTF-8", k, v)
		}
	}
	return nil
}

// decodePoints reads points that encodePoints wrote, exactly as they were
// encoded, and all of r: data after the encoding is an error, and so is
// an encoding of more than limit bytes, refused before it is decoded, or
// of another version. No points decode to nil. Its errors say what was
// wrong.
func decodePoints(r io.Reader, limit int64) ([]probe.Point, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("decoding points: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("decoding points: more than %d bytes, the most a trial's points may take", limit)
	}
	var v struct {
		Version *int `json:"version"`
	}
	// Unmarshal refuses anything but one JSON value, data after it too.
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("decoding points: %w", err)
	}
	switch {
	case v.Version == nil:
		return nil, errors.New("decoding points: no version: not an encoding of points")
	case *v.Version != pointsVersion:
		return nil, fmt.Errorf("decoding points: encoding version %d: this latlab reads version %d; run the same latlab on both sides", *v.Version, pointsVersion)
	}
	var pw pointsWire
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pw); err != nil {
		return nil, fmt.Errorf("decoding points: %w", err)
	}
	n := len(pw.Of)
	if len(pw.TNanos) != n || len(pw.Value) != n {
		return nil, fmt.Errorf("decoding points: columns of %d, %d and %d points: want one length", n, len(pw.TNanos), len(pw.Value))
	}
	if n == 0 {
		return nil, nil
	}
	points := make([]probe.Point, n)
	for i, k := range pw.Of {
		if k < 0 || k >= len(pw.Series) {
			return nil, fmt.Errorf("decoding points: point %d of series %d, of %d", i, k, len(pw.Series))
		}
		s := &pw.Series[k]
		points[i] = probe.Point{Probe: s.Probe, Series: s.Series, Labels: s.Labels, T: time.Duration(pw.TNanos[i]), Value: float64(pw.Value[i])}
	}
	return points, nil
}
