package graph

import (
	"slices"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	var c NodeConfig
	err := c.FromEnv(env(map[string]string{"SERVICE_NAME": "web", "UPSTREAM_URI": "http://:9000",
		"DOWNSTREAM_URI": "http://a:1, http://b:2", "PRIME_MAX": "50", "JOBFILE": "j.yaml"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "web" || c.Listen != "127.0.0.1:9000" || !slices.Equal(c.Downstreams, []string{"http://a:1", "http://b:2"}) ||
		c.PrimeMax != 50 || c.JobFile != "j.yaml" || c.LoadFile != "" {
		t.Errorf("FromEnv gave %+v", c)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"UPSTREAM_URI", "nowhere", `UPSTREAM_URI "nowhere": want a URL or HOST:PORT`},
		{"DOWNSTREAM_URI", "a:1", `DOWNSTREAM_URI: "a:1" is not an http:// or https:// URL`},
		{"PRIME_MAX", "1", `PRIME_MAX "1": want a whole number of at least 2`},
	} {
		var c NodeConfig
		if err := c.FromEnv(env(map[string]string{tc.key: tc.value})); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: error %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
}
