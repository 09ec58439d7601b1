package remote

import (
	"testing"

	"github.com/latlab/latlab/load"
)

// TestAgentRealtime holds that an agent's loops run real-time only where
// the spec asks: never by default, as one process's loops may.
func TestAgentRealtime(t *testing.T) {
	for asked, want := range map[load.Realtime]load.Realtime{
		load.RealtimeAuto: load.RealtimeOff,
		load.RealtimeOn:   load.RealtimeOn,
		load.RealtimeOff:  load.RealtimeOff,
	} {
		if got := agentRealtime(asked); got != want {
			t.Errorf("realtime %s in an agent runs %s; want %s", asked, got, want)
		}
	}
}
