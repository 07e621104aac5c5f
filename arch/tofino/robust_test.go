package tofino

import (
	"math/rand"
	"strings"
	"testing"

	"archsim/arch/tofino/compiler"
	"archsim/programs"
)

// TestMutatedProgramsPlaceAndRun: random edits of the built-in programs
// that still load must place (or fail with a placement error) and simulate
// without panicking.
func TestMutatedProgramsPlaceAndRun(t *testing.T) {
	c := chip(t)
	rng := rand.New(rand.NewSource(7))
	names := programs.Builtins()
	n := 300
	if testing.Short() {
		n = 60
	}
	loaded, placed := 0, 0
	for i := 0; i < n; i++ {
		name := names[i%len(names)]
		src, _ := programs.BuiltinSource(name)
		data := mutateLines(rng, string(src))
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("variant %d of %s panicked: %v\n%s", i, name, r, data)
				}
			}()
			prog, err := programs.Load([]byte(data), "mutated.yaml", nil)
			if err != nil {
				return
			}
			loaded++
			p, err := compiler.Place(c, prog)
			if err != nil {
				return
			}
			placed++
			if _, err := measure(c, p, runOptions{Packets: 40, Load: 0.5, Seed: int64(i)}); err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
		}()
	}
	if loaded == 0 || placed == 0 {
		t.Fatalf("mutations too destructive to test anything: %d loaded, %d placed", loaded, placed)
	}
}

func mutateLines(rng *rand.Rand, src string) string {
	lines := strings.Split(src, "\n")
	i := rng.Intn(len(lines))
	switch rng.Intn(3) {
	case 0:
		lines = append(lines[:i], lines[i+1:]...)
	case 1:
		lines = append(lines[:i+1], lines[i:]...)
	case 2:
		j := rng.Intn(len(lines))
		lines[i], lines[j] = lines[j], lines[i]
	}
	return strings.Join(lines, "\n")
}
