package fifo

import (
	"math/rand"
	"testing"
)

// TestOrderAndBoundedArray: items leave in the order they came; a queue
// that never empties (one push and one pop per step, ten items behind)
// keeps its array at a bounded size instead of growing with the items
// that passed through it; popped slots hold no references.
func TestOrderAndBoundedArray(t *testing.T) {
	var q Queue[*int]
	next, want := 0, 0
	push := func() { v := next; next++; q.Push(&v) }
	for i := 0; i < 10; i++ {
		push()
	}
	for step := 0; step < 100000; step++ {
		push()
		if got := *q.Pop(); got != want {
			t.Fatalf("step %d: popped %d, want %d", step, got, want)
		}
		want++
	}
	if q.Len() != 10 || *q.Front() != want {
		t.Fatalf("%d queued, front %d; want 10, %d", q.Len(), *q.Front(), want)
	}
	if c := cap(q.items); c > 64 {
		t.Errorf("array of %d slots for 10 queued items", c)
	}
	for i := 0; i < q.head; i++ {
		if q.items[i] != nil {
			t.Fatalf("popped slot %d still holds an item", i)
		}
	}
	q.Clear()
	if q.Len() != 0 {
		t.Fatalf("%d queued after Clear", q.Len())
	}
	q.Push(nil)
	if q.Len() != 1 {
		t.Fatal("push after Clear")
	}
}

// TestRandomInterleaving pushes and pops at random and checks the queue
// against a plain slice queue.
func TestRandomInterleaving(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var q Queue[int]
	var ref []int
	for i := 0; i < 100000; i++ {
		if rng.Intn(3) > 0 || len(ref) == 0 && rng.Intn(2) == 0 {
			q.Push(i)
			ref = append(ref, i)
		} else if len(ref) > 0 {
			if got := q.Pop(); got != ref[0] {
				t.Fatalf("step %d: popped %d, want %d", i, got, ref[0])
			}
			ref = ref[1:]
		}
		if q.Len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", i, q.Len(), len(ref))
		}
	}
}
