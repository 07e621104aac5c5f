package arch_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"archsim/arch"
	_ "archsim/arch/chips"
	"archsim/programs"
)

// The registry lists the built-in chips in order, finds them by name and
// says which names exist when one does not.
func TestRegistry(t *testing.T) {
	if got := arch.Names(); got != "tofino, tofino2, trio, trio5, trio6, ideal" {
		t.Errorf("registered: %s", got)
	}
	if _, err := arch.Lookup("tofino2"); err != nil {
		t.Error(err)
	}
	if _, err := arch.Lookup("nope"); err == nil || !strings.Contains(err.Error(), `unknown architecture "nope" (available: tofino,`) {
		t.Errorf("unknown chip: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice must panic")
		}
	}()
	c, _ := arch.Lookup("trio")
	arch.Register(c)
}

// Knobs map chip-neutral names to each chip's keys; a knob a chip does not
// have is an error naming the chip's knobs; a knob's value is checked like
// any config value, and the error names the knob's origin.
func TestKnobs(t *testing.T) {
	tofino, _ := arch.Lookup("tofino")
	if _, err := tofino.Load(arch.Overrides{Knobs: []arch.KnobValue{{Knob: arch.KnobStages, Value: "10", Origin: "--stages"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := tofino.Load(arch.Overrides{Knobs: []arch.KnobValue{{Knob: arch.KnobStages, Value: "0", Origin: "--stages"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "--stages: tofino.mau.stages = 0 is out of range") {
		t.Errorf("out-of-range knob: %v", err)
	}
	trio, _ := arch.Lookup("trio")
	_, err = trio.Load(arch.Overrides{Knobs: []arch.KnobValue{{Knob: arch.KnobStages, Value: "10", Origin: "--stages"}}})
	if err == nil || err.Error() != "--stages: --arch trio has no stages knob (its knobs: clock_mhz; use --set KEY=VALUE)" {
		t.Errorf("missing knob: %v", err)
	}
	// --set wins over a knob.
	tt, err := tofino.Load(arch.Overrides{Knobs: []arch.KnobValue{{Knob: arch.KnobStages, Value: "10", Origin: "--stages"}}, Sets: []string{"tofino.mau.stages=14"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tt.Compile(mustProgram(t, "ndp"))
	if err != nil || !strings.HasSuffix(c.Structure, "of 14 MAU stages") {
		t.Errorf("--set over a knob: %q, %v", c.Structure, err)
	}
}

// A program that breaks a rule compiles to Fits false with the rule, its
// place in the program and a one-line refusal.
func TestCompiledRefusal(t *testing.T) {
	tofino, _ := arch.Lookup("tofino")
	tt, _ := tofino.Load(arch.Overrides{})
	c, err := tt.Compile(mustProgram(t, "pie-rfc"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Fits || c.Rule != "stage-local-memory" || c.Pos.Line == 0 || !strings.HasPrefix(c.Refusal, "pie-rfc does not fit Tofino 1: ") || strings.Contains(c.Refusal, "\n") {
		t.Errorf("fits %v, rule %q, pos %v, refusal %q", c.Fits, c.Rule, c.Pos, c.Refusal)
	}
	if _, err := tt.Compile(nil); err == nil {
		t.Error("Tofino without a program must be an error")
	}
	ideal, _ := arch.Lookup("ideal")
	it, _ := ideal.Load(arch.Overrides{})
	if c, err := it.Compile(nil); err != nil || !c.Fits {
		t.Errorf("the ideal switch needs no program: %v %v", c, err)
	}
	c, _ = it.Compile(mustProgram(t, "ndp"))
	if c.Fits || c.Rule != "no-program" {
		t.Errorf("a program on the ideal switch: fits %v rule %q", c.Fits, c.Rule)
	}
	var buf bytes.Buffer
	rep := it.Report(c, nil, 1)
	rep.WriteTables(&buf)
	b, _ := json.Marshal(rep.JSON())
	if !strings.Contains(string(b), `"feasible":false`) || !strings.Contains(string(b), `"rule":"no-program"`) || !strings.Contains(buf.String(), "ndp on Ideal") {
		t.Errorf("report %s / %s", b, buf.String())
	}
}

// The control plane writes tables, registers and reads counters in every
// unit of a switch's state.
func TestStateControl(t *testing.T) {
	p := mustProgram(t, "ndp")
	cp := &arch.StateControl{Prog: p, States: []*programs.State{programs.NewState(p), programs.NewState(p)}}
	r := p.Registers[0]
	if err := cp.WriteRegister(r.Name, 1, 5); err != nil {
		t.Fatal(err)
	}
	for i, st := range cp.States {
		if st.Regs[r.Index].Get(1) != r.Type.Norm(5) {
			t.Errorf("unit %d: register not written", i)
		}
	}
	if v, err := cp.ReadRegister(r.Name, 1); err != nil || v != r.Type.Norm(5) {
		t.Errorf("read %d, %v", v, err)
	}
	if _, err := cp.ReadRegister(r.Name, r.Size); err == nil {
		t.Error("an index past the register must be an error")
	}
	if err := cp.WriteRegister("nope", 0, 1); err == nil {
		t.Error("an unknown register must be an error")
	}
	set, err := p.RouteEntries([]int{7})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.WriteTable(set.Table, set.Entries); err != nil {
		t.Fatal(err)
	}
	if err := cp.WriteTable("nope", nil); err == nil {
		t.Error("an unknown table must be an error")
	}
	var nc arch.NoControl
	if err := nc.WriteTable("t", nil); err == nil || nc.Program() != nil {
		t.Error("a switch without a program has no tables")
	}
}

func TestSortedDrops(t *testing.T) {
	got := arch.SortedDrops(map[string]int{"b": 2, "a": 1, "c": 3})
	if len(got) != 3 || got[0].Reason != "a" || got[2].Reason != "c" || got[1].Packets != 2 {
		t.Errorf("%v", got)
	}
}

func mustProgram(t *testing.T, name string) *programs.Program {
	t.Helper()
	p, err := programs.Resolve(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
