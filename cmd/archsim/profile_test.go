package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProfilesOfRefusedInput: --cpuprofile and --memprofile files are
// written when the command ran (exit 0 or 1) and removed when it refused
// its input (exit 2), so a rejected run leaves nothing behind.
func TestProfilesOfRefusedInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err  error
		kept bool
	}{{nil, true}, {&exitError{code: 1, msg: "does not fit"}, true}, {&exitError{code: 2, msg: "bad"}, false}} {
		p := profiler{cpuFile: filepath.Join(dir, "cpu.prof"), memFile: filepath.Join(dir, "mem.prof")}
		if err := p.start(); err != nil {
			t.Fatal(err)
		}
		p.finish(c.err)
		for _, f := range []string{p.cpuFile, p.memFile} {
			_, err := os.Stat(f)
			if kept := err == nil; kept != c.kept {
				t.Errorf("%v: %s kept %v, want %v", c.err, f, kept, c.kept)
			}
			os.Remove(f)
		}
	}
}
