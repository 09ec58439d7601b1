package benchcmp

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/latlab/latlab/internal/textsafe"
)

// pString is benchstat's "(p=0.000 n=10)" cell, with the adjusted p.
func (r *BenchRow) pString() string {
	if r.Old.N == r.New.N {
		return fmt.Sprintf("p=%0.3f n=%d", r.PAdjusted, r.Old.N)
	}
	return fmt.Sprintf("p=%0.3f n=%d+%d", r.PAdjusted, r.Old.N, r.New.N)
}

// ciString is latlab's interval on the delta, like "[-48.1%, -46.5%]".
func (r *BenchRow) ciString() string {
	if !r.HasRatioCI {
		return "[?]"
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", (r.RatioLo-1)*100, (r.RatioHi-1)*100)
}

func (g BenchGeomean) delta() string {
	if !g.HasRatio {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", (g.Ratio-1)*100)
}

// unitLatency is the unit of latencies in seconds. benchstat prints
// sec/op as "21.41m" under its unit; a latency reads "21.41ms".
const unitLatency = "sec"

// suffix is what follows a scaled number of unit t.Unit.
func (t *BenchTable) suffix() string {
	if t.Unit == unitLatency {
		return "s"
	}
	return ""
}

func (t *BenchTable) scaled(r *BenchRow) (old, new string) {
	var vals []float64
	for _, s := range []*BenchStat{r.Old, r.New} {
		if s != nil {
			vals = append(vals, s.Center)
		}
	}
	sc := benchunit.CommonScale(vals, benchunit.ClassOf(t.Unit))
	if r.Old != nil {
		old = sc.Format(r.Old.Center) + t.suffix()
	}
	if r.New != nil {
		new = sc.Format(r.New.Center) + t.suffix()
	}
	return old, new
}

// scaledGeomean returns the geomean row's old and new cells; a side whose
// geomean does not exist (a summary at or below zero) is empty, as in
// benchstat, and geomeanNote says why.
func (t *BenchTable) scaledGeomean() (old, new string) {
	cls := benchunit.ClassOf(t.Unit)
	cell := func(v float64) string {
		if !(v > 0) || math.IsInf(v, 0) {
			return ""
		}
		return benchunit.Scale(v, cls) + t.suffix()
	}
	return cell(t.Geomean.Old), cell(t.Geomean.New)
}

// geomeanNote is the note under a table whose geomean row lacks a side.
func (t *BenchTable) geomeanNote() string {
	if o, n := t.scaledGeomean(); len(t.Rows) > 1 && (o == "" || n == "") {
		return "geomean: summaries must be >0 to compute geomean"
	}
	return ""
}

// WriteText writes c in benchstat's text shape, with latlab's
// interval on each delta as the last column.
func (c *BenchComparison) WriteText(w io.Writer) error {
	var b strings.Builder
	var prev []string
	for ti, t := range c.Tables {
		if ti > 0 {
			b.WriteString("\n")
		}
		for i, kv := range t.Config {
			if prev == nil || i >= len(prev) || prev[i] != kv {
				b.WriteString(textsafe.Escape(kv) + "\n")
			}
		}
		prev = t.Config
		var g grid
		for _, r := range t.Rows {
			o, n := t.scaled(r)
			cells := []string{textsafe.Escape(r.Name), "", "", "", "", "", "", ""}
			if r.Old != nil {
				cells[1], cells[2] = o, "± "+r.Old.Range
			}
			if r.New != nil {
				cells[3], cells[4] = n, "± "+r.New.Range
			}
			if r.Compared {
				cells[5], cells[6], cells[7] = r.Delta, "("+r.pString()+")", r.ciString()
			}
			g = append(g, cells)
		}
		if len(t.Rows) > 1 {
			o, n := t.scaledGeomean()
			g = append(g, []string{"geomean", o, "", n, "", t.Geomean.delta(), "", ""})
		}
		g.write(&b, textsafe.Escape(c.Old), textsafe.Escape(c.New), textsafe.Escape(t.Unit))
		if note := t.geomeanNote(); note != "" {
			fmt.Fprintf(&b, "note: %s\n", textsafe.Escape(note))
		}
		writeRowNotes(&b, t, c.Old, c.New)
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", textsafe.Escape(n))
	}
	if c.Holm {
		b.WriteString("p-values Holm-corrected across all rows\n")
	}
	b.WriteString("delta CI: Hodges-Lehmann ratio interval (Mann-Whitney inversion)\n")
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

// grid is a table of cells: name, old, ±old, new, ±new, delta, p, ci.
type grid [][]string

func (g grid) write(b *strings.Builder, oldName, newName, unit string) {
	wd := make([]int, 8)
	for _, row := range g {
		for i, c := range row {
			wd[i] = max(wd[i], len([]rune(c)))
		}
	}
	oldW := wd[1] + 1 + wd[2]
	newW := wd[3] + 1 + wd[4] + 2 + wd[5] + 1 + wd[6] + 1 + wd[7]
	oldW = max(oldW, len(oldName), len(unit))
	newW = max(newW, len(newName), len(unit)+len("     vs base"))
	pad := strings.Repeat(" ", wd[0])
	fmt.Fprintf(b, "%s │ %s │ %s │\n", pad, bCenter(oldName, oldW), bCenter(newName, newW))
	fmt.Fprintf(b, "%s │ %s │ %s │\n", pad, bCenter(unit, oldW), bLeft(bCenter(unit, wd[3]+1+wd[4])+"  vs base", newW))
	for _, row := range g {
		old := bRight(row[1], wd[1]) + " " + bLeft(row[2], wd[2])
		nw := bRight(row[3], wd[3]) + " " + bLeft(row[4], wd[4]) + "  " + bRight(row[5], wd[5]) + " " + bLeft(row[6], wd[6]) + " " + row[7]
		line := bLeft(row[0], wd[0]) + "   " + bLeft(old, oldW) + "   " + nw
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func bLeft(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-len([]rune(s))))
}

func bRight(s string, w int) string {
	return strings.Repeat(" ", max(0, w-len([]rune(s)))) + s
}

func bCenter(s string, w int) string {
	n := max(0, w-len([]rune(s)))
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}

// WriteJSON writes c as indented JSON.
func (c *BenchComparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// WriteCSV writes one line per row of every table, with unscaled
// numbers: config, unit, name, old and new center with interval,
// delta, p-values and the ratio interval.
func (c *BenchComparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"config", "unit", "name", "old_center", "old_lo", "old_hi", "new_center", "new_lo", "new_hi", "delta", "p", "p_adjusted", "ratio", "ratio_lo", "ratio_hi"})
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			rec := []string{strings.Join(t.Config, "; "), t.Unit, r.Name}
			for _, s := range []*BenchStat{r.Old, r.New} {
				if s == nil {
					rec = append(rec, "", "", "")
					continue
				}
				rec = append(rec, benchNum(s.Center), benchNum(s.Lo), benchNum(s.Hi))
			}
			if r.Compared {
				rec = append(rec, r.Delta, benchNum(r.P), benchNum(r.PAdjusted), benchNum(r.Ratio), benchNum(r.RatioLo), benchNum(r.RatioHi))
			} else {
				rec = append(rec, "", "", "", "", "", "")
			}
			cw.Write(rec)
		}
		if len(t.Rows) > 1 {
			cw.Write([]string{strings.Join(t.Config, "; "), t.Unit, "geomean", benchNum(t.Geomean.Old), "", "", benchNum(t.Geomean.New), "", "", t.Geomean.delta(), "", "", benchNum(t.Geomean.Ratio), "", ""})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes one Markdown table per configuration and unit.
func (c *BenchComparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	for ti, t := range c.Tables {
		if ti > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n\n", textsafe.Escape(strings.Join(append(append([]string(nil), t.Config...), "unit: "+t.Unit), " · ")))
		fmt.Fprintf(&b, "| benchmark | %s | %s | delta | p | delta 95%% CI |\n|---|--:|--:|--:|--:|--:|\n", mdEscape(c.Old), mdEscape(c.New))
		for _, r := range t.Rows {
			o, n := t.scaled(r)
			if r.Old != nil {
				o += " ± " + r.Old.Range
			}
			if r.New != nil {
				n += " ± " + r.New.Range
			}
			d, p, ci := "", "", ""
			if r.Compared {
				d, p, ci = r.Delta, r.pString(), r.ciString()
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdEscape(r.Name), o, n, d, p, ci)
		}
		if len(t.Rows) > 1 {
			o, n := t.scaledGeomean()
			fmt.Fprintf(&b, "| geomean | %s | %s | %s | | |\n", o, n, t.Geomean.delta())
		}
	}
	if len(c.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "- note: %s\n", mdEscape(n))
		}
	}
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

// mdEscape escapes a cell of a Markdown table: its control characters,
// and the bars that would end it.
func mdEscape(s string) string { return strings.ReplaceAll(textsafe.Escape(s), "|", `\|`) }

// benchNum is v for CSV, empty when v is infinite or NaN, as JSON's null.
func benchNum(v float64) string {
	if jsonFloat(v) == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// jsonFloat is v for JSON, nil (null) when v is infinite or NaN, as an
// interval from too few values or a ratio of zeros is: encoding/json
// refuses those.
func jsonFloat(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// MarshalJSON writes s with null for a bound that does not exist.
func (s BenchStat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Center *float64 `json:"center"`
		Lo     *float64 `json:"lo"`
		Hi     *float64 `json:"hi"`
		N      int      `json:"n"`
		Range  string   `json:"range"`
		Notes  []string `json:"warnings,omitempty"`
	}{jsonFloat(s.Center), jsonFloat(s.Lo), jsonFloat(s.Hi), s.N, s.Range, s.Notes})
}

// MarshalJSON writes r with null for a number that does not exist.
func (r BenchRow) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name        string     `json:"name"`
		Old         *BenchStat `json:"old,omitempty"`
		New         *BenchStat `json:"new,omitempty"`
		Compared    bool       `json:"compared"`
		Delta       string     `json:"delta,omitempty"`
		P           *float64   `json:"p"`
		PAdjusted   *float64   `json:"p_adjusted"`
		Significant bool       `json:"significant"`
		HasRatioCI  bool       `json:"has_ratio_ci"`
		Ratio       *float64   `json:"ratio"`
		RatioLo     *float64   `json:"ratio_lo"`
		RatioHi     *float64   `json:"ratio_hi"`
		Notes       []string   `json:"warnings,omitempty"`
	}{r.Name, r.Old, r.New, r.Compared, r.Delta, jsonFloat(r.P), jsonFloat(r.PAdjusted), r.Significant,
		r.HasRatioCI, jsonFloat(r.Ratio), jsonFloat(r.RatioLo), jsonFloat(r.RatioHi), r.Notes})
}

