package experiment

import (
	"testing"

	"github.com/latlab/latlab/load"
)

// TestRunnerSamples holds Runner.Samples to one meaning, the command
// line's: a count, 0 keeping none, and nil the default.
func TestRunnerSamples(t *testing.T) {
	for _, tt := range []struct {
		samples *int64
		want    int64
	}{
		{nil, load.DefaultSamples},
		{ptr(int64(0)), 0},
		{ptr(int64(25)), 25},
	} {
		if got := (&Runner{Samples: tt.samples}).samples(); got != tt.want {
			t.Errorf("Samples %v: keeps %d, want %d", tt.samples, got, tt.want)
		}
	}
}
