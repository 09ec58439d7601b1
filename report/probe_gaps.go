package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/latlab/latlab/analysis"
	"github.com/latlab/latlab/store"
)

// probeGaps says what the probes failed to measure in the counted runs of
// levels (points holds each run's by its ID): for each variant, probe and
// subject (the scraped instance, or the process or pods) that reported
// "up" 0 with an error, in how many of the variant's counted runs, with
// the first error. A report must not let a missing table pass for a
// quiet target: a cluster without a metrics API measures no pod's CPU,
// so no CPU budget can be judged there either.
func probeGaps(levels []analysis.LevelResult, points map[int64][]store.ProbePoint) []string {
	type gap struct {
		variant, probe, subject, example string
		runs                             map[int64]bool
		first                            int
	}
	gaps := map[string]*gap{}
	counted := map[string]int{} // by variant
	n := 0
	for _, l := range levels {
		counted[l.Variant] += len(l.RunIDs)
		for _, id := range l.RunIDs {
			for _, p := range points[id] {
				errText, ok := p.Labels["error"]
				if p.Series != "up" || p.Value != 0 || !ok {
					continue
				}
				subject := cmp.Or(p.Labels["instance"], p.Labels["comm"], p.Labels["pid"])
				key := l.Variant + "\x00" + p.Probe + "\x00" + subject
				g := gaps[key]
				if g == nil {
					g = &gap{variant: l.Variant, probe: p.Probe, subject: subject, example: errText, runs: map[int64]bool{}, first: n}
					gaps[key] = g
					n++
				}
				g.runs[id] = true
			}
		}
	}
	sorted := make([]*gap, 0, len(gaps))
	for _, g := range gaps {
		sorted = append(sorted, g)
	}
	slices.SortFunc(sorted, func(a, b *gap) int { return cmp.Compare(a.first, b.first) })
	var out []string
	for _, g := range sorted {
		out = append(out, fmt.Sprintf("%s: the %s probe of %s failed in %d of %d counted run(s), e.g.: %s",
			g.variant, g.probe, g.subject, len(g.runs), counted[g.variant], g.example))
	}
	return out
}
