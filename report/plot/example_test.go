package plot_test

import (
	"fmt"
	"html/template"
	"os"
	"strings"

	"github.com/latlab/latlab/report/plot"
)

func ExampleChart_SVG() {
	c := plot.Chart{
		ID:    "p99",
		Title: "p99 latency",
		X:     plot.Axis{Label: "request rate", Unit: plot.PerSecond},
		Y:     plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true},
		Series: []plot.Series{{
			Name:   "baseline",
			Points: []plot.Point{{X: 1000, Y: 0.0021}, {X: 2000, Y: 0.0024}, {X: 4000, Y: 0.0041}},
			Style:  plot.LineMarkers,
			Color:  -1,
		}},
		Rules: []plot.Rule{{Y: 0.005, Label: "SLO 5ms"}},
	}
	page := template.Must(template.New("").Parse("<figure>{{.}}</figure>\n"))
	var b strings.Builder
	if err := page.Execute(&b, template.HTML(c.SVG())); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	html := b.String()
	fmt.Println(html[:strings.Index(html, ">\n")+1])
	fmt.Println(strings.Contains(html, ">latency (ms)</text>"))
	// Output:
	// <figure><svg xmlns="http://www.w3.org/2000/svg" class="plot" id="p99" width="640" height="360" viewBox="0 0 640 360" role="img" aria-label="p99 latency" data-series="1" data-points="3" font-family="system-ui, sans-serif" font-size="11">
	// true
}

func ExampleUnit_Format() {
	fmt.Println(plot.Seconds.Format(0.0034), plot.Ratio.Format(0.012), plot.PerSecond.Format(1000), plot.Bytes.Format(1536))
	// Output: 3.4ms 1.2% 1000/s 1.54 kB
}

// A latency-over-time chart: p50, and p99 dashed with its confidence band,
// the warm-up shaded and the SLO drawn as a rule.
func ExampleChart_SVG_overTime() {
	p50 := []plot.Point{{X: 0, Y: 0.0011}, {X: 10, Y: 0.0012}, {X: 20, Y: 0.0012}, {X: 30, Y: 0.0013}}
	p99 := []plot.Point{{X: 0, Y: 0.0031}, {X: 10, Y: 0.0034}, {X: 20, Y: 0.0036}, {X: 30, Y: 0.0041}}
	c := plot.Chart{
		Title: "Latency over time",
		X:     plot.Axis{Label: "time", Unit: plot.Seconds},
		Y:     plot.Axis{Label: "latency", Unit: plot.Seconds, ZeroBased: true},
		Series: []plot.Series{
			{Name: "p50", Points: p50, Color: -1},
			{Name: "p99", Points: p99, Lo: []float64{0.0029, 0.0032, 0.0034, 0.0038}, Hi: []float64{0.0034, 0.0037, 0.0039, 0.0045}, Color: -1, Dashed: true},
		},
		Shade: []plot.Span{{From: 0, To: 10, Label: "warm-up"}},
		Rules: []plot.Rule{{Y: 0.005, Label: "SLO 5ms"}},
	}
	svg := c.SVG()
	fmt.Println(svg[strings.Index(svg, "data-series"):strings.Index(svg, " font-family")])
	fmt.Println(strings.Contains(svg, ">warm-up</text>"), strings.Contains(svg, ">SLO 5ms</text>"))
	// Output:
	// data-series="2" data-points="8"
	// true true
}
