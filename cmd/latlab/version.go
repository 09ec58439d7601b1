package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// make build stamps git describe's answer.
var version = "dev"

func newVersion(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print latlab's version, commit and Go version",
		Long: `Print what latlab knows of the build it is: the version stamped at build
time (make build stamps git describe's answer) or the module's version, the
commit it was built from with its time and whether the tree had uncommitted
changes, and the Go version. A binary built with -buildvcs=false or outside
a git checkout records no commit, and says so. latlab --version prints the
same.`,
		Example: "  latlab version\n  latlab --version",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments, got %q", args[0])
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			_, err := io.WriteString(stdout, versionText())
			return err
		},
	}
}

// versionText describes this binary's build.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return describeBuild(version, bi, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
}

// describeBuild says what the build info bi (nil when the binary carries
// none) and the stamped version v record, and what they do not.
func describeBuild(v string, bi *debug.BuildInfo, goVersion string) string {
	var b strings.Builder
	if v == "dev" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "dev" {
		v = "dev (no version stamped at build time)"
	}
	fmt.Fprintf(&b, "latlab %s\n", v)
	settings := map[string]string{}
	if bi != nil {
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	rev := settings["vcs.revision"]
	switch {
	case rev == "":
		b.WriteString("commit:  unknown: built without version control information (-buildvcs=false, or not in a git checkout)\n")
	default:
		line := "commit:  " + rev
		if t := settings["vcs.time"]; t != "" {
			line += ", committed " + t
		}
		switch settings["vcs.modified"] {
		case "true":
			line += ", with uncommitted changes"
		case "false":
			line += ", clean tree"
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "go:      %s\n", goVersion)
	return b.String()
}
