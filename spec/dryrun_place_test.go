package spec

import (
	"strings"
	"testing"
)

func TestWritePlacement(t *testing.T) {
	const head = "version: 1\nname: p\nload: {rates: [100], duration: 1s}\n"
	tests := []struct {
		name, spec string
		want, not  []string
	}{
		{"external pinned", head + `variants:
  - {name: nginx, target: 'http://127.0.0.1:18080/'}
  - {name: haproxy, target: 'http://127.0.0.1:18081/'}
cpus: {load: 0, targets: 1}
`, []string{
			"cpus:     latlab on 0, what it starts on 1\n",
			"external: nginx, haproxy: latlab does not start them",
			"taskset -c 1 COMMAND, or taskset -cp 1 PID",
			"their CPU is not measured: name them to the process probe, probes: {process: {names:",
		}, []string{"started:"}},
		{"external named", head + `variants:
  - {name: nginx, target: 'http://127.0.0.1:18080/'}
  - {name: own, target: 'http://127.0.0.1:18082/', start: 'latlab serve --listen 127.0.0.1:18082'}
probes: {process: {names: [nginx], pids: [4242]}}
`, []string{
			"started:  own: latlab starts them (graph nodes, start commands, all they start), not pinned, watched by the process probe\n",
			"external: nginx:",
			"the process probe watches names nginx; PIDs 4242",
		}, []string{"cpus:", "taskset", "not measured"}},
		{"started only", head + `variants:
  - {name: own, target: 'http://127.0.0.1:18082/', start: 'latlab serve --listen 127.0.0.1:18082'}
cpus: {load: 0, targets: 1}
`, []string{"started:  own:", "pinned to 1,"}, []string{"external:"}},
		{"setup only", head + `variants:
  - {name: own, target: 'http://127.0.0.1:18082/', start: 'latlab serve --listen 127.0.0.1:18082'}
  - {name: daemon, target: 'http://127.0.0.1:18083/', setup: 'true', teardown: 'true'}
cpus: {load: 0, targets: 1}
`, []string{"started:  own:", "set up:   daemon: latlab runs their setup commands (pinned to 1, as is what they start) but watches nothing"},
			[]string{"started:  own, daemon", "external:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.spec)
			var b strings.Builder
			if err := s.WritePlan(&b, s.Plan(1)); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("plan lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("plan has %q:\n%s", w, b.String())
				}
			}
		})
	}
}
