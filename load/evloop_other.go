//go:build !linux

package load

// loopsSupported: event loops need epoll.
const loopsSupported = false

// engine is the open loop on event loops, which only Linux has.
type engine struct{}

func newEngine(*Config, Options) (*engine, error) { return nil, nil }

func (*engine) run(*runner, Open, func()) {}

func (*engine) close() {}

func (*engine) settle(Source) {}

func (*engine) preopened() int64 { return 0 }
