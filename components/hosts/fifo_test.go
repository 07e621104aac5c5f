package hosts

import (
	"math/rand"
	"testing"

	"archsim/components/packet"
)

// TestFIFOOrder interleaves pushes and pops at random and checks the fifo
// against a plain slice queue.
func TestFIFOOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var q fifo
	var ref []*packet.Packet
	for i := 0; i < 100000; i++ {
		if rng.Intn(3) > 0 || len(ref) == 0 && rng.Intn(2) == 0 {
			p := &packet.Packet{ID: uint64(i)}
			q.push(p)
			ref = append(ref, p)
		} else if len(ref) > 0 {
			if got := q.pop(); got != ref[0] {
				t.Fatalf("step %d: popped %d, want %d", i, got.ID, ref[0].ID)
			}
			ref = ref[1:]
		}
		if q.len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", i, q.len(), len(ref))
		}
	}
}
