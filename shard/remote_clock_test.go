package shard

import (
	"context"
	"testing"

	"github.com/latlab/latlab/remote"
	"github.com/latlab/latlab/remote/remotetest"
)

// TestRemoteClock reads an agent's clock: on one machine its offset is
// within the bound the exchanges give, whatever their round trips.
func TestRemoteClock(t *testing.T) {
	url, _, _ := remotetest.StartAgent(t, &remote.Agent{})
	rm := &remote.Client{Token: remotetest.Token, URL: url}
	var samples []remote.ClockSample
	for range 5 {
		s, err := rm.Clock(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s.Shard.Before(s.Sent.Round(0)) || s.Shard.After(s.Received.Round(0)) {
			t.Errorf("the agent read its clock at %s, outside the exchange %s to %s", s.Shard, s.Sent, s.Received)
		}
		samples = append(samples, s)
	}
	off, bound, ok := Offset(samples)
	if !ok || off < -bound || off > bound {
		t.Errorf("offset %s ± %s, %t; want within its bound of 0", off, bound, ok)
	}
	if _, err := (&remote.Client{Token: remotetest.Token, URL: url + "/nowhere"}).Clock(context.Background()); err == nil {
		t.Error("a clock from a URL that has none: no error")
	}
}
