package workers

import (
	"slices"
	"strings"
	"testing"

	"archsim/components/packet"
)

// The SwitchML formats: 64 values after a 6-byte header (switchml), 256
// after an 8-byte one (switchml-256); a worker's packet is a CONSUME, and
// the same bytes with the HARVEST type decode to the values in order.
func TestSwitchMLFormats(t *testing.T) {
	for _, c := range []struct {
		values, perPacket, hdr, length int
	}{
		{0, 64, 6, 42 + 6 + 256},
		{64, 64, 6, 42 + 6 + 256},
		{256, 256, 8, 42 + 8 + 1024},
	} {
		s := SwitchML{Port: 48864, Pool: 16, Values: c.values}
		if err := s.Validate(); err != nil || s.PerPacket() != c.perPacket {
			t.Fatalf("values %d: %v, %d per packet", c.values, err, s.PerPacket())
		}
		grads := make([]int32, c.perPacket)
		for i := range grads {
			grads[i] = int32(i*7 - 100)
		}
		pkt := s.Packet(3, 1, 17, 17, grads)
		if pkt.Len != c.length || len(pkt.Head) != c.length {
			t.Errorf("values %d: %d-byte packet, want %d", c.values, pkt.Len, c.length)
		}
		h := pkt.Head[l4At+udpLen:]
		if h[0] != switchMLConsume || h[1] != 3 || int(be16(h[2:])) != s.Slot(17) || s.Slot(17) != 3 {
			t.Errorf("values %d: header % x, pool index %d", c.values, h[:c.hdr], s.Slot(17))
		}
		if c.hdr == 8 && (h[6] != 0 || h[7] != 0) {
			t.Errorf("switchml-256 section and remaining bytes: % x, want 0", h[6:8])
		}
		if int32(be32(h[c.hdr+4*(c.perPacket-1):])) != grads[c.perPacket-1] {
			t.Errorf("values %d: last value misplaced", c.values)
		}
		if _, ok := s.Decode(pkt); ok {
			t.Errorf("values %d: a CONSUME packet decoded as a result", c.values)
		}
		h[0] = switchMLHarvest
		r, ok := s.Decode(pkt)
		if !ok || !r.BySlot || r.Slot != 3 || !slices.Equal(r.Values, grads) {
			t.Errorf("values %d: decoded %v slot %d, %v", c.values, ok, r.Slot, r.Values)
		}
	}
	// A 64-value result is too short for switchml-256.
	short := SwitchML{Port: 48864, Pool: 16}.Packet(0, 1, 0, 0, nil)
	short.Head[l4At+udpLen] = switchMLHarvest
	if _, ok := (SwitchML{Port: 48864, Pool: 16, Values: 256}).Decode(short); ok {
		t.Error("switchml-256 decoded a 64-value result")
	}
}

func TestSwitchMLValidate(t *testing.T) {
	for _, c := range []struct {
		s    SwitchML
		want string
	}{
		{SwitchML{Pool: 16, Values: 128}, "want 64 (switchml) or 256 (switchml-256)"},
		{SwitchML{Pool: 0, Values: 256}, "pool"},
		{SwitchML{Pool: 1 << 15, Values: 64}, ""},
		{SwitchML{Pool: 1<<15 + 1}, "pool"},
	} {
		err := c.s.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
}

// values (the count a worker's receive path charges for) agrees with
// Decode on results, workers' own packets and truncated ones.
func TestValuesMatchDecode(t *testing.T) {
	tm := TrioML{Port: 12000, ResultPort: 12001, Job: 1}
	res := tm.Packet(2, 1, 5, 0, make([]int32, 100))
	res.Head[l4At], res.Head[l4At+1] = 12000>>8, 12000&0xff   // from the program's port
	res.Head[l4At+2], res.Head[l4At+3] = 12001>>8, 12001&0xff // to the result port
	cut := *res
	cut.Head = res.Head[:l4At+udpLen+TrioMLHeaderLen+40]
	sm := SwitchML{Port: 48864, Pool: 16, Values: 256}
	harvest := sm.Packet(1, 1, 0, 3, make([]int32, 256))
	harvest.Head[l4At+udpLen] = switchMLHarvest
	for i, c := range []struct {
		p   Protocol
		pkt *packet.Packet
	}{
		{tm, res}, {tm, &cut}, {tm, tm.Packet(0, 1, 0, 0, make([]int32, 8))},
		{sm, harvest}, {sm, sm.Packet(1, 1, 0, 3, nil)},
	} {
		r, ok := c.p.Decode(c.pkt)
		n, vok := c.p.(valueCounter).values(c.pkt)
		if want := i == 0 || i == 1 || i == 3; ok != want {
			t.Errorf("case %d: Decode %v, want %v", i, ok, want)
		}
		if ok != vok || len(r.Values) != n {
			t.Errorf("case %d: Decode %v with %d values, values says %v, %d", i, ok, len(r.Values), vok, n)
		}
	}
}
