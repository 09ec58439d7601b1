package main

import (
	"errors"

	"github.com/latlab/latlab/load"
)

// conflicts finds flags that the rest of the command line makes
// meaningless, and options that cannot work with the requests (see
// load.Check): each would otherwise be ignored, or fail every request of
// the run, so the attack is refused before anything is sent.
func (f *attackFlags) conflicts(set func(string) bool, cfg load.Config) error {
	if f.Targets != "" || f.Scenario != "" {
		file := "targets"
		if f.Scenario != "" {
			file = "scenario"
		}
		for _, option := range load.Excludes(file) {
			if fl := requestFlag(option); fl != "" && set(fl) {
				return usagef("%s: the --%s file gives the requests; drop %s", flagName(fl), file, flagName(fl))
			}
		}
	}
	h2 := f.HTTP2 || f.H2C
	switch {
	case set("streams") && !h2:
		return usagef("--streams: streams are HTTP/2's; give --http2 or --h2c too")
	case set("client") && h2:
		return usagef("--client picks the HTTP/1.1 client; HTTP/2 always goes through Go's http2")
	case f.NoKeepAlive && h2:
		return usagef("--no-keepalive: HTTP/2 multiplexes requests on connections it keeps; drop --no-keepalive")
	case set("connections") && f.sequential:
		return usagef("--connections: --sequential uses one connection")
	case set("seed") && f.Arrivals != load.PoissonArrivals:
		return usagef("--seed seeds Poisson arrivals: give --arrivals poisson too")
	}
	if err := load.Check(cfg.Source, cfg.Transport, f.TLSFiles()); err != nil {
		var oe *load.OptionError
		if errors.As(err, &oe) {
			if oe.Option == "insecure" { // ab's -k
				oe.Msg += " (-k is --insecure here; keep-alive is on unless --no-keepalive)"
			}
			return usagef("--%s: %s", oe.Option, oe.Msg)
		}
		return usageError{err}
	}
	return nil
}

// requestFlag returns the flag of option, one of load.RequestOptions, or
// "" when it has none.
func requestFlag(option string) string {
	switch option {
	case "method", "body":
		return option
	case "headers":
		return "header"
	case "body_file":
		return "body-file"
	}
	return ""
}

// flagName spells a flag as the user may have typed it.
func flagName(name string) string {
	switch name {
	case "method":
		return "-m"
	case "header":
		return "-H"
	case "body":
		return "-b"
	}
	return "--" + name
}
