package benchcmp

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/latlab/latlab/internal/textsafe"
)

// WriteScaleText writes each fit as a block: the models by AICc, the
// slope of the linear fit with its 95% CI and R², and a last line
// "verdict: linear", "verdict: superlinear" or "verdict: sublinear".
func WriteScaleText(w io.Writer, fits []*ScaleFit) error {
	var b strings.Builder
	for i, f := range fits {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s %s: %d points, n from %s to %s\n", textsafe.Escape(f.Name), textsafe.Escape(f.Unit), f.Points, g4(f.MinN), g4(f.MaxN))
		fmt.Fprintf(&b, "  %-10s %10s %8s  %s\n", "model", "AICc", "R²", "params (95% CI)")
		for _, m := range f.Models {
			var ps []string
			for j, p := range m.Params {
				ps = append(ps, fmt.Sprintf("%c=%s [%s, %s]", 'a'+j, g4(p), g4(m.Lo[j]), g4(m.Hi[j])))
			}
			mark := ""
			if m.Name == f.Best {
				mark = " *"
			}
			fmt.Fprintf(&b, "  %-10s %10.2f %8.4f  %s%s\n", m.Name, m.AICc, m.R2, strings.Join(ps, " "), mark)
		}
		fmt.Fprintf(&b, "slope: %s %s per n, 95%% CI [%s, %s], R² %.4f\n", g4(f.Slope), textsafe.Escape(f.Unit), g4(f.SlopeLo), g4(f.SlopeHi), f.R2)
		fmt.Fprintf(&b, "why: %s\n", f.Reason)
		fmt.Fprintf(&b, "verdict: %s\n", f.Verdict)
	}
	_, err := io.WriteString(w, textsafe.Layout(b.String()))
	return err
}

// WriteScaleJSON writes the fits as an indented JSON array.
func WriteScaleJSON(w io.Writer, fits []*ScaleFit) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(fits)
}

func g4(v float64) string { return fmt.Sprintf("%.4g", v) }
