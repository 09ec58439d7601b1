package cluster

import (
	"regexp"
	"strings"
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

func TestDNSName(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"chain", 63, "chain"},
		{"chain-proxy", 63, "chain-proxy"},
		{"Chain", 63, "chain-"},
		{"1st", 63, "x-1st-"},
		{"a_b.c", 63, "a-b-c-"},
		{"---", 63, "x-"},
		{strings.Repeat("a", 40), 20, "aaaaaaaaaaa-"},
	} {
		got := DNSName(c.in, c.n)
		if !strings.HasPrefix(got, c.want) || len(got) > c.n || !dnsLabel.MatchString(got) || (got == c.in) != (c.want == c.in) {
			t.Errorf("DNSName(%q, %d) = %q, want %q…, a DNS-1035 label of at most %d", c.in, c.n, got, c.want, c.n)
		}
	}
	if DNSName("A", 63) == DNSName("a", 63) {
		t.Error("two names map to one")
	}
}

var dnsLabel = regexp.MustCompile(`^[a-z]([a-z0-9-]*[a-z0-9])?$`)
