package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkOutDir refuses, before any simulation, an output directory the
// command could not write into at the end: its nearest existing ancestor
// must be a directory in which one can be made. The probe directory is
// removed, so nothing is left behind (a run that fails later leaves no
// empty results directory either).
func checkOutDir(flag, dir string) error {
	bad := func(why string) error {
		return &exitError{code: 2, msg: fmt.Sprintf("%s %s: cannot write there: %s", flag, dir, why)}
	}
	at := filepath.Clean(dir)
	for {
		st, err := os.Stat(at)
		if err == nil {
			if !st.IsDir() {
				return bad(at + " is not a directory")
			}
			break
		}
		if !os.IsNotExist(err) {
			return bad(oneLine(err.Error()))
		}
		parent := filepath.Dir(at)
		if parent == at {
			return bad(oneLine(err.Error()))
		}
		at = parent
	}
	probe, err := os.MkdirTemp(at, ".archsim-probe-")
	if err != nil {
		return bad(oneLine(err.Error()))
	}
	return os.Remove(probe)
}
