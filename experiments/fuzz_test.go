package experiments

import (
	"os"
	"path/filepath"
	"testing"

	"archsim/configs"
)

// FuzzScenario feeds arbitrary scenario files to the loader (and the
// expansion into runs): each must load or be refused with an error, never
// panic. Seeds are the built-in scenarios, the test scenarios and the
// corpus in testdata/fuzz/FuzzScenario.
func FuzzScenario(f *testing.F) {
	for _, n := range configs.Scenarios() {
		data, err := configs.Read("scenarios/" + n + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if data, err := os.ReadFile("testdata/line.yaml"); err == nil {
		f.Add(data)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			if s != nil {
				t.Fatal("a scenario with an error")
			}
			return
		}
		if _, err := s.specs(s.Seed); err != nil {
			return
		}
	})
}
