package benchcmp

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/latlab/latlab/analysis"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// BenchOptions configures CompareBench. The zero value is benchstat's
// default: no assumption about the distribution, alpha 0.05, 95%
// confidence intervals and no multiple-comparison correction.
type BenchOptions struct {
	// Alpha is the significance threshold; 0 means 0.05.
	Alpha float64
	// Confidence is the level of every interval; 0 means 0.95.
	Confidence float64
	// Holm applies the Holm–Bonferroni correction to the p-values of all
	// rows of all tables before deciding what is significant.
	Holm bool
}

func (o BenchOptions) alpha() float64 {
	if o.Alpha == 0 {
		return benchmath.DefaultThresholds.CompareAlpha
	}
	return o.Alpha
}

func (o BenchOptions) confidence() float64 {
	if o.Confidence == 0 {
		return 0.95
	}
	return o.Confidence
}

// BenchComparison is an A/B comparison laid out as benchstat lays it
// out: one table per configuration and unit, one row per benchmark. It
// compares two `go test -bench` outputs (CompareBench), two sets of
// stored runs (CompareRuns), or any samples (CompareSamples).
type BenchComparison struct {
	Old    string        `json:"old"`
	New    string        `json:"new"`
	Alpha  float64       `json:"alpha"`
	Holm   bool          `json:"holm"`
	Tables []*BenchTable `json:"tables"`
	// Notes say what the comparison left out or could not match, such as
	// flagged runs or levels measured on one side only.
	Notes []string `json:"notes,omitempty"`
}

// BenchTable holds the rows of one configuration and unit.
type BenchTable struct {
	// Config lists the configuration keys (goos, goarch, pkg, cpu…) in
	// order, as "key: value"; benchstat prints those that change.
	Config  []string     `json:"config"`
	Unit    string       `json:"unit"`
	Rows    []*BenchRow  `json:"rows"`
	Geomean BenchGeomean `json:"geomean"`
}

// BenchStat summarises one sample: its median and the confidence
// interval of the median, as benchmath.AssumeNothing computes them.
type BenchStat struct {
	Center float64   `json:"center"`
	Lo     float64   `json:"lo"`
	Hi     float64   `json:"hi"`
	N      int       `json:"n"`
	Range  string    `json:"range"` // benchstat's "±" column, like "2%"
	Values []float64 `json:"-"`
	Notes  []string  `json:"warnings,omitempty"`
}

// BenchRow is one benchmark (or one level of a variant) in one unit. Old
// or New is nil when the row is missing from that side; then there is no
// comparison.
type BenchRow struct {
	Name string     `json:"name"`
	Old  *BenchStat `json:"old,omitempty"`
	New  *BenchStat `json:"new,omitempty"`

	// Compared says the fields below are set.
	Compared bool `json:"compared"`
	// Delta is benchstat's delta column: "~" when not significant,
	// else the relative change of the medians, like "-47.38%".
	Delta string `json:"delta,omitempty"`
	// P is the Mann-Whitney U p-value; PAdjusted is P after Holm's
	// correction (equal to P without --holm).
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	// Significant is PAdjusted < alpha (benchstat: not P > alpha).
	Significant bool `json:"significant"`
	// Ratio is the Hodges–Lehmann estimate of new/old: the median of
	// all pairwise ratios new_j/old_i. RatioLo and RatioHi bound it with
	// the distribution-free interval that inverts the same U test, at
	// the options' confidence. HasRatioCI is false when a value is not
	// positive.
	HasRatioCI bool     `json:"has_ratio_ci"`
	Ratio      float64  `json:"ratio"`
	RatioLo    float64  `json:"ratio_lo"`
	RatioHi    float64  `json:"ratio_hi"`
	Notes      []string `json:"warnings,omitempty"`

	cmp benchmath.Comparison
}

// BenchGeomean is benchstat's last row: the geometric mean of the
// medians in each file and of the per-row ratios new/old.
type BenchGeomean struct {
	Old      float64  `json:"old"`
	New      float64  `json:"new"`
	HasRatio bool     `json:"has_ratio"`
	Ratio    float64  `json:"ratio"`
	Notes    []string `json:"warnings,omitempty"`
}

// IsBenchFile reports whether r looks like `go test -bench` output: a
// line starts with "Benchmark" or "goos:".
func IsBenchFile(r io.Reader) bool {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Benchmark") || strings.HasPrefix(line, "goos:") {
			return true
		}
	}
	return false
}

