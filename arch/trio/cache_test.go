package trio

import (
	"math/rand"
	"testing"
	"unsafe"

	"archsim/programs"
)

// keySlot is programs.KeySlot without the allocation.
func TestKeySlotMatchesPrograms(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		key := make([]int64, 1+i%4)
		for j := range key {
			key[j] = r.Int63() - r.Int63()
		}
		size := 1 + r.Intn(1<<16)
		if got, want := keySlot(key, size), programs.KeySlot(key, size); got != want {
			t.Fatalf("key %v size %d: %d, want %d", key, size, got, want)
		}
	}
}

// ptrTable finds every key it was given, through growth, and no other.
func TestPtrTable(t *testing.T) {
	var tb ptrTable[int]
	objs := make([]*int64, 1000)
	for i := range objs {
		objs[i] = new(int64)
		if tb.get(unsafe.Pointer(objs[i])) != nil {
			t.Fatalf("object %d found before it was put", i)
		}
		tb.put(unsafe.Pointer(objs[i]), i)
	}
	for i, o := range objs {
		if v := tb.get(unsafe.Pointer(o)); v == nil || *v != i {
			t.Fatalf("object %d: %v", i, v)
		}
	}
	if tb.get(unsafe.Pointer(new(int64))) != nil {
		t.Fatal("an object never put was found")
	}
}
