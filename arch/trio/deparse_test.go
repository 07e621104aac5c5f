package trio

import (
	"bytes"
	"math/rand"
	"testing"

	"archsim/programs"
)

// The PFE's deparse (headers serialized once into its scratch, then the
// head's stored bytes after them) gives Program.Deparse's bytes and length,
// with and without the bridged metadata in front, for heads that keep
// their headers and heads whose headers change.
func TestDeparseMatchesProgram(t *testing.T) {
	prog, err := programs.Resolve("pie-rfc", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := chipT(t)
	p := newPFE("PFE", nil, c, lowerT(t, c, prog), 1)
	rng := rand.New(rand.NewSource(3))
	compared := 0
	defer func() {
		if compared < 200 {
			t.Errorf("only %d deparses compared", compared)
		}
	}()
	for i := 0; i < 200; i++ {
		head := prog.Traffic[i%len(prog.Traffic)].BuildPacket(i, 0)
		head = append(head, make([]byte, rng.Intn(40))...)
		length := len(head) + rng.Intn(1500)
		phv := make([]int64, len(prog.Fields))
		res := prog.Codec().Parse(head, length, phv, false, false)
		if res.Rejected {
			continue
		}
		if i%2 == 1 { // change a header field
			phv[prog.Std[programs.StdEgressPort].Slot] = int64(rng.Intn(4))
			for _, f := range prog.Fields {
				if f.Name == "ipv4.ttl" {
					phv[f.Slot] = int64(rng.Intn(256))
				}
			}
		}
		for _, bridge := range []bool{false, true} {
			got, gn := p.deparse(phv, head, length, res.Offset, bridge)
			want, wn := prog.Deparse(phv, head, length, res.Offset, bridge)
			compared++
			if !bytes.Equal(got, want) || gn != wn {
				t.Fatalf("packet %d, bridge %v: deparse = %x (%d), Program.Deparse = %x (%d)", i, bridge, got, gn, want, wn)
			}
		}
	}
}
