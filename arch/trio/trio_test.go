package trio

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/trio/internal/triotest"
	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/components/packet"
	"archsim/configs"
	"archsim/programs"
)

// The tests share their chip, programs and lowering with the lowering's
// (arch/trio/internal/triotest).
var (
	chipT        = triotest.Config
	prog         = triotest.Program
	progSized    = triotest.ProgramSized
	lowerT       = triotest.Lower
	ingressInstr = triotest.IngressInstr
)

// run measures one program with a few packets.
func run(t testing.TB, c *spec.Config, p *programs.Program, n int, load float64) *RunResult {
	t.Helper()
	r, err := measure(c, lowerT(t, c, p), runOptions{Packets: n, Load: load, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// counterReg is a register whose action counts and returns the count;
// slowAtTTL64 sends every packet to port 1, and one with TTL 64 only after
// three reads of it (a slow thread).
const (
	counterReg = `registers:
  r:
    width: 32
    size: 16
    actions:
      get:
        do: |
          value = value + 1
          out = value
`
	slowAtTTL64 = `if ip.ttl == 64 {
meta.m0 = r.get(0)
meta.m1 = r.get(1)
meta.m2 = r.get(2)
}
std.egress_port = 1`
)

// TestLatencyIsDerived checks a lone packet's time in the PFE against the
// model's parts: dispatch, the instructions at D cycles each, the
// synchronous transactions' round trips, and the reorder release.
func TestLatencyIsDerived(t *testing.T) {
	c := chipT(t)
	p := prog(t, counterReg, "meta.m0 = r.get(0)\nmeta.m1 = r.get(1)")
	r := run(t, c, p, 1, 0.01)
	m := lowerT(t, c, p)
	instr := 2 /* parse states */ + ingressInstr(m) + 1 /* hand-off */
	want := c.DispatchNs + float64(instr*c.Instr.Cycles)*c.CyclePs()/1000 + 2*(c.SMem.SRAMLatencyNs+float64(c.SMem.AddCycles)*c.CyclePs()/1000)
	if got := r.Ingress.LatencyNs.Mean; got < want-1 || got > want+1 {
		t.Errorf("latency %.1f ns, want %.1f (dispatch %v + %d instructions x %d cycles + 2 RMW round trips)", got, want, c.DispatchNs, instr, c.Instr.Cycles)
	}
	if r.Ingress.XTXNPerPacket["rmw"] != 2 {
		t.Errorf("xtxn per packet %v", r.Ingress.XTXNPerPacket)
	}
	// The latency follows the clock and the memory.
	slow := run(t, chipT(t, "trio.clock_mhz=500", "trio.smem.sram_latency_ns=140"), p, 1, 0.01)
	if slow.Ingress.LatencyNs.Mean <= r.Ingress.LatencyNs.Mean*1.5 {
		t.Errorf("half the clock and twice the SRAM latency: %.0f ns vs %.0f ns", slow.Ingress.LatencyNs.Mean, r.Ingress.LatencyNs.Mean)
	}
}

// TestLoopsCostPerIteration: a loop runs as many times as it iterates; its
// post statement and branch ride on the body's last instruction when they
// fit (two writes per instruction here).
func TestLoopsCostPerIteration(t *testing.T) {
	c := chipT(t)
	cost := func(body string, n int) float64 {
		code := fmt.Sprintf("meta.m1 = 0\nfor meta.m0 = 0; meta.m0 < %d; meta.m0++ {\n%s\n}", n, body)
		return run(t, c, prog(t, "", code), 5, 0.1).Ingress.Instructions.Mean
	}
	// One write in the body: the increment fits beside it.
	if d := cost("meta.m1 = meta.m1 + meta.m0", 20) - cost("meta.m1 = meta.m1 + meta.m0", 10); d != 10 {
		t.Errorf("10 more iterations of a one-write body cost %.1f instructions, want 10", d)
	}
	// Two writes in the body: the increment needs an instruction of its own.
	two := "meta.m1 = meta.m1 + meta.m0\nmeta.m2 = meta.m0"
	if d := cost(two, 20) - cost(two, 10); d != 20 {
		t.Errorf("10 more iterations of a two-write body cost %.1f instructions, want 20", d)
	}
}

// TestRMWEngineBound: every packet adds to the same cell, so one engine
// serialises them: the saturation rate is one packet per add_cycles.
func TestRMWEngineBound(t *testing.T) {
	c := chipT(t)
	p := prog(t, `registers:
  r:
    width: 32
    size: 1
    actions:
      add: value = value + 1
`, "r.add(0)\nr.add(0)\nr.add(0)\nr.add(0)")
	s, err := saturate(c, lowerT(t, c, p), 4000, 1, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := 1e3 / float64(4*c.SMem.AddCycles) // Mpps at 1 GHz: 4 adds x 2 cycles per packet
	if s.RateMpps > want*1.05 || s.RateMpps < want*0.8 || !strings.HasPrefix(s.Binding, "rmw-engines") || s.HotEngine < 0.95 {
		t.Errorf("rate %.1f Mpps bound by %s (hottest engine %.0f %%), want ≈ %.1f bound by rmw-engines", s.RateMpps, s.Binding, 100*s.HotEngine, want)
	}
	// Spreading the adds over cells on different engines lifts the bound.
	p2 := prog(t, `registers:
  r:
    width: 32
    size: 4096
    actions:
      add: value = value + 1
`, "r.add(0)\nr.add(8)\nr.add(16)\nr.add(24)")
	s2, err := saturate(c, lowerT(t, c, p2), 4000, 1, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s2.RateMpps < 2*s.RateMpps {
		t.Errorf("adds spread over four engines: %.1f Mpps, one engine %.1f", s2.RateMpps, s.RateMpps)
	}
}

// TestReorderKeepsFlowOrder: packets of one flow leave in arrival order
// even when a later one finishes first.
func TestReorderKeepsFlowOrder(t *testing.T) {
	c := chipT(t)
	p := prog(t, counterReg, slowAtTTL64)
	m := lowerT(t, c, p)
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(m).WithSeed(1).Build("Trio.PFE")
	var order []uint64
	pfe.onDeliver = func(pkt *packet.Packet) { order = append(order, pkt.ID) }
	slowHead := p.Traffic[0].BuildPacket(0, 64)
	fastHead := append([]byte(nil), slowHead...)
	fastHead[14] = 63 // ip.ttl: the fast path
	pfe.Inject(&packet.Packet{ID: 1, Flow: 7, Head: slowHead, Len: 64}, 0)
	pfe.Inject(&packet.Packet{ID: 2, Flow: 7, Head: fastHead, Len: 64}, 1000)
	pfe.Inject(&packet.Packet{ID: 3, Flow: 8, Head: fastHead, Len: 64}, 1000)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(order) != "[3 1 2]" {
		t.Errorf("delivery order %v, want [3 1 2]: flow 7's fast packet waits for its slow predecessor, flow 8's does not", order)
	}
}

// TestReorderCreatedPackets: packets a switch made (Flow -1) are one flow
// of the reorder engine by default (a fast one waits for a slow one before
// it) and, with trio.reorder_created=own_flow, each their own (the fast
// one leaves when its thread ends); a bad value is a config error.
func TestReorderCreatedPackets(t *testing.T) {
	for _, c := range []struct{ set, want string }{{"trio.reorder_created=one_flow", "[1 2]"}, {"trio.reorder_created=own_flow", "[2 1]"}} {
		chip := chipT(t, c.set)
		p := prog(t, counterReg, slowAtTTL64)
		engine := newEngine()
		pfe := MakeBuilder().WithEngine(engine).WithConfig(chip).WithMicrocode(lowerT(t, chip, p)).WithSeed(1).Build("Trio.PFE")
		var order []uint64
		pfe.onDeliver = func(pkt *packet.Packet) { order = append(order, pkt.ID) }
		slowHead := p.Traffic[0].BuildPacket(0, 64)
		fastHead := append([]byte(nil), slowHead...)
		fastHead[14] = 63 // ip.ttl: the fast path
		pfe.Inject(&packet.Packet{ID: 1, Flow: -1, Head: slowHead, Len: 64}, 0)
		pfe.Inject(&packet.Packet{ID: 2, Flow: -1, Head: fastHead, Len: 64}, 1000)
		if err := engine.Run(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(order) != c.want {
			t.Errorf("%s: delivery order %v, want %s", c.set, order, c.want)
		}
	}
	l, err := configs.Load(configs.Source{Base: []string{"trio5.yaml"}, Sets: []string{"trio.reorder_created=some"}})
	if err == nil {
		_, err = spec.LoadConfig(l)
	}
	if err == nil || !strings.Contains(err.Error(), `trio.reorder_created: "some" is not one_flow or own_flow`) {
		t.Errorf("reorder_created=some: %v", err)
	}
}

// TestThreadsRunOut: with few threads, heads wait for one.
func TestThreadsRunOut(t *testing.T) {
	c := chipT(t, "trio.ppes=1", "trio.threads_per_ppe=2")
	p := prog(t, "", "meta.m0 = 1")
	r := run(t, c, p, 200, 1)
	if r.Ingress.WaitNs.Max <= 0 {
		t.Errorf("2 threads at line rate: no head waited (max wait %.1f ns)", r.Ingress.WaitNs.Max)
	}
	if r.Delivered+droppedSum(r) != r.Offered {
		t.Errorf("conservation: offered %d, delivered %d, dropped %d", r.Offered, r.Delivered, droppedSum(r))
	}
}

func droppedSum(r *RunResult) int {
	n := 0
	for _, d := range r.Drops {
		n += d.Packets
	}
	return n
}

// TestBuiltinsRunOnTrio: every built-in program lowers and runs; every
// offered packet is delivered or dropped with a reason; the same seed
// gives the same result.
func TestBuiltinsRunOnTrio(t *testing.T) {
	c := chipT(t)
	for _, name := range programs.Builtins() {
		p, err := programs.Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := lower.Lower(c, p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		r, err := measure(c, m, runOptions{Packets: 600, Load: 0.5, Seed: 3})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r.Delivered+droppedSum(r)+r.Replicated != r.Offered+r.Copies+r.Emitted {
			t.Errorf("%s: offered %d + copies %d, delivered %d, dropped %v, replicated %d", name, r.Offered, r.Copies, r.Delivered, r.Drops, r.Replicated)
		}
		if m.StaticInstr <= 0 || r.Ingress.Instructions.Mean <= 0 {
			t.Errorf("%s: %d static, %.1f per packet", name, m.StaticInstr, r.Ingress.Instructions.Mean)
		}
		r2, _ := measure(c, lowerT(t, c, mustResolve(t, name)), runOptions{Packets: 600, Load: 0.5, Seed: 3})
		if fmt.Sprint(r.Ingress, r.Egress, r.Drops) != fmt.Sprint(r2.Ingress, r2.Egress, r2.Drops) {
			t.Errorf("%s: two runs with the same seed differ", name)
		}
	}
}

func mustResolve(t testing.TB, name string) *programs.Program {
	p, err := programs.Resolve(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newEngine() *packet.CountingEngine {
	return &packet.CountingEngine{Engine: sim.NewSerialEngine()}
}

// TestTimerThreads: K threads of a timer start staggered by period/K, each
// scanning its share of a table; they take PPE threads like packets do.
func TestTimerThreads(t *testing.T) {
	c := chipT(t)
	p := prog(t, `registers:
  ref:
    width: 8
    size: 1024
    actions:
      clear:
        do: |
          out = value
          value = 0
timers:
  scan:
    period_ns: 10000
    threads: 4
    do: |
      for meta.m0 = 0; meta.m0 < 256; meta.m0++ {
        meta.m1 = bit32(ref.clear(bit32(std.timer_index) * 256 + meta.m0))
      }
`, "meta.m2 = 1")
	m := lowerT(t, c, p)
	found := false
	for _, b := range m.Blocks {
		if strings.HasPrefix(b.Name, "timer scan (4 threads every 10000 ns)") {
			found = b.Instr > 0
		}
	}
	if !found {
		t.Errorf("no timer block in %v", m.Blocks)
	}
	// Packets over 100 us: the timer starts 4 threads every 10 us.
	r, err := measure(c, m, runOptions{Packets: 100, Load: 0.0005, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Timers == nil {
		t.Fatal("no timer runs")
	}
	last := r.LastArrival // timers run until the last packet arrives
	if want := 4 * (int(last/10000) + 1); r.Timers.Runs < want-4 || r.Timers.Runs > want {
		t.Errorf("%d timer runs in %.0f ns, want ≈ 4 per 10 us", r.Timers.Runs, last)
	}
	// Each run scans 256 cells: one synchronous RMW round trip per cell.
	perRun := 256 * (c.SMem.SRAMLatencyNs + float64(m.EngineCycles("swap", 8))*c.CyclePs()/1000)
	if d := r.Timers.DurationNs.Mean; d < perRun || d > 2*perRun {
		t.Errorf("a scan of 256 cells took %.0f ns, want ≥ %.0f (256 synchronous SRAM round trips)", d, perRun)
	}
}

// TestPayloadTailFetches: words of the packet beyond its 192-byte head are
// fetched in 64-byte chunks, once per chunk.
func TestPayloadTailFetches(t *testing.T) {
	c := chipT(t)
	code := "meta.m1 = 0\nfor meta.m0 = 0; meta.m0 < 200; meta.m0++ {\nmeta.m1 = meta.m1 + payload32(meta.m0)\n}"
	r := run(t, c, progSized(t, "", code, 1024), 4, 0.1)
	// Payload starts after Ethernet (14 B) and ip (10 B): words 0..199 are
	// bytes 24..823; those from 192 on span chunks 0..9 of the tail.
	if got := r.Ingress.XTXNPerPacket["tail_fetch"]; got != 10 {
		t.Errorf("%.1f tail fetches per packet, want 10", got)
	}
	short := run(t, c, progSized(t, "", code, 128), 4, 0.1)
	if got := short.Ingress.XTXNPerPacket["tail_fetch"]; got != 0 {
		t.Errorf("a 128-byte packet fits its head: %.1f tail fetches", got)
	}
	// A lone packet waits for each fetch's round trip (DRAM latency) and
	// for nothing else the short one does not (the same instructions).
	// A fetch splits the loop's instructions in two segments, and costs
	// that one event: the segment before it wakes at the fetch's reply.
	long1, short1 := run(t, c, progSized(t, "", code, 1024), 1, 0.01), run(t, c, progSized(t, "", code, 128), 1, 0.01)
	if d, want := long1.Ingress.LatencyNs.Mean-short1.Ingress.LatencyNs.Mean, 10*c.SMem.DRAMLatencyNs; d < want-1 || d > want+1 {
		t.Errorf("ten tail fetches add %.1f ns to a lone packet, want %.1f (10 x the DRAM latency)", d, want)
	}
	if d := long1.Events - short1.Events; d != 10 {
		t.Errorf("ten tail fetches cost %d events, want 10 (one segment each)", d)
	}
}

// TestMulticast: a packet sent to a group leaves once on every port of
// the group, and the accounting balances.
func TestMulticast(t *testing.T) {
	c := chipT(t)
	p := prog(t, `multicast_groups:
  7: [1, 2, 3]
`, "std.mcast_grp = 7")
	r := run(t, c, p, 10, 0.1)
	if r.Copies != 30 || r.Replicated != 10 || r.Delivered != 30 {
		t.Errorf("copies %d, replicated %d, delivered %d; want 30, 10, 30", r.Copies, r.Replicated, r.Delivered)
	}
}

// TestEmit: threads create packets: a packet thread sends an extra one,
// a timer sends one per run.
func TestEmit(t *testing.T) {
	c := chipT(t)
	p := prog(t, `timers:
  beacon:
    period_ns: 10000
    do: |
      eth.setValid()
      eth.etype = 0x88b5
      std.egress_port = 2
      std.packet_length = 100
      emit()
`, `std.egress_port = 1
emit()
std.egress_port = 3`)
	m := lowerT(t, c, p)
	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(m).WithSeed(1).Build("Trio.PFE")
	got := map[int][]int{}
	pfe.onDeliver = func(pkt *packet.Packet) { got[pkt.OutPort] = append(got[pkt.OutPort], pkt.Len) }
	head := p.Traffic[0].BuildPacket(0, 64)
	pfe.Inject(&packet.Packet{ID: 1, Flow: 1, Head: head, Len: 64}, 0)
	pfe.StartTimers(25_000_000) // ps: runs at 0, 10 and 20 us
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got[1]) != "[64]" || fmt.Sprint(got[3]) != "[64]" || fmt.Sprint(got[2]) != "[100 100 100]" {
		t.Errorf("delivered by port %v; want the packet on 3, its emitted copy on 1, three 100-byte timer packets on 2", got)
	}
	if pfe.Stats.Emitted != 4 {
		t.Errorf("%d packets created, want 4", pfe.Stats.Emitted)
	}
}

// TestEmitPayloadChunks: a packet thread emits a packet whose payload is
// 1024 cells of a 32-bit register, 4096 bytes. The copy loop moves
// xtxn.result_chunk_bytes = 256 B per iteration: 4096 / 256 = 16 chunks,
// each read from the shared memory in 256 / xtxn.max_bytes = 256 / 64 = 4
// synchronous reads and written to the packet buffer once: 16 × 4 = 64
// reads and 16 packet-buffer writes per packet.
func TestEmitPayloadChunks(t *testing.T) {
	c := chipT(t)
	if c.XTXN.ResultChunkBytes != 256 || c.XTXN.MaxBytes != 64 {
		t.Fatalf("result_chunk_bytes %d, max_bytes %d: the test assumes 256 and 64", c.XTXN.ResultChunkBytes, c.XTXN.MaxBytes)
	}
	regs := `registers:
  aggr:
    width: 32
    size: 1024
    init: 0x01020304
    actions:
      add: value = value + meta.m0
`
	p := prog(t, regs, "std.egress_port = 1\nemit(aggr, 0, 1024)\nstd.egress_port = 3")
	plain := prog(t, regs, "std.egress_port = 1\nemit()\nstd.egress_port = 3")
	m, mp := lowerT(t, c, p), lowerT(t, c, plain)
	if m.XTXNSites["read"] != 1 || m.XTXNSites["pmem_write"] != 1 || mp.XTXNSites["read"] != 0 {
		t.Errorf("transaction sites %v (plain emit() %v), want one read and one pmem_write site", m.XTXNSites, mp.XTXNSites)
	}
	if d := m.StaticInstr - mp.StaticInstr; d < lower.BulkLoopInstr {
		t.Errorf("the copy loop adds %d static instructions, want ≥ %d", d, lower.BulkLoopInstr)
	}

	engine := newEngine()
	pfe := MakeBuilder().WithEngine(engine).WithConfig(c).WithMicrocode(m).WithSeed(1).Build("Trio.PFE")
	got := map[int][]*packet.Packet{}
	pfe.onDeliver = func(pkt *packet.Packet) { got[pkt.OutPort] = append(got[pkt.OutPort], pkt) }
	head := p.Traffic[0].BuildPacket(0, 64)
	pfe.Inject(&packet.Packet{ID: 1, Flow: 1, Head: head, Len: 64}, 0)
	if err := engine.Run(); err != nil {
		t.Fatal(err)
	}
	if len(got[1]) != 1 || len(got[3]) != 1 || got[3][0].Len != 64 {
		t.Fatalf("delivered %v; want the packet on 3 and the created one on 1", got)
	}
	// Ethernet (14 B) and ip (10 B) are valid: 24 B of headers.
	e := got[1][0]
	if e.Len != 24+4096 || len(e.Head) != 24+4096 || !bytes.Equal(e.Head[:24], head[:24]) {
		t.Errorf("created packet: %d bytes (%d held), want 24 + 4096", e.Len, len(e.Head))
	}
	if want := bytes.Repeat([]byte{1, 2, 3, 4}, 1024); !bytes.Equal(e.Head[24:], want) {
		t.Errorf("created packet's payload is not the register's cells big-endian")
	}
	if r, w := pfe.Stats.XTXN[0][lower.XRead], pfe.Stats.XTXN[0][lower.XPMEM]; r != 64 || w != 16 {
		t.Errorf("%d reads and %d packet-buffer writes, want 64 and 16", r, w)
	}

	// Over a run: per packet the same transactions; the thread waits once
	// per 256-byte chunk (its four reads are issued back to back, the
	// thread waits for the last), so at least 16 SRAM round trips and at
	// least 16 x 5 issue instructions; every packet and every created one
	// is accounted for.
	r := run(t, c, p, 20, 0.1)
	if x := r.Ingress.XTXNPerPacket; x["read"] != 64 || x["pmem_write"] != 16 {
		t.Errorf("transactions per packet %v, want read 64, pmem_write 16", x)
	}
	instrNs := float64(c.Instr.Cycles) * 1000 / c.ClockMHz
	if floor := 16 * (c.SMem.SRAMLatencyNs + 5*instrNs); r.Ingress.ThreadNs < floor {
		t.Errorf("thread time %.0f ns, want ≥ %.0f (16 chunk waits on SRAM and 5 issue instructions per chunk)", r.Ingress.ThreadNs, floor)
	}
	if ceil := 64 * (c.SMem.SRAMLatencyNs + 5*instrNs); r.Ingress.ThreadNs > ceil {
		t.Errorf("thread time %.0f ns, above %.0f: the chunk's reads are not pipelined", r.Ingress.ThreadNs, ceil)
	}
	if r.Emitted != r.Offered || r.Delivered+droppedSum(r)+r.Replicated != r.Offered+r.Copies+r.Emitted {
		t.Errorf("conservation: offered %d + copies %d + created %d, delivered %d, dropped %v, replicated %d",
			r.Offered, r.Copies, r.Emitted, r.Delivered, r.Drops, r.Replicated)
	}
	// The range is clipped to the register: from cell 1000, 24 cells
	// (96 B) remain: one chunk of two reads (64 + 32 B).
	clip := run(t, c, prog(t, regs, "std.egress_port = 1\nemit(aggr, 1000, 1024)"), 4, 0.1)
	if x := clip.Ingress.XTXNPerPacket; x["read"] != 2 || x["pmem_write"] != 1 {
		t.Errorf("clipped copy: transactions per packet %v, want read 2, pmem_write 1", x)
	}
}

// TestPortsBeyond: ndp's traffic enters on ports 0-3 and 8 and its tables
// send to 4-7 and 9 (Tofino's numbering); on a 4-port PFE the run names
// the ports the chip does not have, and a program that stays within them
// names none.
func TestPortsBeyond(t *testing.T) {
	c := chipT(t)
	r := run(t, c, mustResolve(t, "ndp"), 200, 0.1)
	want := &PortsBeyond{Ports: c.Ports, In: []int{8}, Out: []int{4, 5, 6, 7, 9}}
	if !reflect.DeepEqual(r.PortsBeyond, want) {
		t.Errorf("ports beyond the PFE: %+v, want %+v", r.PortsBeyond, want)
	}
	inside := prog(t, "", "std.egress_port = std.ingress_port")
	if r := run(t, c, inside, 20, 0.1); r.PortsBeyond != nil {
		t.Errorf("a program that forwards back out of its ingress port: %+v beyond the PFE's %d ports", r.PortsBeyond, c.Ports)
	}
	for _, c := range []struct {
		in   []int
		want string
	}{{[]int{4, 5, 6, 7, 9}, "4-7, 9"}, {[]int{8}, "8"}, {[]int{1, 3, 4}, "1, 3-4"}} {
		if got := portRanges(c.in); got != c.want {
			t.Errorf("portRanges(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
