package packet

import "testing"

func frame(etype uint16, vlan bool, ip []byte) []byte {
	b := make([]byte, 12)
	if vlan {
		b = append(b, 0x81, 0x00, 0, 5)
	}
	b = append(b, byte(etype>>8), byte(etype))
	return append(b, ip...)
}

func TestDSCPRewriteKeepsECN(t *testing.T) {
	v4 := []byte{0x45, 1<<2 | 2, 0, 100, 0, 0, 0, 0, 64, 17, 0xab, 0xcd}
	v6 := []byte{0x60 | 3>>2, (3&3)<<6 | 1<<4 | 0x0a, 0xbc, 0xde, 0, 0, 17, 64}
	cases := []struct {
		name string
		head []byte
		dscp int
		ecn  int
	}{
		{"ipv4", frame(0x0800, false, v4), 1, 2},
		{"ipv4 vlan", frame(0x0800, true, v4), 1, 2},
		{"ipv6", frame(0x86dd, false, v6), 3, 1},
	}
	for _, c := range cases {
		d, e, ok := DSCPECN(c.head)
		if !ok || d != c.dscp || e != c.ecn {
			t.Fatalf("%s: read dscp %d ecn %d ok %v, want %d %d", c.name, d, e, ok, c.dscp, c.ecn)
		}
		before := append([]byte(nil), c.head...)
		if !SetDSCP(c.head, 48) {
			t.Fatalf("%s: SetDSCP refused", c.name)
		}
		d, e, _ = DSCPECN(c.head)
		if d != 48 || e != c.ecn {
			t.Errorf("%s: after SetDSCP(48): dscp %d ecn %d, want 48 %d", c.name, d, e, c.ecn)
		}
		// Only the traffic-class bits may change.
		off, v, _ := IPHeader(c.head)
		for i := range c.head {
			inTC := (v == 4 && i == off+1) || (v == 6 && (i == off || i == off+1))
			if !inTC && c.head[i] != before[i] {
				t.Errorf("%s: byte %d changed %#x -> %#x", c.name, i, before[i], c.head[i])
			}
		}
		if v == 6 && (c.head[off]>>4 != 6 || c.head[off+1]&0x0f != 0x0a) {
			t.Errorf("ipv6: version or flow label bits damaged: % x", c.head[off:off+2])
		}
	}
	if _, _, ok := DSCPECN(frame(0x0806, false, make([]byte, 28))); ok {
		t.Error("ARP has no DSCP")
	}
	if SetDSCP([]byte{1, 2, 3}, 1) {
		t.Error("a short head must be refused")
	}
}
