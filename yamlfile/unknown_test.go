package yamlfile

import "testing"

func TestUnknownField(t *testing.T) {
	spec := []string{"version", "name", "variants", "baseline", "load", "warmup", "runs", "order", "seed",
		"restart", "sideloads", "probes", "validity", "slo", "cpus"}
	for _, tt := range []struct {
		key   string
		known []string
		want  string
	}{
		{"rnus", spec, "unknown field; did you mean runs?"},         // two letters swapped
		{"run", spec, "unknown field; did you mean runs?"},          // one left out
		{"Warmup", spec, "unknown field; did you mean warmup?"},     // case
		{"varients", spec, "unknown field; did you mean variants?"}, // one wrong
		{"sideload", spec, "unknown field; did you mean sideloads?"},
		{"valdty", spec, "unknown field; did you mean validity?"}, // two left out of eight
		{"x", spec, "unknown field"},                              // nothing close, too many to list
		{"duration", spec, "unknown field"},                       // a field, but of another mapping
		{"colour", []string{"cpu", "memory"}, "unknown field; expected cpu, memory"},
		{"cpus", []string{"cpu", "memory"}, "unknown field; did you mean cpu?"},
		{"anything", nil, "unknown field"},
	} {
		if got := UnknownField(tt.key, tt.known...); got != tt.want {
			t.Errorf("UnknownField(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"runs", "runs", 0}, {"rnus", "runs", 1}, {"kitten", "sitting", 3},
		{"ca", "abc", 3}, {"µs", "ms", 1}} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
