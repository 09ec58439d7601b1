package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/latlab/latlab/spec"
)

func newSpec(stdout io.Writer) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Every key a spec file takes, with its type, default and an example",
		Long: `spec prints every key an experiment spec (latlab run SPEC) takes, section
by section: its type, its default, what it does, the keys it needs or
excludes, and an example. --markdown prints the same as Markdown, as
docs/spec.md holds it.`,
		Example: "  latlab spec\n  latlab spec --markdown > docs/spec.md",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("spec takes no arguments, got %q", args[0])
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return spec.WriteSpecReference(stdout, markdown)
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the reference as Markdown, as docs/spec.md holds it")
	return cmd
}