// CompareBench reads two `go test -bench` files and compares them as
// benchstat does by default (-table .config -row .fullname -col .file).
// A syntax error in either file is returned as a *benchfmt.SyntaxError,
// which names the file and line.
func CompareBench(oldPath, newPath string, opt BenchOptions) (*BenchComparison, error) {
	tables, err := readBench(oldPath, newPath)
	if err != nil {
		return nil, err
	}
	return CompareSamples(oldPath, newPath, tables, opt), nil
}

// readBench groups the results of two `go test -bench` files into
// tables by configuration and unit and rows by full name, in the order
// benchstat shows them.
func readBench(oldPath, newPath string) ([]SampleTable, error) {
	tables, units, err := scanBench(oldPath, newPath)
	if err != nil {
		return nil, err
	}
	var out []SampleTable
	for _, tk := range sortedKeys(tables) {
		out = append(out, tables[tk].samples(tk, units, oldPath, newPath))
	}
	return out, nil
}

// benchCell is a cell of a benchTable: a row (a benchmark's full name)
// and a column (a file).
type benchCell struct{ row, col benchproc.Key }

// A benchTable is the results of one configuration and unit.
type benchTable struct {
	rows  map[benchproc.Key]bool
	cols  map[benchproc.Key]bool
	cells map[benchCell][]float64
}

// scanBench reads the two files' results into tables by configuration
// and unit (benchstat's -table .config -row .fullname -col .file). A file
// without results is a syntax error at its first line.
func scanBench(oldPath, newPath string) (map[benchproc.Key]*benchTable, benchfmt.UnitMetadataMap, error) {
	var parser benchproc.ProjectionParser
	tableBy, _, err := parser.ParseWithUnit(".config", nil)
	if err != nil {
		return nil, nil, err
	}
	rowBy, err := parser.Parse(".fullname", nil)
	if err != nil {
		return nil, nil, err
	}
	colBy, err := parser.Parse(".file", nil)
	if err != nil {
		return nil, nil, err
	}
	tables := map[benchproc.Key]*benchTable{}
	counts := map[string]int{}
	files := benchfmt.Files{Paths: []string{oldPath, newPath}}
	for files.Scan() {
		switch rec := files.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, nil, rec
		case *benchfmt.Result:
			counts[rec.GetConfig(".file")]++
			row, col := rowBy.Project(rec), colBy.Project(rec)
			for i, tk := range tableBy.ProjectValues(rec) {
				t := tables[tk]
				if t == nil {
					t = &benchTable{map[benchproc.Key]bool{}, map[benchproc.Key]bool{}, map[benchCell][]float64{}}
					tables[tk] = t
				}
				t.rows[row], t.cols[col] = true, true
				k := benchCell{row, col}
				t.cells[k] = append(t.cells[k], rec.Values[i].Value)
			}
		}
	}
	if err := files.Err(); err != nil {
		return nil, nil, err
	}
	for _, p := range []string{oldPath, newPath} {
		if counts[p] == 0 {
			return nil, nil, &benchfmt.SyntaxError{FileName: p, Line: 1, Msg: "no benchmark results"}
		}
	}
	return tables, benchfmt.UnitMetadataMap(files.Units()), nil
}

// samples lays t, the table of key tk, out as a SampleTable: its unit
// and configuration, and a row per benchmark with the old file's samples
// and the new one's.
func (t *benchTable) samples(tk benchproc.Key, units benchfmt.UnitMetadataMap, oldPath, newPath string) SampleTable {
	var st SampleTable
	for _, f := range tk.Projection().FlattenedFields() {
		if f.Name == ".unit" {
			st.Unit = tk.Get(f)
		} else {
			st.Config = append(st.Config, f.Name+": "+tk.Get(f))
		}
	}
	st.Assumption = units.GetAssumption(st.Unit)
	var oldCol, newCol benchproc.Key
	for _, c := range sortedKeys(t.cols) {
		switch c.StringValues() {
		case oldPath:
			oldCol = c
		case newPath:
			newCol = c
		}
	}
	for _, rk := range sortedKeys(t.rows) {
		row := SampleRow{Name: rk.StringValues()}
		if !oldCol.IsZero() {
			row.Old = t.cells[benchCell{rk, oldCol}]
		}
		if !newCol.IsZero() {
			row.New = t.cells[benchCell{rk, newCol}]
		}
		st.Rows = append(st.Rows, row)
	}
	return st
}

