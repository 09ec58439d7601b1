package main

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "one", "B": "two", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"$(A)", "one"},
		{"x$(A)y$(B)z", "xoneytwoz"},
		{"$(MISSING)", "$(MISSING)"},
		{"$(EMPTY)!", "!"},
		{"$$(A)", "$(A)"},
		{"$$", "$"},
		{"$", "$"},
		{"a$", "a$"},
		{"$(A", "$(A"},
		{"$A", "$A"},
		{"$($(A))", "$($(A))"},
		{"$(A)$(A)", "oneone"},
	} {
		if got := expand(tc.in, lookup); got != tc.want {
			t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCommand(t *testing.T) {
	env := &envList{}
	env.set("PORT", "8080")
	for _, tc := range []struct {
		name     string
		c        corev1.Container
		wantProg string
		wantArgv []string
	}{
		{"entrypoint", corev1.Container{Image: "latlab/latlab:dev", Args: []string{"serve", "--listen", ":$(PORT)"}},
			"/bin/x/latlab-bin", []string{"/bin/x/latlab-bin", "serve", "--listen", ":8080"}},
		{"command by the binary's name", corev1.Container{Image: "img", Command: []string{"/usr/bin/latlab-bin", "attack"}},
			"/bin/x/latlab-bin", []string{"/usr/bin/latlab-bin", "attack"}},
		{"command by the image's name", corev1.Container{Image: "ghcr.io/latlab/latlab:v1@sha256:00", Command: []string{"latlab"}, Args: []string{"version"}},
			"/bin/x/latlab-bin", []string{"latlab", "version"}},
		{"another program", corev1.Container{Image: "latlab/latlab:dev", Command: []string{"sh", "-c", "exit $(PORT)"}},
			"sh", []string{"sh", "-c", "exit 8080"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, argv := command(&tc.c, "/bin/x/latlab-bin", env)
			if prog != tc.wantProg || !slices.Equal(argv, tc.wantArgv) {
				t.Errorf("got %q %q, want %q %q", prog, argv, tc.wantProg, tc.wantArgv)
			}
		})
	}
}
