//go:build !linux

package load

// loopsSupported: event loops need epoll.
const loopsSupported = false

// engine is the load on event loops, which only Linux has.
type engine struct{}

func newEngine(*Config, Model, Options) (*engine, error) { return nil, nil }

func (*engine) run(*runner, Model, func()) {}

func (*engine) runs(Model) bool { return false }

func (*engine) threads() int { return 0 }

func (*engine) close() {}

func (*engine) settle(Source) {}

func (*engine) preopened() int64 { return 0 }
