package plot

import "strings"

// Palette is the colours series are drawn in: Okabe and Ito's set, which
// stays distinguishable with the common forms of colour blindness. Automatic
// colours (Series.Color -1) take the yellow, pale on white, last.
var Palette = []string{
	"#0072B2", // blue
	"#E69F00", // orange
	"#009E73", // bluish green
	"#D55E00", // vermilion
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#F0E442", // yellow
	"#000000", // black
}

// pale is the palette colour automatic colours avoid while others remain.
const pale = "#F0E442"

// assignColors returns the colour of each series: its Color index into
// Palette, or for a negative index the first colour in order of preference
// that no other series uses, cycling once all are taken.
func assignColors(ss []Series) []string {
	out := make([]string, len(ss))
	n := len(Palette)
	if n == 0 {
		for i := range out {
			out[i] = "#000000"
		}
		return out
	}
	used := make([]bool, n)
	for _, s := range ss {
		if s.Color >= 0 {
			used[s.Color%n] = true
		}
	}
	var order []int
	for i, c := range Palette {
		if !strings.EqualFold(c, pale) {
			order = append(order, i)
		}
	}
	for i, c := range Palette {
		if strings.EqualFold(c, pale) {
			order = append(order, i)
		}
	}
	cycle := 0
	for i, s := range ss {
		if s.Color >= 0 {
			out[i] = Palette[s.Color%n]
			continue
		}
		pick := -1
		for _, j := range order {
			if !used[j] {
				pick = j
				break
			}
		}
		if pick < 0 {
			pick = order[cycle%n]
			cycle++
		}
		used[pick] = true
		out[i] = Palette[pick]
	}
	return out
}
