package pktgen_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino"
	"archsim/arch/tofino/pktgen"
	"archsim/components/packet"
	"archsim/components/packet/pooltest"
	"archsim/engine"
	"archsim/programs"
)

// arrival is a generated packet as the ingress saw it.
type arrival struct {
	ps   int64
	port int
	pkt  *packet.Packet
}

// sink records the packets the generator injects (the engine recycles
// events, so fields are copied).
type sink struct {
	*sim.ComponentBase
	got []arrival
}

func (s *sink) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (s *sink) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (s *sink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	s.got = append(s.got, arrival{ev.AtPs(), ev.Port, ev.Pkt})
	return nil
}

// wire is one busy-until time per port (what the switch's ports do).
type wire map[int]int64

func (w wire) Transmit(port int, ready int64, length int, gbps float64) int64 {
	end := max(ready, w[port]) + packet.SerializationPs(length, gbps)
	w[port] = end
	return end
}

// apps loads a small program with the given pktgen section.
func apps(t *testing.T, section string) []*programs.PktgenApp {
	t.Helper()
	data, err := os.ReadFile("../../../programs/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	src = src[:strings.Index(src, "traffic:")] + blockItems(section)
	p, err := programs.Load([]byte(src), "gen.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Pktgen
}

// blockItems turns list items written as flow maps ("  - {a: 1, b: 2}")
// into block maps, so that the template's headers can follow them.
func blockItems(section string) string {
	var out []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "  - {") && strings.HasSuffix(line, "}") {
			kvs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "  - {"), "}"), ", ")
			out = append(out, "  - "+kvs[0])
			for _, kv := range kvs[1:] {
				out = append(out, "    "+kv)
			}
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func newGen(t *testing.T, arch string, sets ...string) (*pktgen.Generator, *engine.Serial, *sink, wire) {
	t.Helper()
	cfg, err := tofino.LoadArch(arch, sets...)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.NewSerial()
	s := &sink{ComponentBase: sim.NewComponentBase("Sink")}
	w := wire{}
	return pktgen.New("Gen", e, cfg, 0, s, w), e, s, w
}

const tmpl = `    headers:
      eth: {dst: 0xFFFFFFFFFFFF, src: 0x0A0B0C0D0E0F, etype: 0x0800}
      ip: {ttl: 64, proto: 17, src: 10.0.0.1, dst: [10.0.0.2, 10.0.0.3]}
`

