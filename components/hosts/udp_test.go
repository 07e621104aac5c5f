package hosts

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/engine"
)

// udpRig is a UDP source wired straight to a sink (no switch).
type udpRig struct {
	eng  *engine.Serial
	src  *UDPSource
	sink *UDPSink
	at   []int64 // arrival times at the sink
}

func newUDPRig(t *testing.T, cfg UDPConfig, deadline int64) *udpRig {
	t.Helper()
	r := &udpRig{eng: engine.NewSerial()}
	b := MakeBuilder().WithEngine(r.eng).WithHost(0, 0).WithDeadline(deadline)
	r.sink = b.BuildUDPSink("Sink")
	r.sink.OnReceive(func(now int64, _ *packet.Packet) { r.at = append(r.at, now) })
	src, err := b.WithUplink(r.sink).BuildUDP("Src", cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.src = src
	return r
}

func (r *udpRig) run(t *testing.T) {
	t.Helper()
	r.src.Start()
	if err := r.eng.Run(); err != nil {
		t.Fatal(err)
	}
}

func baseUDP() UDPConfig {
	return UDPConfig{NICGbps: 100, PropPs: 1000, RateGbps: 10, Src: HostIP(0), Dst: HostIP(1), SrcPort: 5000, DstPort: 9}
}

// A 1500-byte IP packet is a 1514-byte frame: (1514+24) x 8 bits at
// 10 Gb/s is 1 230 400 ps between frames; in 1 ms (first packet at 0,
// last at or before 1 ms) that is floor(1e9 / 1 230 400) + 1 = 813 frames,
// and the achieved rate (wire bits incl. preamble/IFG) is 10 Gb/s to
// within the last partial gap.
func TestUDPRateAccuracy(t *testing.T) {
	const ms = int64(1e9)
	r := newUDPRig(t, baseUDP(), ms)
	r.run(t)
	const gap = 1_230_400
	if packet.SerializationPs(1514, 10) != gap {
		t.Fatalf("gap %d", packet.SerializationPs(1514, 10))
	}
	if r.src.Sent != 813 || r.sink.Packets != 813 || r.sink.Bytes != 813*1514 {
		t.Fatalf("sent %d received %d bytes %d, want 813 / %d", r.src.Sent, r.sink.Packets, r.sink.Bytes, 813*1514)
	}
	// Each frame arrives one NIC serialization (at 100 Gb/s: 123 040 ps)
	// plus the propagation after it was sent.
	for i, a := range r.at {
		if want := int64(i)*gap + 123_040 + 1000; a != want {
			t.Fatalf("frame %d at %d, want %d", i, a, want)
		}
	}
	gbps := float64(r.sink.Packets*(1514+24)*8) / float64(r.at[len(r.at)-1]-r.at[0]+gap) * 1000
	if gbps < 9.999 || gbps > 10.001 {
		t.Fatalf("rate %g Gb/s", gbps)
	}
}

// A scheduled change from 100 to 5 Gb/s at T: frames before T are one
// 100 Gb/s gap apart; the first after T leaves one 5 Gb/s gap after the
// last one (it is later than T), and the rest are 5 Gb/s gaps apart.
func TestUDPScheduledRateChange(t *testing.T) {
	cfg := baseUDP()
	cfg.RateGbps = 100
	const T = 10_000_000 // 10 us
	cfg.Schedule = []RateChange{{AtPs: T, Gbps: 5}}
	r := newUDPRig(t, cfg, 100_000_000)
	r.run(t)
	g100, g5 := packet.SerializationPs(1514, 100), packet.SerializationPs(1514, 5)
	lat := packet.SerializationPs(1514, 100) + 1000
	var sends []int64
	for _, a := range r.at {
		sends = append(sends, a-lat)
	}
	k := 0
	for k < len(sends) && sends[k] <= T {
		if sends[k] != int64(k)*g100 {
			t.Fatalf("frame %d sent at %d before the change, want %d", k, sends[k], int64(k)*g100)
		}
		k++
	}
	if k != int(T/g100)+1 {
		t.Fatalf("%d frames before the change, want %d", k, T/g100+1)
	}
	last := sends[k-1]
	for i := k; i < len(sends); i++ {
		if want := last + int64(i-k+1)*g5; sends[i] != want {
			t.Fatalf("frame %d sent at %d after the change, want %d", i, sends[i], want)
		}
	}
	if r.src.RateGbps() != 5 {
		t.Fatalf("rate %g", r.src.RateGbps())
	}
}

// SetRateGbps from a callback (the sink's 100th frame) takes effect at
// once: the next frame leaves at max(now, last + new gap); a raise to a
// faster rate is not held back by the old, slower gap.
func TestUDPSetRateFromCallback(t *testing.T) {
	cfg := baseUDP()
	cfg.RateGbps = 1
	r := newUDPRig(t, cfg, 200_000_000)
	var changedAt int64 = -1
	r.sink.OnReceive(func(now int64, _ *packet.Packet) {
		r.at = append(r.at, now)
		if len(r.at) == 10 {
			changedAt = now
			if err := r.src.SetRateGbps(now, 50); err != nil {
				t.Error(err)
			}
		}
	})
	r.run(t)
	g1, g50 := packet.SerializationPs(1514, 1), packet.SerializationPs(1514, 50)
	lat := packet.SerializationPs(1514, 100) + 1000
	lastSend := r.at[9] - lat
	// At 1 Gb/s the 11th frame would leave at lastSend + g1; now it leaves
	// at max(changedAt, lastSend + g50) = changedAt (the 50 Gb/s gap has
	// already passed when the 10th frame arrives).
	if want := max(changedAt, lastSend+g50); r.at[10]-lat != want {
		t.Fatalf("11th frame sent at %d, want %d (old schedule %d)", r.at[10]-lat, want, lastSend+g1)
	}
	for i := 11; i < len(r.at); i++ {
		if d := r.at[i] - r.at[i-1]; d != g50 {
			t.Fatalf("gap %d after the change: %d, want %d", i, d, g50)
		}
	}
	// Pausing (rate 0) stops the source.
	r2 := newUDPRig(t, baseUDP(), 200_000_000)
	r2.sink.OnReceive(func(now int64, _ *packet.Packet) {
		r2.at = append(r2.at, now)
		if len(r2.at) == 5 {
			_ = r2.src.SetRateGbps(now, 0)
		}
	})
	r2.run(t)
	// Frames already sent when the 5th arrives (sent before now) still arrive.
	if r2.sink.Packets > 6 || r2.sink.Packets < 5 {
		t.Fatalf("paused source delivered %d frames", r2.sink.Packets)
	}
}

// Batching sends the same frames at the same times with fewer events.
func TestUDPBatchSameTimes(t *testing.T) {
	a := newUDPRig(t, baseUDP(), 1e9)
	a.run(t)
	cfg := baseUDP()
	cfg.Batch = 16
	b := newUDPRig(t, cfg, 1e9)
	b.run(t)
	if len(a.at) != len(b.at) {
		t.Fatalf("%d vs %d frames", len(a.at), len(b.at))
	}
	for i := range a.at {
		if a.at[i] != b.at[i] {
			t.Fatalf("frame %d: %d vs %d", i, a.at[i], b.at[i])
		}
	}
}

// The frames are real Ethernet/IPv4/UDP: addresses, ports, lengths, TTL,
// protocol, ECT(0) when asked, a valid header checksum.
func TestUDPFrameFormat(t *testing.T) {
	cfg := baseUDP()
	cfg.ECT = true
	cfg.IPBytes = 1000
	r := newUDPRig(t, cfg, 10_000_000)
	var heads [][]byte
	var lens []int
	r.sink.OnReceive(func(_ int64, p *packet.Packet) {
		heads = append(heads, append([]byte(nil), p.Head...))
		lens = append(lens, p.Len)
	})
	r.run(t)
	if len(heads) < 2 {
		t.Fatal("no frames")
	}
	for i, h := range heads {
		if lens[i] != 1014 || len(h) != UDPHeaderLen {
			t.Fatalf("frame %d: len %d head %d", i, lens[i], len(h))
		}
		ip := h[14:]
		if binary.BigEndian.Uint16(h[12:]) != 0x0800 || ip[0] != 0x45 || ip[9] != 17 || ip[8] != 64 ||
			binary.BigEndian.Uint16(ip[2:]) != 1000 || binary.BigEndian.Uint32(ip[12:]) != HostIP(0) || binary.BigEndian.Uint32(ip[16:]) != HostIP(1) {
			t.Fatalf("frame %d: bad IPv4 header % x", i, ip[:20])
		}
		if packet.IPv4Checksum(ip[:20]) != binary.BigEndian.Uint16(ip[10:]) {
			t.Fatalf("frame %d: checksum does not verify", i)
		}
		if _, ecn, ok := packet.DSCPECN(h); !ok || ecn != ECNECT0 {
			t.Fatalf("frame %d: ECN %d", i, ecn)
		}
		udp := ip[20:]
		if binary.BigEndian.Uint16(udp) != 5000 || binary.BigEndian.Uint16(udp[2:]) != 9 || binary.BigEndian.Uint16(udp[4:]) != 980 {
			t.Fatalf("frame %d: bad UDP header % x", i, udp[:8])
		}
		if binary.BigEndian.Uint16(ip[4:]) != uint16(i+1) {
			t.Fatalf("frame %d: ip id %d", i, binary.BigEndian.Uint16(ip[4:]))
		}
		if _, ok := Decode(h); ok || DstHost(&packet.Packet{Head: h}) != 1 {
			t.Fatal("a UDP frame must not decode as NDP, and must route to its destination host")
		}
	}
}

// Same configuration, same arrivals.
func TestUDPDeterminism(t *testing.T) {
	cfg := baseUDP()
	cfg.Schedule = []RateChange{{AtPs: 3_000_000, Gbps: 40}, {AtPs: 7_000_000, Gbps: 2}}
	a := newUDPRig(t, cfg, 20_000_000)
	a.run(t)
	b := newUDPRig(t, cfg, 20_000_000)
	b.run(t)
	if len(a.at) == 0 || len(a.at) != len(b.at) {
		t.Fatalf("%d vs %d", len(a.at), len(b.at))
	}
	for i := range a.at {
		if a.at[i] != b.at[i] {
			t.Fatalf("frame %d differs", i)
		}
	}
}

func TestUDPBadConfig(t *testing.T) {
	cases := []struct {
		set  func(*UDPConfig)
		want string
	}{
		{func(c *UDPConfig) { c.RateGbps = 200 }, "rate 200"},
		{func(c *UDPConfig) { c.IPBytes = 10 }, "ip_bytes 10"},
		{func(c *UDPConfig) { c.NICGbps = 0 }, "nic_gbps"},
		{func(c *UDPConfig) { c.Schedule = []RateChange{{AtPs: 5, Gbps: 1}, {AtPs: 2, Gbps: 1}} }, "time order"},
		{func(c *UDPConfig) { c.Schedule = []RateChange{{AtPs: 5, Gbps: -1}} }, "schedule[0]"},
	}
	for _, k := range cases {
		cfg := baseUDP()
		k.set(&cfg)
		_, err := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithUplink(&UDPSink{}).BuildUDP("Src", cfg)
		if err == nil || !strings.Contains(err.Error(), k.want) {
			t.Fatalf("want an error with %q, got %v", k.want, err)
		}
	}
}

// TestUDPSourceEncodeMatchesEncodeUDP: the source's per-frame header (a
// template plus the id and an updated checksum) is EncodeUDP's, byte for
// byte, for every IP id (the checksum's carries included).
func TestUDPSourceEncodeMatchesEncodeUDP(t *testing.T) {
	for _, cfg := range []UDPConfig{
		{Src: HostIP(3), Dst: HostIP(7), SrcPort: 5000, DstPort: 6000, IPBytes: 1000, NICGbps: 100},
		{Src: 0xffffffff, Dst: 0xfffffffe, SrcPort: 0xffff, DstPort: 0xfffe, IPBytes: 9000, NICGbps: 10, ECT: true},
	} {
		b := Builder{engine: engine.NewSerial(), uplink: discard{}}
		s, err := b.BuildUDP("U", cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, want := make([]byte, UDPHeaderLen), make([]byte, UDPHeaderLen)
		for id := 0; id <= 0xffff; id++ {
			s.encode(got, uint16(id))
			EncodeUDP(want, s.cfg, uint16(id))
			if !bytes.Equal(got, want) {
				t.Fatalf("ip id %d: template header %x, EncodeUDP %x", id, got, want)
			}
		}
	}
}
