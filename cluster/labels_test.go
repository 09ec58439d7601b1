package cluster

import (
	"regexp"
	"testing"
)

func TestLabelValue(t *testing.T) {
	valid := regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	long := "a-very-long-experiment-name-that-goes-on-and-on-past-what-a-label-holds"
	for _, tc := range []struct {
		in, want string
	}{
		{"sweep", "sweep"},
		{"mesh-variant-sweep", "mesh-variant-sweep"},
		{"with space", ""},
		{"-leading", ""},
		{long, ""},
		{"日本", ""},
	} {
		got := LabelValue(tc.in)
		if tc.want != "" && got != tc.want {
			t.Errorf("LabelValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > 63 || !valid.MatchString(got) {
			t.Errorf("LabelValue(%q) = %q: not a valid label value", tc.in, got)
		}
	}
	if a, b := LabelValue("a b"), LabelValue("a/b"); a == b {
		t.Errorf("LabelValue maps %q and %q both to %q", "a b", "a/b", a)
	}
	if a, b := LabelValue(long), LabelValue(long+"x"); a == b {
		t.Errorf("LabelValue maps two long names to %q", a)
	}
}

func TestSelector(t *testing.T) {
	if got, want := Selector(""), "app.kubernetes.io/managed-by=latlab"; got != want {
		t.Errorf("Selector(\"\") = %q, want %q", got, want)
	}
	if got, want := Selector("sweep"), "app.kubernetes.io/managed-by=latlab,latlab.io/experiment=sweep"; got != want {
		t.Errorf("Selector(sweep) = %q, want %q", got, want)
	}
}
