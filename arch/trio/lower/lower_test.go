package lower_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"archsim/arch/trio/internal/triotest"
	"archsim/arch/trio/lower"
	"archsim/programs"
)

// The tests share their chip, programs and lowering with the PFE's
// (arch/trio/internal/triotest).
var (
	chipT        = triotest.Config
	prog         = triotest.Program
	lowerT       = triotest.Lower
	ingressInstr = triotest.IngressInstr
)

// TestInstructionPacking checks the per-instruction limits: two writes,
// four register reads, and no use of a result in the instruction that
// computes it.
func TestInstructionPacking(t *testing.T) {
	c := chipT(t)
	cases := []struct {
		name, code string
		want       int
	}{
		{"two independent writes share an instruction", "meta.m0 = 1\nmeta.m1 = 2", 1},
		{"three writes need two", "meta.m0 = 1\nmeta.m1 = 2\nmeta.m2 = 3", 2},
		{"a dependent statement waits for the write-back", "meta.m0 = meta.m1 + 1\nmeta.m2 = meta.m0 + 1", 2},
		{"five register operands exceed four reads", "meta.m0 = meta.m1 + meta.m2 + meta.m3 + meta.m4 + meta.m5", 2},
		{"three local-memory operands exceed two", "meta.m0 = ip.src + ip.dst + bit32(ip.ttl)", 2},
		{"an if ends its instruction; each branch starts one", "meta.m0 = 1\nif meta.m1 == 0 {\nmeta.m2 = 1\n} else {\nmeta.m3 = 1\n}", 3},
	}
	for _, cs := range cases {
		m := lowerT(t, c, prog(t, "", cs.code))
		if got := ingressInstr(m); got != cs.want {
			t.Errorf("%s: %d instructions, want %d", cs.name, got, cs.want)
		}
	}
	// A tighter chip packs less.
	m := lowerT(t, chipT(t, "trio.instr.writes=1"), prog(t, "", "meta.m0 = 1\nmeta.m1 = 2"))
	if got := ingressInstr(m); got != 2 {
		t.Errorf("with one write per instruction: %d instructions, want 2", got)
	}
}

func TestRegisterActionsLowering(t *testing.T) {
	c := chipT(t)
	p := prog(t, `registers:
  r:
    width: 32
    size: 16
    actions:
      add: value = value + 1
      fetch_add:
        do: |
          value = value + 2
          out = value
      cond:
        do: |
          if value > 10 {
            value = 0
          } else {
            value = value + 1
          }
`, "r.add(0)\nmeta.m0 = r.fetch_add(1)\nr.cond(2)")
	m := lowerT(t, c, p)
	check := func(name string, atomic, sync bool, op string) {
		for _, ra := range p.Registers[0].Actions {
			if ra.Name != name {
				continue
			}
			rc := m.RegisterCost(ra)
			if rc.Atomic != atomic || rc.Sync != sync || rc.Op != op {
				t.Errorf("%s: atomic %v sync %v op %s, want %v %v %s", name, rc.Atomic, rc.Sync, rc.Op, atomic, sync, op)
			}
		}
	}
	check("add", true, false, "add")
	check("fetch_add", true, true, "add")
	check("cond", false, true, "read-compute-write")
	if len(m.NonAtomic) != 1 || m.NonAtomic[0] != "r.cond" {
		t.Errorf("non-atomic list %v", m.NonAtomic)
	}
}

func TestLoweringErrors(t *testing.T) {
	// Metadata beyond the registers spills to local memory; too much
	// overflows it.
	big := "metadata: {"
	for i := 0; i < 40; i++ {
		big += fmt.Sprintf("w%d: 64, ", i)
	}
	big += "}\n"
	src := `program: big
headers:
  eth: {dst: 48, src: 48, etype: 16}
` + big + `parser:
  start: s
  states:
    s:
      extract: eth
ingress: "meta.w0 = 1"
`
	p, err := programs.Load([]byte(src), "big.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lower.Lower(chipT(t), p); err != nil {
		t.Errorf("40 x 64 bits spill into local memory and fit: %v", err)
	}
	_, err = lower.Lower(chipT(t, "trio.head_bytes=64", "trio.lmem_bytes=100"), p)
	var le *lower.LoweringError
	if !errors.As(err, &le) || le.Rule != lower.RuleLocalMemory {
		t.Errorf("100 B of local memory for a 14 B head and 96 B of spilled metadata: got %v, want rule %s", err, lower.RuleLocalMemory)
	}
	// Subroutine calls nested deeper than the PPE allows.
	fns := "functions:\n"
	for i := 0; i < 9; i++ {
		body := fmt.Sprintf("f%d()", i+1)
		if i == 8 {
			body = "meta.m0 = 1"
		}
		fns += fmt.Sprintf("  f%d: %q\n", i, body)
	}
	p = prog(t, fns, "f0()")
	_, err = lower.Lower(chipT(t), p)
	if !errors.As(err, &le) || le.Rule != lower.RuleCallDepth || !strings.Contains(err.Error(), "9 deep") {
		t.Errorf("9 nested calls: got %v, want rule %s", err, lower.RuleCallDepth)
	}
	if _, err := lower.Lower(chipT(t, "trio.instr.call_depth=9"), p); err != nil {
		t.Errorf("with depth 9 allowed: %v", err)
	}
}

// TestTimerRate: timers that start more threads per µs than the PFE
// dispatches are refused, naming the rate and the bound; the busiest
// timer's line is given.
func TestTimerRate(t *testing.T) {
	p := prog(t, "timers:\n  tick: {period_ns: 1, threads: 65536, do: \"meta.m0 = 1\"}\n", "meta.m1 = 1")
	_, err := lower.Lower(chipT(t), p)
	var le *lower.LoweringError
	if !errors.As(err, &le) || le.Rule != lower.RuleTimers || le.Pos.Line == 0 ||
		!strings.Contains(err.Error(), "the timers start 6.554e+07 threads per µs; the PFE dispatches at most 1000 per µs") {
		t.Fatalf("65536 threads every 1 ns: got %v, want rule %s with the rate and the bound", err, lower.RuleTimers)
	}
	// 1000 threads every µs is the dispatcher's whole rate: allowed.
	p = prog(t, "timers:\n  tick: {period_ns: 1000, threads: 1000, do: \"meta.m0 = 1\"}\n", "meta.m1 = 1")
	if _, err := lower.Lower(chipT(t), p); err != nil {
		t.Errorf("1000 threads every 1000 ns: %v", err)
	}
	if _, err := lower.Lower(chipT(t, "trio.clock_mhz=500"), p); err == nil {
		t.Errorf("1000 threads every 1000 ns on a 500 MHz PFE: accepted")
	}
}
