package analysis

import (
	"math"
	"testing"
)

func TestHodgesLehmannRatio(t *testing.T) {
	x := []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 2 * v
	}
	est, lo, hi, ok := HodgesLehmannRatio(x, y, 0.95)
	if !ok || math.Abs(est-2) > 0.15 || lo > 2 || hi < 2 || lo >= hi {
		t.Errorf("ratio %v [%v, %v] ok=%v; want about 2 inside a non-empty interval", est, lo, hi, ok)
	}
	// For m = n = 10 at 95% the tables give k = 24 (P(U ≤ 23) = 0.0216);
	// for 60 against 60, beyond them, the exact distribution gives 1427.
	for _, tc := range []struct{ m, k int }{{10, 24}, {60, 1427}} {
		if k, _ := shiftRank(tc.m, tc.m, 0.95); k != tc.k {
			t.Errorf("shiftRank(%d, %d, 0.95) = %d, want %d", tc.m, tc.m, k, tc.k)
		}
	}
	if _, _, _, ok := HodgesLehmannRatio([]float64{1, 2}, []float64{3, 4}, 0.95); ok {
		t.Error("2+2 values gave a 95% interval; the U test cannot reach it")
	}
}
