package programs

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary program files to the loader: it must return a
// program or an error, never panic. Seeds are the built-in programs.
func FuzzLoad(f *testing.F) {
	for _, n := range Builtins() {
		data, _ := BuiltinSource(n)
		f.Add(data)
	}
	f.Add([]byte("program: x\nparser: {states: {s: {}}}\ningress: \"\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(data, "fuzz.yaml", nil)
		if err == nil && p == nil {
			t.Fatal("nil program without error")
		}
	})
}

// TestMutatedProgramsNeverPanic edits built-in programs at random (seeded):
// deletes, duplicates and replaces bytes and lines. The loader must answer
// every variant with a program or a one-line error.
func TestMutatedProgramsNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	names := Builtins()
	n := 600
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		src, _ := BuiltinSource(names[i%len(names)])
		data := mutate(rng, append([]byte(nil), src...))
		func() {
			defer func() {
				if r := recover(); r != nil {
					os.WriteFile(filepath.Join(t.TempDir(), "crash.yaml"), data, 0o644)
					t.Fatalf("variant %d of %s panicked: %v", i, names[i%len(names)], r)
				}
			}()
			p, err := Load(data, "mutated.yaml", nil)
			if err == nil && p == nil {
				t.Fatal("nil program without error")
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
		}()
	}
}

func mutate(rng *rand.Rand, data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	for k := 0; k < 1+rng.Intn(3); k++ {
		i := rng.Intn(len(lines))
		switch rng.Intn(5) {
		case 0: // delete a line
			lines = append(lines[:i], lines[i+1:]...)
		case 1: // duplicate a line
			lines = append(lines[:i+1], lines[i:]...)
		case 2: // swap two lines
			j := rng.Intn(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
		case 3: // replace a byte
			if l := lines[i]; len(l) > 0 {
				b := []byte(l)
				b[rng.Intn(len(b))] = " -:{}[]0xz.|_9\"'"[rng.Intn(16)]
				lines[i] = string(b)
			}
		case 4: // cut a line short
			if l := lines[i]; len(l) > 1 {
				lines[i] = l[:rng.Intn(len(l))]
			}
		}
	}
	return []byte(strings.Join(lines, "\n"))
}
