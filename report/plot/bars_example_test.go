package plot_test

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/report/plot"
)

func ExampleBars_SVG() {
	c := plot.Bars{
		Title:      "Top functions by CPU time",
		Categories: []string{"runtime.mallocgc", "net/http.(*conn).serve", "syscall.Syscall"},
		Series: []plot.BarSeries{
			{Name: "flat", Values: []float64{0.42, 0.08, 0.31}, Color: -1},
			{Name: "cum", Values: []float64{0.61, 2.3, 0.31}, Color: -1},
		},
		Value: plot.Axis{Label: "CPU time", Unit: plot.Seconds, ZeroBased: true},
	}
	svg := c.SVG()
	fmt.Println(strings.Count(svg, `class="series"`), strings.Contains(svg, ">420ms</text>"))
	// Output: 6 true
}
