package programs

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// passRig runs pipeline passes of one program one way: the full path
// (Parse, the control, DeparseInPlace) or the pass path (ParsePass, the
// control, DeparsePass), each on its own state.
type passRig struct {
	prog *Program
	c    *Codec
	x    *Exec
	phv  []int64
	view *PassView
	pass bool
	// slack is the room the rig's copy of a head has past its bytes (0:
	// a deparser that adds bytes must allocate).
	slack int
}

func newPassRig(p *Program, pass bool) *passRig {
	x := NewExec(NewState(p), rand.New(rand.NewSource(9)))
	r := &passRig{prog: p, c: p.Codec(), x: x, phv: make([]int64, p.NumSlots), view: p.Codec().NewPassView(), pass: pass, slack: 64}
	x.PHV = r.phv
	return r
}

// run passes head (the rig takes a copy) through gress egress of the
// program and returns the deparsed bytes, the length, whether the parser
// rejected it, and the standard metadata the pass left.
func (r *passRig) run(head []byte, length int, egress, bridged bool, std map[StdID]int64, nowPs int64) ([]byte, int, bool, []int64) {
	clear(r.phv)
	for id, v := range std {
		if f := r.prog.Std[id]; f != nil {
			r.phv[f.Slot] = v
		}
	}
	h := append(make([]byte, 0, len(head)+r.slack), head...)
	var res ParseResult
	if r.pass {
		res = r.c.ParsePass(h, length, r.phv, egress, bridged, r.view)
	} else {
		res = r.c.Parse(h, length, r.phv, egress, bridged)
	}
	if res.Rejected {
		return nil, 0, true, nil
	}
	r.x.NowPs = nowPs
	r.x.Dirty = 0
	ctl := r.prog.Ingress
	if egress {
		ctl = r.prog.Egress
	}
	r.x.RunControl(ctl)
	var out []byte
	var n int
	if r.pass {
		out, n = r.c.DeparsePass(r.phv, h, length, res.Offset, !egress, r.view, r.x.Dirty)
	} else {
		out, n = r.c.DeparseInPlace(r.phv, h, length, res.Offset, !egress)
	}
	var meta []int64
	for _, f := range r.prog.Fields {
		if f.Kind != HeaderField {
			meta = append(meta, r.phv[f.Slot])
		}
	}
	return append([]byte(nil), out...), n, false, meta
}

