package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func newVersion(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print latlab's version",
		Example: "  latlab version",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments, got %q", args[0])
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			v, rev := version, ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
					v = bi.Main.Version
				}
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						rev = " " + s.Value
					}
				}
			}
			_, err := fmt.Fprintf(stdout, "latlab %s%s %s %s/%s\n", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
