package main

import (
	"archsim/internal/tables"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"archsim/validation"
)

func newValidateCmd(out io.Writer) *cobra.Command {
	var only []string
	var asJSON, quiet, full bool
	var seedOffset int64
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Run every validation claim against the papers' numbers (exit 1 if any fails)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if seedOffset < 0 || seedOffset > 1_000_000 {
				return &exitError{code: 2, msg: fmt.Sprintf("--seed-offset %d: must be 0..1000000", seedOffset)}
			}
			batchGC()
			ctx := validation.NewContext()
			ctx.SeedOffset = seedOffset
			ctx.Long = true
			ctx.Full = full
			pg := startProgress(cmd, quiet)
			ctx.Progress = pg.Writer()
			results, err := runClaims(ctx, only, pg)
			pg.Stop()
			if err != nil {
				return &exitError{code: 2, msg: err.Error()}
			}
			failedN, skippedN := 0, 0
			for _, r := range results {
				switch {
				case r.Skipped:
					skippedN++
				case !r.Pass:
					failedN++
				}
			}
			if skippedN == len(results) {
				return &exitError{code: 2, msg: fmt.Sprintf("every claim --only %s selects is a long one: add --full (about 15 minutes more on 2 cores)", strings.Join(only, ","))}
			}
			if asJSON {
				if err := writeJSON(out, results); err != nil {
					return err
				}
			} else {
				var buf bytes.Buffer
				t := tables.New(&buf, "ID", "Source", "Expected", "Measured", "Tolerance", "Result")
				for _, r := range results {
					res := "pass"
					switch {
					case r.Skipped:
						res = "not run"
					case !r.Pass:
						res = "FAIL"
						if _, ok := validation.KnownDeviations[r.ID]; ok {
							res = "FAIL (known)"
						}
					}
					measured := r.Measured
					if r.Err != "" {
						measured = "error: " + r.Err
					}
					t.Row(r.ID, r.Source, r.Expected, measured, r.Tolerance, res)
				}
				t.Render()
				fmt.Fprintf(&buf, "\n%d claims, %d pass, %d fail", len(results), len(results)-failedN-skippedN, failedN)
				if skippedN > 0 {
					fmt.Fprintf(&buf, ", %d not run (--full)", skippedN)
				}
				fmt.Fprintln(&buf)
				if failedN > 0 {
					fmt.Fprintln(&buf, "\nNotes on failing claims:")
					for _, r := range results {
						if r.Pass || r.Skipped {
							continue
						}
						note := r.Note
						if why, ok := validation.KnownDeviations[r.ID]; ok {
							note = why + " (" + note + ")"
						}
						fmt.Fprintf(&buf, "  %s: %s\n", r.ID, note)
					}
				}
				if _, err := out.Write(buf.Bytes()); err != nil {
					return err
				}
			}
			if failedN > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these claims: ids or prefixes, e.g. pie.table3 (repeatable or comma-separated)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON list of results")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress on stderr (there is none when stderr is not a terminal)")
	cmd.Flags().Int64Var(&seedOffset, "seed-offset", 0, "run every scenario at its seed + N (0..1000000; a what-if for how much the verdicts hang on the seed: the claims' own extra seeds shift with it; the Trio aggregation and placement claims keep theirs)")
	cmd.Flags().BoolVar(&full, "full", false, "also run the long claims (pie.tcp.*: the PIE paper's 10 s TCP runs; protego.fct.*: a second of flows one at a time): about 15 minutes more on 2 cores")
	return cmd
}

// runClaims runs the claims --only selects one at a time, showing each
// on the progress display (with one, the results are RunWith's).
func runClaims(ctx *validation.Context, only []string, pg *progress) ([]validation.Result, error) {
	if pg != nil {
		ctx.Status = func(i, n int, what string) {
			if i == 0 {
				pg.Status("validate: %s (%d runs)", what, n)
				return
			}
			pg.Status("validate [%d/%d] %s", i, n, what)
		}
	}
	return validation.RunSome(ctx, only)
}