// MarshalJSON writes g with null for a mean that does not exist.
func (g BenchGeomean) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Old      *float64 `json:"old"`
		New      *float64 `json:"new"`
		HasRatio bool     `json:"has_ratio"`
		Ratio    *float64 `json:"ratio"`
		Notes    []string `json:"warnings,omitempty"`
	}{jsonFloat(g.Old), jsonFloat(g.New), g.HasRatio, jsonFloat(g.Ratio), g.Notes})
}

// writeRowNotes writes a table's row notes once per text, naming where it
// applies, as benchstat's footnotes do: "need >= 6 samples …" under every
// row of both files is one line, not ten.
func writeRowNotes(b *strings.Builder, t *BenchTable, oldName, newName string) {
	var texts []string
	where := map[string][]string{}
	add := func(text, place string) {
		if _, ok := where[text]; !ok {
			texts = append(texts, text)
		}
		where[text] = append(where[text], place)
	}
	places := 0
	for _, r := range t.Rows {
		for _, side := range []struct {
			name string
			s    *BenchStat
		}{{oldName, r.Old}, {newName, r.New}} {
			if side.s != nil {
				places++
				for _, n := range side.s.Notes {
					add(n, r.Name+" "+side.name)
				}
			}
		}
		for _, n := range r.Notes {
			add(n, r.Name)
		}
	}
	for _, text := range texts {
		at := where[text]
		switch {
		case len(at) == places && places > 1:
			fmt.Fprintf(b, "note: %s (every row, both sides)\n", text)
		case len(at) > 3:
			fmt.Fprintf(b, "note: %s (%s and %d more)\n", text, strings.Join(at[:3], ", "), len(at)-3)
		default:
			fmt.Fprintf(b, "note: %s (%s)\n", text, strings.Join(at, ", "))
		}
	}
}
