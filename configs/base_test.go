package configs

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spf13/viper"
)

// TestCachedBases: a load from the decoded-once embedded files has the
// settings and origins that reading the files into viper has, and one
// Loaded's later merges and overrides do not leak into the next.
func TestCachedBases(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "u.yaml")
	if err := os.WriteFile(user, []byte("tofino:\n  mau:\n    stages: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	direct := func(t *testing.T, src Source) map[string]any {
		v := viper.New()
		v.SetConfigType("yaml")
		for i, name := range src.Base {
			data, err := Read(name)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				err = v.ReadConfig(bytes.NewReader(data))
			} else {
				err = v.MergeConfig(bytes.NewReader(data))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if src.UserFile != "" {
			data, _ := os.ReadFile(src.UserFile)
			if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
		}
		for _, kv := range src.Values {
			v.Set(kv.Key, parseValue(kv.Value))
		}
		return v.AllSettings()
	}
	var sources []Source
	for _, name := range []string{"ideal.yaml", "tofino.yaml", "trio5.yaml", "aggregation.yaml", "controlplane.yaml", "pie.yaml", "rdma.yaml", "tcp.yaml"} {
		sources = append(sources, Source{Base: []string{name}})
	}
	sources = append(sources,
		Source{Base: []string{"tofino.yaml", "tofino2.yaml"}},
		Source{Base: []string{"trio5.yaml", "trio6.yaml"}},
		Source{Base: []string{"tofino.yaml"}, UserFile: user},
		Source{Base: []string{"tofino.yaml", "tofino2.yaml"}, UserFile: user, Values: []Value{{Key: "tofino.mau.stages", Value: "7", Origin: "--stages"}}},
	)
	for round := 0; round < 2; round++ { // the second round reads the cache
		for _, src := range sources {
			l, err := Load(src)
			if err != nil {
				t.Fatalf("%v: %v", src.Base, err)
			}
			got, want := l.V.AllSettings(), direct(t, src)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round %d, %v (user %q): settings differ from viper reading the files", round, src.Base, src.UserFile)
			}
		}
	}
	l, err := Load(Source{Base: []string{"tofino.yaml", "tofino2.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Origin("tofino.mau.stages"); got == "" || got == "configs/tofino.yaml" {
		t.Errorf("origin of tofino.mau.stages: %q, want a file:line", got)
	}
}