// TestPassPathMatchesFullPath runs every built-in program's ingress and
// egress on random packets (its traffic templates with random bytes
// flipped, random ingress ports including the recirculation ports, random
// egress metadata) the full way and the pass way, side by side, and
// requires the same deparsed bytes, length, metadata and stateful memory.
func TestPassPathMatchesFullPath(t *testing.T) {
	selective := 0
	for _, name := range Builtins() {
		t.Run(name, func(t *testing.T) {
			p, err := Resolve(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Codec().selective {
				selective++
			}
			full, pass := newPassRig(p, false), newPassRig(p, true)
			rng := rand.New(rand.NewSource(int64(len(name))))
			var heads [][]byte
			for _, ft := range p.Traffic {
				for seq := 0; seq < 4; seq++ {
					heads = append(heads, ft.BuildPacket(seq, 0))
				}
			}
			if len(heads) == 0 {
				heads = append(heads, make([]byte, 64))
			}
			ports := []int64{0, 1, 4, 8, 68, 196, 324, 452, 64}
			for i := 0; i < 4000; i++ {
				head := append([]byte(nil), heads[rng.Intn(len(heads))]...)
				for k := rng.Intn(4); k > 0 && len(head) > 0; k-- {
					head[rng.Intn(len(head))] ^= byte(1 << rng.Intn(8))
				}
				if rng.Intn(4) == 0 {
					head = append(head, byte(rng.Intn(256)), byte(rng.Intn(256)))
				}
				if len(p.Constants) > 0 && len(head) >= 2 && rng.Intn(3) == 0 {
					// One of the program's constants at an even byte: the
					// packets its code singles out (PIE's sampling
					// packets, ...) turn up among the random ones.
					c := p.Constants[rng.Intn(len(p.Constants))]
					at := 2 * rng.Intn(len(head)/2)
					head[at], head[at+1] = byte(c.Value>>8), byte(c.Value)
				}
				length := len(head) + rng.Intn(3)*700
				if rng.Intn(5) == 0 {
					// The packet model holds fewer bytes than its headers
					// (a host's short head): the rest read as zero.
					head = head[:rng.Intn(len(head)+1)]
				}
				std := map[StdID]int64{
					StdIngressPort:  ports[rng.Intn(len(ports))],
					StdEgressPort:   ports[rng.Intn(len(ports))],
					StdPacketLength: int64(length),
					StdTstamp:       int64(i) * 1000,
					StdDeflected:    int64(rng.Intn(2)),
					StdQid:          int64(rng.Intn(4)),
				}
				now := int64(i) * 997_000
				full.slack = []int{64, 0, 3}[i%3]
				pass.slack = full.slack
				ob, on, orej, ometa := full.run(head, length, false, false, std, now)
				pb, pn, prej, pmeta := pass.run(head, length, false, false, std, now)
				where := fmt.Sprintf("packet %d ingress % x", i, head)
				checkPass(t, where, ob, pb, on, pn, orej, prej, ometa, pmeta)
				if orej || p.Egress == nil {
					continue
				}
				eb, en, erej, emeta := full.run(ob, on, true, true, std, now+5000)
				qb, qn, qrej, qmeta := pass.run(ob, on, true, true, std, now+5000)
				checkPass(t, where+" egress", eb, qb, en, qn, erej, qrej, emeta, qmeta)
			}
			for i := range full.x.State.Regs {
				fv, pv := full.x.State.Regs[i].Values(), pass.x.State.Regs[i].Values()
				for j := range fv {
					if fv[j] != pv[j] {
						t.Fatalf("register %s[%d]: full %d, pass %d", p.Registers[i].Name, j, fv[j], pv[j])
					}
				}
			}
			for i := range full.x.State.Counters {
				for j := 0; j < full.x.State.Counters[i].Len(); j++ {
					if full.x.State.Counters[i].Get(j) != pass.x.State.Counters[i].Get(j) {
						t.Fatalf("counter %s[%d] differs", p.Counters[i].Name, j)
					}
				}
			}
		})
	}
	if selective == 0 {
		t.Fatal("no built-in program takes the selective pass path")
	}
}

func checkPass(t *testing.T, where string, ob, pb []byte, on, pn int, orej, prej bool, ometa, pmeta []int64) {
	t.Helper()
	if orej != prej {
		t.Fatalf("%s: rejected full %v, pass %v", where, orej, prej)
	}
	if !bytes.Equal(ob, pb) || on != pn {
		t.Fatalf("%s:\nfull % x (%d)\npass % x (%d)", where, ob, on, pb, pn)
	}
	for i := range ometa {
		if ometa[i] != pmeta[i] {
			t.Fatalf("%s: metadata %d: full %d, pass %d", where, i, ometa[i], pmeta[i])
		}
	}
}

// TestPassPathRewritesOnlyDirtyHeaders checks the point of the pass path:
// an unchanged header's bytes are left alone even when a field the
// program never names holds bits the full path would rewrite the same
// way, and a header the program wrote is rewritten.
func TestPassPathRewritesOnlyDirtyHeaders(t *testing.T) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Codec()
	if !c.selective {
		t.Fatal("ndp should take the selective path")
	}
	hdr := func(name string) *hdrCodec {
		for i := range c.hdrs {
			if c.hdrs[i].h.Name == name {
				return &c.hdrs[i]
			}
		}
		t.Fatalf("no header %s", name)
		return nil
	}
	// ipv4.identification is named nowhere in ndp: not extracted.
	ip := hdr("ipv4")
	if len(ip.sub) >= len(ip.plan) {
		t.Fatalf("ipv4 extracts %d of %d fields; want fewer", len(ip.sub), len(ip.plan))
	}
}
