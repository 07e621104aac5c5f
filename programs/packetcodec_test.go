package programs

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestWordPlanMatchesBits checks the word-at-a-time header read and write
// (loadWords/extractWords, composeWords/storeWords) against getBits and
// putBits on random layouts: fields of 1..64 bits at any bit offset
// (straddling words), signed and unsigned, headers of 1..64 bytes, with
// and without bytes after the header in the buffer.
func TestWordPlanMatchesBits(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 3000; round++ {
		var fields []fieldCodec
		off := 0
		for slot := 0; ; slot++ {
			w := 1 + rng.Intn(64)
			if rng.Intn(2) == 0 {
				w = []int{8, 16, 32, 48, 4, 9, 13}[rng.Intn(7)]
			}
			if off+w > 8*8*maxHdrWords || (slot > 0 && rng.Intn(12) == 0) {
				break
			}
			fields = append(fields, fieldCodec{slot: int32(slot), off: int32(off), bits: int32(w), signed: rng.Intn(4) == 0})
			off += w
		}
		nbytes := (off + 7) / 8
		plan := planFields(fields, nbytes)
		if plan == nil {
			t.Fatalf("round %d: no plan for %d bytes", round, nbytes)
		}
		b := rng.Intn(5)
		head := make([]byte, b+nbytes+rng.Intn(10))
		rng.Read(head)
		want := make([]int64, len(fields))
		for _, f := range fields {
			want[f.slot] = f.norm(getBits(head, 8*b+int(f.off), int(f.bits)))
		}
		var ws [maxHdrWords]uint64
		got := make([]int64, len(fields))
		loadWords(&ws, head, b, nbytes)
		extractWords(plan, &ws, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d: field %d (%+v) = %d, want %d", round, i, fields[i], got[i], want[i])
			}
		}
		phv := make([]int64, len(fields))
		for i := range phv {
			phv[i] = int64(rng.Uint64())
		}
		ref := append([]byte(nil), head...)
		clear(ref[b : b+nbytes])
		for _, f := range fields {
			putBits(ref, 8*b+int(f.off), int(f.bits), uint64(phv[f.slot]))
		}
		out := append([]byte(nil), head...)
		composeWords(plan, &ws, (nbytes+7)/8, phv)
		storeWords(&ws, out, b, nbytes)
		if !bytes.Equal(out, ref) {
			t.Fatalf("round %d: stored %x, want %x", round, out, ref)
		}
	}
}
