package mkdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAllUndo(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "a"), 0o755)
	made, err := All(filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a", "b", "c"), filepath.Join(root, "a", "b")}
	if len(made) != 2 || made[0] != want[0] || made[1] != want[1] {
		t.Fatalf("made %v, want %v", made, want)
	}
	Undo(made)
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !os.IsNotExist(err) {
		t.Error("a/b made by All is still there")
	}
	if _, err := os.Stat(filepath.Join(root, "a")); err != nil {
		t.Error("a, there before, is gone")
	}
	// A directory something was written into stays, and so do its parents.
	made, _ = All(filepath.Join(root, "x", "y"))
	os.WriteFile(filepath.Join(root, "x", "keep"), []byte("k"), 0o644)
	Undo(made)
	if _, err := os.Stat(filepath.Join(root, "x", "keep")); err != nil {
		t.Error("a file written into a made directory is gone")
	}
	if made, _ := All(root); len(made) != 0 {
		t.Errorf("an existing directory reported made: %v", made)
	}
}

// Two runs that made overlapping directories take them back in either
// order: the one that finds its deepest directory gone still removes
// the parents it made.
func TestUndoPastAGoneDirectory(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "out", "records")
	made, err := All(deep)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(deep) // another run's Undo
	Undo(made)
	if _, err := os.Stat(filepath.Join(root, "out")); !os.IsNotExist(err) {
		t.Errorf("%s left behind", filepath.Join(root, "out"))
	}
}
