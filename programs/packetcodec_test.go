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

// TestLoadWordsShort checks the loader of a header that runs past the
// stored head against the plain loader on the head copied into a
// zero-filled buffer, for every header size and every place the head can
// end (before, inside and past the header).
func TestLoadWordsShort(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	src := make([]byte, 3*maxHdrWords*8)
	rng.Read(src)
	for bytes := 1; bytes <= maxHdrWords*8; bytes++ {
		for _, b := range []int{0, 3, 8} {
			for end := 0; end <= b+bytes+9; end++ {
				head := src[:end]
				var buf [maxHdrWords * 8]byte
				if b < len(head) {
					copy(buf[:], head[b:])
				}
				var want, got [maxHdrWords]uint64
				for k := range got {
					got[k] = ^uint64(0) // words a header uses must be overwritten
				}
				loadWords(&want, buf[:], 0, bytes)
				loadWordsShort(&got, head, b, bytes)
				for k := 0; k < (bytes+7)/8; k++ {
					// Bits past the header's last byte are never read.
					mask := ^uint64(0)
					if r := bytes - 8*k; r < 8 {
						mask <<= 64 - 8*uint(r)
					}
					if got[k]&mask != want[k]&mask {
						t.Fatalf("header of %d bytes at %d, head of %d bytes: word %d is %#x, want %#x", bytes, b, end, k, got[k]&mask, want[k]&mask)
					}
				}
			}
		}
	}
}
