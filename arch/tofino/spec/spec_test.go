package spec

import (
	"strings"
	"testing"

	"archsim/configs"
)

func TestConfigs(t *testing.T) {
	l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	if c.MAU.Stages != 12 || c.MAU.SRAMBlocks != 80 || c.MAU.MeterALUs != 4 || c.ClockMHz != 1250 {
		t.Fatalf("tofino.yaml decoded wrong: %+v", c.MAU)
	}
	l, err = configs.Load(configs.Source{Base: []string{"tofino.yaml", "tofino2.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	if c2.MAU.Stages != 20 || !c2.Features.IngressQueueVisibility || c2.MAU.SRAMBlocks != 80 {
		t.Fatalf("tofino2.yaml must override stages and features and keep the rest: %+v", c2.MAU)
	}
	for _, bad := range []struct{ set, want string }{
		{"tofino.mau.stages=0", "out of range"},
		{"tofino.alu.multiply=sometimes", "pow2_constant or any"},
		{"tofino.features.early_read_late_write=maybe", "true or false"},
	} {
		l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml"}, Sets: []string{bad.set}})
		if err == nil {
			_, err = LoadConfig(l)
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "--set") {
			t.Errorf("--set %s: %v", bad.set, err)
		}
	}
}