// A SampleTable is one table of CompareSamples: rows of samples in one
// unit and configuration.
type SampleTable struct {
	// Config lists what the rows share as "key: value"; the text form
	// prints the pairs that differ from the previous table's.
	Config []string
	// Unit names what the values measure, tidied as benchfmt tidies it:
	// "sec/op" (scaled like "21.41m"), "sec" (latency in seconds, scaled
	// like "250.3µs"), "B/op" (binary prefixes) or any other unit
	// (decimal prefixes).
	Unit string
	// Assumption is what the statistics may assume of the values; nil
	// means benchmath.AssumeNothing, benchstat's default.
	Assumption benchmath.Assumption
	Rows       []SampleRow
}

// A SampleRow is one row of a SampleTable: the measurements of one
// benchmark, or of one level of a variant, on each side. An empty side
// is missing: the row shows the other side and no comparison.
type SampleRow struct {
	Name     string
	Old, New []float64
}

// CompareSamples compares the old and new samples of every row of tables
// as benchstat does, with the rows and tables in the order given. oldName
// and newName head the columns. Tables are not modified; every sample is
// copied before it is sorted.
func CompareSamples(oldName, newName string, tables []SampleTable, opt BenchOptions) *BenchComparison {
	thr := benchmath.DefaultThresholds
	thr.CompareAlpha = opt.alpha()
	out := &BenchComparison{Old: oldName, New: newName, Alpha: opt.alpha(), Holm: opt.Holm}
	for _, st := range tables {
		assumption := st.Assumption
		if assumption == nil {
			assumption = benchmath.AssumeNothing
		}
		bt := &BenchTable{Config: st.Config, Unit: st.Unit}
		for _, sr := range st.Rows {
			row := &BenchRow{Name: sr.Name}
			var so, sn *benchmath.Sample
			if len(sr.Old) > 0 {
				so = benchmath.NewSample(slices.Clone(sr.Old), &thr)
				row.Old = benchStat(assumption, so, opt.confidence())
			}
			if len(sr.New) > 0 {
				sn = benchmath.NewSample(slices.Clone(sr.New), &thr)
				row.New = benchStat(assumption, sn, opt.confidence())
			}
			if so != nil && sn != nil {
				row.Compared = true
				row.cmp = assumption.Compare(so, sn)
				row.P, row.PAdjusted = row.cmp.P, row.cmp.P
				row.Notes = benchNotes(row.cmp.Warnings)
				row.Ratio, row.RatioLo, row.RatioHi, row.HasRatioCI = analysis.HodgesLehmannRatio(so.Values, sn.Values, opt.confidence())
			}
			bt.Rows = append(bt.Rows, row)
		}
		bt.Geomean = geomeanRow(bt.Rows)
		out.Tables = append(out.Tables, bt)
	}
	out.decide(opt)
	return out
}

// decide fills in the adjusted p-values, significance and delta column.
func (c *BenchComparison) decide(opt BenchOptions) {
	var rows []*BenchRow
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			if r.Compared {
				rows = append(rows, r)
			}
		}
	}
	if opt.Holm {
		ps := make([]float64, len(rows))
		for i, r := range rows {
			ps[i] = r.P
		}
		for i, p := range analysis.Holm(ps) {
			rows[i].PAdjusted = p
		}
	}
	for _, r := range rows {
		cmp := r.cmp
		cmp.P = r.PAdjusted
		r.Significant = !(cmp.P > cmp.Alpha)
		r.Delta = cmp.FormatDelta(r.Old.Center, r.New.Center)
	}
}

func benchStat(a benchmath.Assumption, s *benchmath.Sample, confidence float64) *BenchStat {
	sum := a.Summary(s, confidence)
	return &BenchStat{
		Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, N: len(s.Values),
		Range: sum.PctRangeString(), Values: s.Values,
		Notes: benchNotes(append(append([]error(nil), s.Warnings...), sum.Warnings...)),
	}
}

func benchNotes(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func sortedKeys[V any](m map[benchproc.Key]V) []benchproc.Key {
	keys := make([]benchproc.Key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	benchproc.SortKeys(keys)
	return keys
}
