package workers

import (
	"slices"
	"strings"
	"testing"
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
