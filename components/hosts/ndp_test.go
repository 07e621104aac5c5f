package hosts

import (
	"encoding/binary"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
)

// Tests of the hosts that need no switch. The NDP hosts' network tests,
// with a switch between them, are integration tests of a chip and live
// with it (arch/ideal/ndp_test.go): shared parts know no chip.

// Link and packet parameters. serD is worked out by hand from
// packet.SerializationPs (frame + 24 bytes of FCS, preamble and IFG, at
// 100 Gb/s = 80 ps per byte) and checked against it in
// TestHandDerivedConstants.
const (
	gbps   = 100.0
	mss    = 1500
	ctrl   = 64
	propPs = 200_000 // 200 ns per link
	serD   = 121_920 // (1500+24) B x 80 ps
)

func TestHandDerivedConstants(t *testing.T) {
	if got := packet.SerializationPs(mss, gbps); got != serD {
		t.Errorf("SerializationPs(%d) = %d, derived %d", mss, got, serD)
	}
}

// discard is an uplink that drops everything: a host with no network.
type discard struct{}

func (discard) Handle(sim.Event) error { return nil }

// TestNDPPullGap: the pull pacer's spacing at pull rate 0.5 is
// serD / 0.5 = 243 840 ps, the gap arch/ideal's TestNDPPullPacer derives
// its bounds from.
func TestNDPPullGap(t *testing.T) {
	const gap = 243_840 // int64(serD / 0.5)
	cfg := NDPConfig{NICGbps: gbps, PropPs: propPs, MSS: mss, CtrlBytes: ctrl, InitialWindow: 8, PullRateMod: 0.5}
	h := MakeBuilder().WithEngine(sim.NewSerialEngine()).WithHost(2, 2).WithUplink(discard{}).
		WithRecorder(NewRecorder(0)).BuildNDP("H2", cfg)
	if g := h.pullGapPs(); g != gap {
		t.Fatalf("pull gap %d ps, derived %d", g, gap)
	}
}

// TestNDPWireFormat: encode/Decode round trip and the byte layout.
func TestNDPWireFormat(t *testing.T) {
	if FlagACK != 0x02 || FlagNACK != 0x04 || FlagPULL != 0x08 || FlagTrimmed != 0x80 || HeaderLen != 50 {
		t.Fatalf("flags %#x %#x %#x %#x, header %d", FlagACK, FlagNACK, FlagPULL, FlagTrimmed, HeaderLen)
	}
	flagSets := []uint8{0, FlagACK, FlagNACK, FlagPULL, FlagACK | FlagPULL, FlagNACK | FlagPULL, FlagTrimmed}
	for _, length := range []int{ctrl, mss, 9000} {
		for _, fl := range flagSets {
			for _, v := range []struct{ seq, pull, flow uint16 }{{0, 0, 0}, {1, 2, 3}, {0x1234, 0xabcd, 0xbeef}, {65535, 65535, 65535}} {
				h := Header{Src: HostIP(3), Dst: HostIP(250), Flow: v.flow, Flags: fl, Seq: v.seq, Pull: v.pull}
				b := encode(h, length)
				if len(b) != HeaderLen {
					t.Fatalf("encoded %d bytes", len(b))
				}
				got, ok := Decode(b)
				if !ok || got != h {
					t.Fatalf("round trip %+v -> %+v (ok %v)", h, got, ok)
				}
				// Layout: Ethernet type, IPv4/UDP, lengths, NDP shim.
				be := binary.BigEndian
				switch {
				case be.Uint16(b[12:]) != 0x0800, b[14] != 0x45, b[14+8] != 64, b[14+9] != 17:
					t.Fatalf("L2/L3 header % x", b[:34])
				case int(be.Uint16(b[16:])) != length-14:
					t.Errorf("IP total length %d, want %d", be.Uint16(b[16:]), length-14)
				case be.Uint32(b[26:]) != 0x0a010301 || be.Uint32(b[30:]) != 0x0a01fa01:
					t.Errorf("addresses %#x %#x", be.Uint32(b[26:]), be.Uint32(b[30:]))
				case be.Uint16(b[34:]) != v.flow || be.Uint16(b[36:]) != NDPPort || int(be.Uint16(b[38:])) != length-34:
					t.Errorf("UDP header % x", b[34:42])
				case b[42] != fl || be.Uint16(b[44:]) != v.seq || be.Uint16(b[46:]) != v.pull:
					t.Errorf("NDP shim % x", b[42:50])
				}
				p := &packet.Packet{Head: b, Len: length}
				if IsHeader(p) != (fl != 0) {
					t.Errorf("IsHeader(flags %#x) = %v", fl, IsHeader(p))
				}
				if DstHost(p) != 250 {
					t.Errorf("DstHost = %d", DstHost(p))
				}
			}
		}
	}

	// Trim marks the header, keeps its fields, and does not write through
	// to the original bytes (a mirrored copy may share them).
	orig := encode(Header{Src: HostIP(1), Dst: HostIP(2), Flow: 9, Seq: 77}, mss)
	full := append(append([]byte(nil), orig...), make([]byte, 30)...)
	p := &packet.Packet{Head: full, Len: mss}
	Trim(p, ctrl)
	h, ok := Decode(p.Head)
	if !ok || h.Flags != FlagTrimmed || h.Seq != 77 || h.Flow != 9 || h.Dst != HostIP(2) || p.Len != ctrl || len(p.Head) != HeaderLen {
		t.Errorf("trimmed: %+v ok %v len %d head %d", h, ok, p.Len, len(p.Head))
	}
	if full[42] != 0 || !IsHeader(p) {
		t.Errorf("Trim wrote through to the original head (flags %#x) or is not a header", full[42])
	}

	// Non-NDP packets are rejected.
	bad := func(mut func(b []byte) []byte) bool {
		_, ok := Decode(mut(encode(Header{Src: HostIP(1), Dst: HostIP(2)}, mss)))
		return ok
	}
	if bad(func(b []byte) []byte { return b[:HeaderLen-1] }) ||
		bad(func(b []byte) []byte { b[12] = 0x86; return b }) ||
		bad(func(b []byte) []byte { b[14+9] = 6; return b }) ||
		bad(func(b []byte) []byte { b[37] = 0; return b }) {
		t.Error("Decode accepted a short, non-IPv4, non-UDP or non-NDP-port packet")
	}
	if DstHost(&packet.Packet{Head: make([]byte, HeaderLen)}) != -1 {
		t.Error("DstHost of 0.0.0.0 is not -1")
	}
}