// A periodic timer fires every period after the enable, one packet each;
// each packet crosses the 100G port (serialization) before ingress, carries
// the 6-byte header (pipe, app, batch, packet) over its first bytes and the
// template's fields after it; the timer stops after untilPs. Events: one per
// trigger plus one arrival per packet.
func TestPeriodicTimer(t *testing.T) {
	g, e, s, _ := newGen(t, "tofino")
	as := apps(t, "pktgen:\n  - {name: tick, app: 3, trigger: periodic, port: 68, timer_ns: 1000, length: 64}\n"+tmpl)
	if len(as) != 1 {
		t.Fatalf("%d apps", len(as))
	}
	if err := g.Configure(as); err != nil {
		t.Fatal(err)
	}
	if err := g.Enable("tick", 0, 5_000_000); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	ser := packet.SerializationPs(64, 100)
	if len(s.got) != 5 {
		t.Fatalf("%d packets, want 5 (triggers at 1..5 us)", len(s.got))
	}
	for k, a := range s.got {
		if want := int64(k+1)*1_000_000 + ser; a.ps != want || a.port != 68 || a.pkt.Len != 64 || a.pkt.InPort != 68 {
			t.Errorf("packet %d at %d ps on port %d, %d B; want %d ps on 68, 64 B", k, a.ps, a.port, a.pkt.Len, want)
		}
		h := a.pkt.Head
		if h[0] != 3 || h[1] != 0 || h[2] != 0 || h[3] != 0 || h[4] != 0 || h[5] != 0 {
			t.Errorf("packet %d: header % x, want pipe 0 app 3 batch 0 packet 0", k, h[:6])
		}
		if h[6] != 0x0A || h[12] != 0x08 || h[13] != 0x00 {
			t.Errorf("packet %d: template bytes after the header % x", k, h[6:14])
		}
		if dst := h[len(h)-1]; dst != byte(2+k%2) {
			t.Errorf("packet %d: ip.dst ends in %d, want the list to cycle", k, dst)
		}
	}
	if got := e.Scheduled(); got != 10 {
		t.Errorf("%d events for 5 packets, want 10 (a trigger and an arrival each)", got)
	}
	if st := g.App("tick").Stats; st.Triggers != 5 || st.Packets != 5 || st.WirePs != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Batches IBG apart, packets IPG apart: ids in the header; packets whose
// IPG is shorter than their serialization wait for the wire (counted).
func TestBatchesAndGaps(t *testing.T) {
	g, e, s, _ := newGen(t, "tofino")
	as := apps(t, "pktgen:\n  - {name: b, trigger: one_shot, port: 64, timer_ns: 100, batches: 2, packets: 3, ibg_ns: 500, ipg_ns: 1, length: 100}\n"+tmpl)
	if err := g.Configure(as); err != nil {
		t.Fatal(err)
	}
	if err := g.Enable("b", 0, -1); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	ser := packet.SerializationPs(100, 100) // 9920 ps > 1 ns IPG
	if len(s.got) != 6 {
		t.Fatalf("%d packets, want 2 x 3", len(s.got))
	}
	for i, a := range s.got {
		b, p := i/3, i%3
		start := 100_000 + int64(b)*500_000
		want := start + int64(p+1)*ser // back to back on the wire
		if a.ps != want {
			t.Errorf("batch %d packet %d at %d ps, want %d", b, p, a.ps, want)
		}
		if h := a.pkt.Head; int(h[3]) != b || int(h[5]) != p {
			t.Errorf("batch %d packet %d: header % x", b, p, h[:6])
		}
	}
	st := g.App("b").Stats
	if want := 2 * (ser - 1000) * 3; st.WirePs != want || st.Triggers != 1 || st.Batches != 2 {
		t.Errorf("stats %+v, want wire wait %d ps", st, want)
	}
}

// 10 Mpps of 64-byte timer packets fit a 100G port; a period shorter than
// a frame's serialization is refused, naming the port's rate.
func TestRateLimit(t *testing.T) {
	g, _, _, _ := newGen(t, "tofino")
	if err := g.Configure(apps(t, "pktgen:\n  - {name: fast, trigger: periodic, port: 68, timer_ns: 100, length: 64}\n"+tmpl)); err != nil {
		t.Fatalf("10 Mpps: %v", err)
	}
	g, _, _, _ = newGen(t, "tofino")
	err := g.Configure(apps(t, "pktgen:\n  - {name: fast, trigger: periodic, port: 68, timer_ns: 5, length: 64}\n"+tmpl))
	if err == nil || !strings.Contains(err.Error(), "tofino.pktgen.port_gbps") || !strings.Contains(err.Error(), "gen.yaml:") {
		t.Fatalf("got %v", err)
	}
	// The same rate at 1000 Gb/s fits.
	g, _, _, _ = newGen(t, "tofino", "tofino.pktgen.port_gbps=1000")
	if err := g.Configure(apps(t, "pktgen:\n  - {name: fast, trigger: periodic, port: 68, timer_ns: 5, length: 64}\n"+tmpl)); err != nil {
		t.Fatal(err)
	}
}

// A port-down trigger writes the port's number in the batch-id field and
// fires each time a port goes down.
func TestPortDown(t *testing.T) {
	g, e, s, _ := newGen(t, "tofino")
	if err := g.Configure(apps(t, "pktgen:\n  - {name: pd, trigger: port_down, port: 70, length: 64}\n"+tmpl)); err != nil {
		t.Fatal(err)
	}
	if err := g.Enable("pd", 0, -1); err != nil {
		t.Fatal(err)
	}
	g.PortDown(261, 1_000_000)
	g.PortDown(5, 2_000_000)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if len(s.got) != 2 {
		t.Fatalf("%d packets", len(s.got))
	}
	for i, port := range []int{261, 5} {
		h := s.got[i].pkt.Head
		if got := int(h[2])<<8 | int(h[3]); got != port {
			t.Errorf("packet %d: port field %d, want %d", i, got, port)
		}
	}
}

// Bad configurations are refused with the program's file:line and the
// limit broken.
func TestBadConfigs(t *testing.T) {
	cases := []struct{ section, want string }{
		{"  - {name: x, trigger: periodic, port: 3, timer_ns: 1000, length: 64}\n", "port 3 is not a packet-generator port of pipe 0"},
		{"  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, length: 64, app: 8}\n", "tofino.pktgen.apps"},
		{"  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, length: 64, offset: 8}\n", "not 16-byte aligned"},
		{"  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, length: 64, offset: 16352}\n", "ends past the 16384-byte buffer"},
		{"  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, length: 16}\n", "tofino.pktgen.min_buffer_bytes"},
		{"  - {name: x, trigger: port_down, port: 68, batches: 2, length: 64}\n", "one batch"},
		{"  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, batches: 3, ibg_ns: 600, length: 64}\n", "longer than the 1000 ns timer"},
	}
	for _, c := range cases {
		g, _, _, _ := newGen(t, "tofino")
		err := g.Configure(apps(t, "pktgen:\n"+c.section+tmpl))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "gen.yaml:") {
			t.Errorf("%s: got %v, want %q", strings.TrimSpace(c.section), err, c.want)
		}
	}
	// Two templates may not overlap; open ids and offsets are assigned.
	g, _, _, _ := newGen(t, "tofino")
	two := "pktgen:\n  - {name: a, trigger: periodic, port: 68, timer_ns: 1000, length: 64}\n" + tmpl +
		"  - {name: b, trigger: periodic, port: 68, timer_ns: 1000, length: 64}\n" + tmpl
	if err := g.Configure(apps(t, two)); err != nil {
		t.Fatal(err)
	}
	if a, b := g.App("a"), g.App("b"); a.ID != 0 || b.ID != 1 || a.Offset != 0 || b.Offset != 64 {
		t.Errorf("ids %d %d, offsets %d %d; want 0 1, 0 64 (58 bytes rounded up to 16)", a.ID, b.ID, a.Offset, b.Offset)
	}
	g, _, _, _ = newGen(t, "tofino")
	clash := "pktgen:\n  - {name: a, trigger: periodic, port: 68, timer_ns: 1000, length: 64, offset: 0}\n" + tmpl +
		"  - {name: b, trigger: periodic, port: 68, timer_ns: 1000, length: 64, offset: 32}\n" + tmpl
	if err := g.Configure(apps(t, clash)); err == nil || !strings.Contains(err.Error(), "overlaps a's") {
		t.Errorf("overlap: %v", err)
	}
	// Tofino 2 has 16 applications.
	g, _, _, _ = newGen(t, "tofino2")
	if err := g.Configure(apps(t, "pktgen:\n  - {name: x, trigger: periodic, port: 68, timer_ns: 1000, length: 64, app: 15}\n"+tmpl)); err != nil {
		t.Errorf("tofino2 app 15: %v", err)
	}
}

