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
	return describeBuild(version, buildInfo(), runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
}

// latlabVersion is the version provenance records: the stamped or module
// version, and the commit when the build recorded one.
func latlabVersion() string {
	b := readBuild(version, buildInfo())
	if rev := b.settings["vcs.revision"]; rev != "" {
		return b.version + " " + rev
	}
	return b.version
}

// buildInfo is this binary's build info, or nil when it carries none.
func buildInfo() *debug.BuildInfo {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi
	}
	return nil
}

// build is what a binary records of its build: its version (the stamped
// v, else the module's, else "dev") and its build settings by key.
type build struct {
	version  string
	settings map[string]string
}

func readBuild(v string, bi *debug.BuildInfo) build {
	b := build{version: v, settings: map[string]string{}}
	if bi == nil {
		return b
	}
	if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		b.settings[s.Key] = s.Value
	}
	return b
}

// describeBuild says what the build info bi (nil when the binary carries
// none) and the stamped version v record, and what they do not.
func describeBuild(v string, bi *debug.BuildInfo, goVersion string) string {
	var b strings.Builder
	build := readBuild(v, bi)
	v, settings := build.version, build.settings
	if v == "dev" {
		v = "dev (no version stamped at build time)"
	}
	fmt.Fprintf(&b, "latlab %s\n", v)
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
