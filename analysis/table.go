package analysis

import (
	"fmt"

	"github.com/latlab/latlab/spec"
)

// A Comparison is one row of an overhead table: a variant against the
// baseline at one level and quantile.
type Comparison struct {
	Variant, Baseline string
	Level
	spec.Stat
	Diff
}

// Overheads compares every other variant of levels (from Aggregate) with
// baseline at each level both have, for each of CompareStats, paired by
// repetition where the runs allow it (see compare), and corrects
// the p-values with Holm within each quantile: the p50 rows of every
// variant and level are one family, the p99 rows another. A reader asks
// "does any variant shift the median?" and "does any variant shift the
// tail?" as separate questions, and each answer keeps its 5% family-wise
// error rate; one family over the whole table would also make five runs a
// side (smallest exact p 0.0079) unable to reach significance in any
// table with more than six rows. A difference smaller than the baseline's
// p50 CI half-width at that level (or than Floor) is flagged as below the
// measurement floor. A row no outcome could make significant after Holm,
// or without an interval, says why in its Reason.
func Overheads(levels []LevelResult, baseline string) []Comparison {
	base := map[Level]LevelResult{}
	for _, l := range levels {
		if l.Variant == baseline {
			base[l.Level] = l
		}
	}
	type row struct {
		l, b   LevelResult
		name   string
		vc, bc Cell
		floor  float64
	}
	var rows []row
	family := map[string]int{} // per quantile: the rows with values on both sides
	for _, l := range levels {
		b, ok := base[l.Level]
		if l.Variant == baseline || !ok {
			continue
		}
		floor := Floor
		if p50, ok := b.Cell("p50"); ok && p50.CIOK {
			floor = max(floor, (p50.Hi-p50.Lo)/2)
		}
		for _, name := range spec.CompareStats {
			vc, _ := l.Cell(name)
			bc, _ := b.Cell(name)
			rows = append(rows, row{l, b, name, vc, bc, floor})
			if len(vc.Values) > 0 && len(bc.Values) > 0 {
				family[name]++
			}
		}
	}
	var out []Comparison
	for _, r := range rows {
		name := r.name
		d := compare(r.vc, r.bc, r.floor, family[name])
		d.limit(r.l, r.b, r.vc, r.bc)
		out = append(out, Comparison{Variant: r.l.Variant, Baseline: baseline, Level: r.l.Level, Stat: r.vc.Stat, Diff: d})
	}
	for _, name := range spec.CompareStats {
		var family []*Comparison
		var ps []float64
		for i, c := range out {
			if c.Name == name {
				family, ps = append(family, &out[i]), append(ps, c.P)
			}
		}
		for j, p := range Holm(ps) {
			family[j].PAdj = p
			family[j].Significant = p < Alpha
		}
		holmReason(family)
	}
	for i := range out {
		c := &out[i]
		c.atHolm(rows[i].vc, rows[i].bc)
		for j, w := range c.Warnings {
			c.Warnings[j] = fmt.Sprintf("%s vs %s %s %s: %s", c.Variant, baseline, c.Level, c.Name, w)
		}
	}
	return out
}
