package main

import "github.com/spf13/cobra"

// oneArg checks that a command got exactly one argument, what it names:
// "ls takes one results database, got 2 arguments".
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("%s takes one %s, got %d arguments", cmd.Name(), what, len(args))
		}
		return nil
	}
}

// completeDB offers the .db files to a shell completing a command's
// argument.
func completeDB(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"db"}, cobra.ShellCompDirectiveFilterFileExt
}
