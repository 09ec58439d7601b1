package benchcmp

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// ScalePoint is one measurement at size N.
type ScalePoint struct {
	N     float64 `json:"n"`
	Value float64 `json:"value"`
}

// ScaleSeries is a metric measured at several sizes: one benchmark (its
// name without the size key) in one unit, or one value column of a CSV.
type ScaleSeries struct {
	Name   string       `json:"name"`
	Unit   string       `json:"unit"`
	Points []ScalePoint `json:"points"`
}

// ParseScale reads a size sweep from r: `go test -bench` output with the
// size as the first numeric key=value of each sub-benchmark name
// (BenchmarkExport/conns=1000), or CSV whose header names the size
// column first and one or more value columns after it (n,value). name
// is used in errors, which name the line.
func ParseScale(r io.Reader, name string) ([]ScaleSeries, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if IsBenchFile(bytes.NewReader(data)) {
		return parseScaleBench(data, name)
	}
	return parseScaleCSV(data, name)
}

func parseScaleBench(data []byte, name string) ([]ScaleSeries, error) {
	br := benchfmt.NewReader(bytes.NewReader(data), name)
	index := map[[2]string]int{}
	var out []ScaleSeries
	for br.Scan() {
		var res *benchfmt.Result
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			res = rec
		}
		if res == nil {
			continue
		}
		series, n, ok := splitSize(res.Name)
		if !ok {
			continue
		}
		for _, v := range res.Values {
			k := [2]string{series, v.Unit}
			i, seen := index[k]
			if !seen {
				i = len(out)
				index[k] = i
				out = append(out, ScaleSeries{Name: series, Unit: v.Unit})
			}
			out[i].Points = append(out[i].Points, ScalePoint{n, v.Value})
		}
	}
	if err := br.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no benchmark with a size in its name, like BenchmarkX/n=1000", name)
	}
	return out, nil
}

// splitSize finds the first sub-benchmark part key=number of name and
// returns the name without it, and the number.
func splitSize(name benchfmt.Name) (series string, n float64, ok bool) {
	base, parts := name.Parts()
	var b strings.Builder
	b.Write(base)
	for _, p := range parts {
		s := string(p)
		if !ok && strings.HasPrefix(s, "/") {
			if _, val, found := strings.Cut(s[1:], "="); found {
				if f, err := strconv.ParseFloat(val, 64); err == nil {
					n, ok = f, true
					continue
				}
			}
		}
		b.WriteString(s)
	}
	return "Benchmark" + b.String(), n, ok
}

func parseScaleCSV(data []byte, name string) ([]ScaleSeries, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = 0
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: want a CSV header like n,value: %w", name, errors.Unwrap(err))
	}
	if len(header) < 2 {
		return nil, fmt.Errorf("%s:1: want a CSV header like n,value, got %q", name, strings.Join(header, ","))
	}
	out := make([]ScaleSeries, len(header)-1)
	for i := range out {
		out[i] = ScaleSeries{Name: name, Unit: header[i+1]}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		vals := make([]float64, len(rec))
		for i, f := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: field %s: %q is not a number", name, line, header[i], f)
			}
			vals[i] = v
		}
		for i := range out {
			out[i].Points = append(out[i].Points, ScalePoint{vals[0], vals[i+1]})
		}
	}
	if len(out[0].Points) == 0 {
		return nil, fmt.Errorf("%s:2: no data rows", name)
	}
	return out, nil
}
