package trio

import (
	"testing"

	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/components/packet"
	"archsim/programs"
)

// clearRun lowers p, fills register 0 with 1, 2, 3, ..., sends one
// packet and returns the PFE after the run.
func clearRun(t *testing.T, c *spec.Config, p *programs.Program) *PFE {
	t.Helper()
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(lowerT(t, c, p)).WithSeed(1).Build("Trio.PFE")
	for i := 0; i < pfe.State().Regs[0].Len(); i++ {
		pfe.State().Regs[0].Set(i, int64(i+1))
	}
	pfe.Inject(&packet.Packet{ID: 1, Flow: 1, Head: p.Traffic[0].BuildPacket(0, 64), Len: 64}, 0)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	return pfe
}

// TestClearWrites: Trio-ML empties a block's aggregation buffer, 1024
// 32-bit cells (4096 B), with clear(). The shared memory's largest write
// is xtxn.max_bytes = 64 B, so the reset is 4096 / 64 = 64 asynchronous
// writes, and with one transaction per instruction 64 more issue
// instructions than the same program without it; afterwards every cell
// reads 0. A clipped range writes only what remains of the register.
func TestClearWrites(t *testing.T) {
	c := chipT(t)
	if c.XTXN.MaxBytes != 64 || c.Instr.XTXNPerInstr != 1 || lower.BulkLoopInstr != 2 {
		t.Fatalf("max_bytes %d, xtxn_per_instr %d, BulkLoopInstr %d: the test assumes 64, 1 and 2", c.XTXN.MaxBytes, c.Instr.XTXNPerInstr, lower.BulkLoopInstr)
	}
	regs := `registers:
  aggr:
    width: 32
    size: 1024
    actions:
      add: value = value + meta.m0
`
	p := prog(t, regs, "std.egress_port = 1\nclear(aggr, 0, 1024)")
	plain := prog(t, regs, "std.egress_port = 1")
	m, mp := lowerT(t, c, p), lowerT(t, c, plain)
	if m.XTXNSites["write"] != 1 || mp.XTXNSites["write"] != 0 {
		t.Errorf("transaction sites %v (without clear %v), want one write site", m.XTXNSites, mp.XTXNSites)
	}
	if d := m.StaticInstr - mp.StaticInstr; d < lower.BulkLoopInstr {
		t.Errorf("the write loop adds %d static instructions, want ≥ %d", d, lower.BulkLoopInstr)
	}

	pfe, pp := clearRun(t, c, p), clearRun(t, c, plain)
	if w := pfe.Stats.XTXN[0][lower.XWrite]; w != 64 {
		t.Errorf("%d writes, want 64 (4096 B in 64-byte transactions)", w)
	}
	for i, v := range pfe.State().Regs[0].Values() {
		if v != 0 {
			t.Fatalf("aggr[%d] = %d after clear(), want 0", i, v)
		}
	}
	if pp.State().Regs[0].Get(1023) != 1024 {
		t.Fatal("the register was not filled")
	}
	in, inPlain := pfe.Stats.Instr[0].Summarize(1).Mean, pp.Stats.Instr[0].Summarize(1).Mean
	if in-inPlain != 64 {
		t.Errorf("%.0f instructions, %.0f without clear(): want 64 issue instructions more", in, inPlain)
	}

	// The writes are asynchronous: the thread pays for issuing them, not
	// for 64 round trips to the shared memory.
	r, rp := run(t, c, p, 10, 0.1), run(t, c, plain, 10, 0.1)
	if x := r.Ingress.XTXNPerPacket; x["write"] != 64 {
		t.Errorf("transactions per packet %v, want write 64", x)
	}
	instrNs := float64(c.Instr.Cycles) * 1000 / c.ClockMHz
	d := r.Ingress.ThreadNs - rp.Ingress.ThreadNs
	if d < 64*instrNs || d >= 64*instrNs+64*c.SMem.SRAMLatencyNs/2 {
		t.Errorf("clear() adds %.0f ns of thread time, want ≥ %.0f (64 issue instructions) and well below 64 SRAM round trips", d, 64*instrNs)
	}

	// Clipped: from cell 1000, 24 cells (96 B) remain: a write of 64 B and
	// one of 32 B, one iteration of the loop; cells before 1000 keep their
	// values.
	clip := clearRun(t, c, prog(t, regs, "std.egress_port = 1\nclear(aggr, 1000, 1024)"))
	if w := clip.Stats.XTXN[0][lower.XWrite]; w != 2 {
		t.Errorf("clipped: %d writes, want 2", w)
	}
	if in := clip.Stats.Instr[0].Summarize(1).Mean; in-inPlain != lower.BulkLoopInstr {
		t.Errorf("clipped: %.0f instructions, %.0f without clear(): want %d more", in, inPlain, lower.BulkLoopInstr)
	}
	for i, v := range clip.State().Regs[0].Values() {
		if want := map[bool]int64{true: int64(i + 1), false: 0}[i < 1000]; v != want {
			t.Fatalf("clipped: aggr[%d] = %d, want %d", i, v, want)
		}
	}
	// An empty range costs nothing beyond its operands.
	none := clearRun(t, c, prog(t, regs, "std.egress_port = 1\nclear(aggr, 0, meta.m7)"))
	if w := none.Stats.XTXN[0][lower.XWrite]; w != 0 || none.State().Regs[0].Get(0) != 1 {
		t.Errorf("empty range: %d writes, aggr[0] = %d; want none and 1", w, none.State().Regs[0].Get(0))
	}

	// Cells narrower than a byte count as a byte each: 100 1-bit cells
	// are 100 B, two writes.
	flags := prog(t, "registers:\n  flags:\n    width: 1\n    size: 100\n    init: 1\n    actions:\n      rd: out = value\n",
		"std.egress_port = 1\nclear(flags, 0, 100)")
	fl := clearRun(t, c, flags)
	if w := fl.Stats.XTXN[0][lower.XWrite]; w != 2 {
		t.Errorf("1-bit cells: %d writes, want 2", w)
	}
	if v := fl.State().Regs[0].Get(99); v != 1 {
		t.Errorf("1-bit cells: flags[99] = %d after clear(), want its init 1", v)
	}
}
