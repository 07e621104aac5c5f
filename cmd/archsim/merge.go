package main

import (
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"archsim/experiments"
)

// newMergeCmd combines the shard files of `archsim run --shard i/n` (run
// on one machine or many) into what the unsharded run prints and writes.
func newMergeCmd(out io.Writer) *cobra.Command {
	var outDir string
	var asJSON, noFiles bool
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Combine the outputs of run --shard i/n (directories or shard-i-of-n.json files) into the whole run's summary, CSVs and plots",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if noFiles && cmd.Flags().Changed("out") {
				return &exitError{code: 2, msg: "--out names where the files go, and --no-files writes none"}
			}
			var shards []*experiments.Shard
			for _, a := range args {
				paths, err := experiments.FindShards(a)
				if err != nil {
					return &exitError{code: 2, msg: oneLine(err.Error())}
				}
				for _, p := range paths {
					sh, err := experiments.ReadShard(p)
					if err != nil {
						return &exitError{code: 2, msg: oneLine(err.Error())}
					}
					shards = append(shards, sh)
				}
			}
			res, err := experiments.MergeShards(shards)
			if err != nil {
				return &exitError{code: 2, msg: "merge: " + oneLine(err.Error())}
			}
			var files []string
			if !noFiles {
				if outDir == "" {
					outDir = filepath.Join("results", res.Name)
				}
				if err := checkOutDir("--out", outDir); err != nil {
					return err
				}
				if files, err = res.WriteFiles(outDir); err != nil {
					return &exitError{code: 1, msg: oneLine(err.Error())}
				}
			}
			return printScenario(out, res, files, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&outDir, "out", "", "directory for CSV and PNG files (default results/<scenario>)")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.BoolVar(&noFiles, "no-files", false, "do not write CSV/PNG files")
	return cmd
}
