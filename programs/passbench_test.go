package programs

import (
	"math/rand"
	"testing"
)

// ndpData is the ndp program and a 4000-byte NDP data packet's head.
func ndpData(b *testing.B) (*Program, []byte) {
	b.Helper()
	prog, err := Resolve("ndp", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, ft := range prog.Traffic {
		if ft.Name == "ndp-data" {
			return prog, ft.BuildPacket(0, 4000)
		}
	}
	b.Fatal("ndp has no ndp-data traffic")
	return nil, nil
}

// BenchmarkNDPPass times one ingress pass of ndp on an NDP data packet
// (ParsePass, the ingress control, DeparsePass), the unit of work a
// Tofino pipeline thread does per packet, without the engine around it.
func BenchmarkNDPPass(b *testing.B) {
	prog, head0 := ndpData(b)
	c := prog.Codec()
	st := NewState(prog)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	x.ElideDeadStores = true // as a Tofino pipeline thread runs it
	phv := make([]int64, len(prog.Fields))
	x.PHV = phv
	head := make([]byte, len(head0), 128)
	view := c.NewPassView()
	lenSlot := prog.Std[StdPacketLength].Slot
	inSlot := prog.Std[StdIngressPort].Slot
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(phv)
		copy(head, head0)
		head = head[:len(head0)]
		phv[lenSlot] = 4000
		phv[inSlot] = 0
		x.NowPs = int64(i) * 330000
		r := c.ParsePass(head, 4000, phv, false, false, view)
		x.Dirty = 0
		x.RunControl(prog.Ingress)
		head, _ = c.DeparsePass(phv, head, 4000, r.Offset, true, view, x.Dirty)
	}
}

// BenchmarkCodecPass times the codec's part of a pass on ndp's data
// packet: parsing alone, and parse plus deparse with nothing written,
// with two headers written in place, and the full path for comparison.
func BenchmarkCodecPass(b *testing.B) {
	prog, head0 := ndpData(b)
	c := prog.Codec()
	phv := make([]int64, len(prog.Fields))
	head := make([]byte, len(head0), 128)
	view := c.NewPassView()
	b.Run("parse", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			clear(phv)
			c.ParsePass(head0, 4000, phv, false, false, view)
		}
	})
	b.Run("parse-full", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			clear(phv)
			c.Parse(head0, 4000, phv, false, false)
		}
	})
	for _, d := range []struct {
		name  string
		dirty uint64
	}{{"clean", 0}, {"two-dirty", 3 << 3}} {
		b.Run("parse-deparse-"+d.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				clear(phv)
				head = append(head[:0], head0...)
				r := c.ParsePass(head, 4000, phv, false, false, view)
				head, _ = c.DeparsePass(phv, head, 4000, r.Offset, false, view, d.dirty)
			}
		})
	}
	b.Run("parse-deparse-full", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			clear(phv)
			head = append(head[:0], head0...)
			r := c.Parse(head, 4000, phv, false, false)
			head, _ = c.DeparseInPlace(phv, head, 4000, r.Offset, false)
		}
	})
}

// BenchmarkNDPPassMix is BenchmarkNDPPass on a mix of ndp's traffic, as
// an incast's switch sees it: data packets, and NDP control packets (ACK,
// PULL, NACK flags) to several ports, in a fixed pseudo-random order, so
// the interpreter's branches and the state it touches vary from pass to
// pass as they do in a run.
func BenchmarkNDPPassMix(b *testing.B) {
	prog, _ := ndpData(b)
	var heads [][]byte
	var lens []int
	for _, ft := range prog.Traffic {
		switch ft.Name {
		case "ndp-data":
			for i := 0; i < 4; i++ {
				heads, lens = append(heads, ft.BuildPacket(i, 4000)), append(lens, 4000)
			}
		case "ndp-control":
			for i := 0; i < 4; i++ {
				heads, lens = append(heads, ft.BuildPacket(i, 64)), append(lens, 64)
			}
		}
	}
	order := make([]int, 1024)
	rng := rand.New(rand.NewSource(2))
	for i := range order {
		order[i] = rng.Intn(len(heads))
	}
	c := prog.Codec()
	st := NewState(prog)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	x.ElideDeadStores = true
	phv := make([]int64, len(prog.Fields))
	x.PHV = phv
	head := make([]byte, 0, 128)
	view := c.NewPassView()
	lenSlot := prog.Std[StdPacketLength].Slot
	inSlot := prog.Std[StdIngressPort].Slot
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := order[i&1023]
		clear(phv)
		head = append(head[:0], heads[k]...)
		phv[lenSlot] = int64(lens[k])
		phv[inSlot] = int64(k & 3)
		x.NowPs = int64(i) * 330000
		r := c.ParsePass(head, lens[k], phv, false, false, view)
		x.Dirty = 0
		x.RunControl(prog.Ingress)
		head, _ = c.DeparsePass(phv, head, lens[k], r.Offset, true, view, x.Dirty)
	}
}
