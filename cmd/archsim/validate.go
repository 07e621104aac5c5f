package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newValidateCmd(out io.Writer) *cobra.Command {
	return &cobra.Command{Use: "validate", Short: "Check the model against the papers' claims", RunE: func(*cobra.Command, []string) error {
		return &exitError{code: 2, msg: "validate: not built yet"}
	}}
}
