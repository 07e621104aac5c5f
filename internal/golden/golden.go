// Package golden compares test output with recorded golden files: what
// users saw when the golden was recorded. A difference fails the test with
// the first differing line; -update (a flag each test package declares)
// rewrites the file, to be reviewed as a diff.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with the golden file at path, or rewrites the file
// when update is set.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden:\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// FirstDiff shows the first line where two texts differ.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return "(same lines, different bytes)"
}