// The deadline stops a timer that was enabled without an end.
func TestDeadline(t *testing.T) {
	g, e, s, _ := newGen(t, "tofino")
	if err := g.Configure(apps(t, "pktgen:\n  - {name: t, trigger: periodic, port: 68, timer_ns: 100, length: 64}\n"+tmpl)); err != nil {
		t.Fatal(err)
	}
	g.SetDeadline(1_000_000)
	if err := g.Enable("t", 0, -1); err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	if len(s.got) != 10 {
		t.Errorf("%d packets before a 1 us deadline at 100 ns, want 10", len(s.got))
	}
}

// A generator given a pool takes every packet from it (reusing what the
// switch gave back) and builds the same packets, byte for byte, as one
// that allocates them: same ids, times, lengths and head bytes.
func TestPoolGivesTheSamePackets(t *testing.T) {
	section := "pktgen:\n  - {name: tick, app: 3, trigger: periodic, port: 68, timer_ns: 1000, length: 64}\n" + tmpl
	run := func(pool *pooltest.Reusing) []arrival {
		g, e, s, _ := newGen(t, "tofino")
		if pool != nil {
			g.SetPool(pool)
		}
		if err := g.Configure(apps(t, section)); err != nil {
			t.Fatal(err)
		}
		if err := g.Enable("tick", 0, 6_000_000); err != nil {
			t.Fatal(err)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		// Copy what the packets held before any is reused.
		out := make([]arrival, len(s.got))
		for i, a := range s.got {
			c := *a.pkt
			c.Head = append([]byte(nil), a.pkt.Head...)
			out[i] = arrival{a.ps, a.port, &c}
		}
		return out
	}
	plain := run(nil)
	// A used packet with stale bytes and fields: the generator must
	// overwrite all of them.
	stale := &packet.Packet{ID: 99, Len: 7, Deflected: true, Head: append(make([]byte, 0, 64), 0xEE, 0xEE, 0xEE)}
	pool := &pooltest.Reusing{Free: []*packet.Packet{stale}}
	pooled := run(pool)
	if len(plain) != 6 || len(pooled) != len(plain) {
		t.Fatalf("%d and %d packets, want 6 each", len(plain), len(pooled))
	}
	if pool.Gets != len(pooled) {
		t.Errorf("%d packets from the pool, want all %d", pool.Gets, len(pooled))
	}
	for i := range plain {
		a, b := plain[i], pooled[i]
		if a.ps != b.ps || a.port != b.port || a.pkt.ID != b.pkt.ID || a.pkt.Len != b.pkt.Len || a.pkt.Deflected != b.pkt.Deflected ||
			a.pkt.BornPs != b.pkt.BornPs || string(a.pkt.Head) != string(b.pkt.Head) {
			t.Errorf("packet %d: pooled %+v at %d differs from allocated %+v at %d", i, *b.pkt, b.ps, *a.pkt, a.ps)
		}
	}
}
