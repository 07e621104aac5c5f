package configs_test

import (
	"os"
	"path/filepath"
	"testing"

	"archsim/arch/tofino/spec"
	"archsim/configs"
)

// TestIntegerSettings: a decimal for an integer setting is refused (from
// --set and from a --config file, naming file:line), an integral one is
// the integer.
func TestIntegerSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(file, []byte("tofino:\n  mau:\n    stages: 2.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	octal := filepath.Join(dir, "o.yaml")
	if err := os.WriteFile(octal, []byte("tofino:\n  mau:\n    stages: 012\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(src configs.Source) (*spec.Config, error) {
		src.Base = []string{"tofino.yaml"}
		l, err := configs.Load(src)
		if err != nil {
			return nil, err
		}
		return spec.LoadConfig(l)
	}
	for _, c := range []struct {
		src  configs.Source
		want string
	}{
		{configs.Source{Sets: []string{"tofino.mau.stages=2.5"}}, "--set tofino.mau.stages=2.5: must be an integer, got 2.5"},
		{configs.Source{UserFile: file}, file + ":3: tofino.mau.stages: must be an integer, got 2.9"},
		{configs.Source{Sets: []string{"tofino.mau.stages=[1]"}}, "--set tofino.mau.stages=[1]: expected an integer, got a list"},
		{configs.Source{Sets: []string{"tofino.sonic.dscp_modes=[1,2]"}}, "--set tofino.sonic.dscp_modes=[1,2]: tofino.sonic.dscp_modes[0]: expected a string, got an integer"},
		{configs.Source{Sets: []string{"tofino.sonic.dscp_modes=5"}}, "--set tofino.sonic.dscp_modes=5: expected a list, got an integer"},
		{configs.Source{Sets: []string{"tofino.mau.stages=012"}}, "--set tofino.mau.stages=012: 012 has a leading zero, which YAML reads as octal; write 12 (or 0o12 for octal)"},
		{configs.Source{Sets: []string{"tofino.mau.stages=09"}}, "--set tofino.mau.stages=09: 09 has a leading zero; write 9"},
		{configs.Source{UserFile: octal}, octal + ":3: tofino.mau.stages: 012 has a leading zero, which YAML reads as octal; write 12 (or 0o12 for octal)"},
	} {
		_, err := load(c.src)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.src, err, c.want)
		}
	}
	cfg, err := load(configs.Source{Sets: []string{"tofino.mau.stages=3.0"}})
	if err != nil || cfg.MAU.Stages != 3 {
		t.Fatalf("stages=3.0: %v, %v", cfg, err)
	}
}
