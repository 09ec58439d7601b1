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
	var given []string
	for _, option := range []string{"streams", "client", "connections", "seed"} {
		if set(option) && (option != "streams" || !speaksGRPC(cfg.Source)) { // the flag is named as the option; gRPC has streams too
			given = append(given, option)
		}
	}
	if err := load.First(f.Conflicts(given...)); err != nil {
		return optionError(err)
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

// speaksGRPC reports whether the requests of src are gRPC calls, whose
// connections have streams as HTTP/2's do.
func speaksGRPC(src load.Source) bool {
	st, ok := src.(load.Static)
	for i := 0; ok && i < len(st); i++ {
		if st[i].URL != nil && (st[i].URL.Scheme == "grpc" || st[i].URL.Scheme == "grpcs") {
			return true
		}
	}
	return false
}
