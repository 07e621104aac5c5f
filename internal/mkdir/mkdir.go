// Package mkdir makes output directories so that a command that fails can
// take back exactly the directories it made, and no directory that was
// there before.
package mkdir

import (
	"os"
	"path/filepath"
)

// All is os.MkdirAll(dir, 0o755) that also returns the directories it
// created, deepest first (none when dir existed).
func All(dir string) ([]string, error) {
	var missing []string
	for at := filepath.Clean(dir); ; {
		if _, err := os.Stat(at); err == nil || !os.IsNotExist(err) {
			break
		}
		missing = append(missing, at)
		parent := filepath.Dir(at)
		if parent == at {
			break
		}
		at = parent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// Undo removes directories All made, deepest first, each only if it is
// empty (anything written into them since stays, with its parents). One
// already gone (another run that made it too took it back) is passed.
func Undo(made []string) {
	for _, d := range made {
		if err := os.Remove(d); err != nil && !os.IsNotExist(err) {
			return
		}
	}
}
