package programs

import (
	"hash/crc32"
	"math/rand"
	"testing"
)

// TestCRC32IEEEMatchesLibrary compares crc32IEEE with crc32.ChecksumIEEE
// on random inputs of 0..100 bytes.
func TestCRC32IEEEMatchesLibrary(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.Intn(101))
		rng.Read(b)
		if got, want := crc32IEEE(b), crc32.ChecksumIEEE(b); got != want {
			t.Fatalf("%x: %08x, want %08x", b, got, want)
		}
	}
}
