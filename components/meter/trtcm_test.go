package meter

import "testing"

// TestRFC2698Sequence follows RFC 2698 §3 step by step (colour-blind mode):
// buckets start full; a packet larger than Tp is red; larger than Tc (but
// not Tp) is yellow and takes from Tp; otherwise green and takes from both.
func TestRFC2698Sequence(t *testing.T) {
	m := New(1e6, 2e6, 1000, 2000) // CIR 1e6 B/s, PIR 2e6 B/s, CBS 1000 B, PBS 2000 B
	// Tc 1000, Tp 2000 -> green (Tc 0, Tp 1000); then Tc 0 < 1000 <= Tp ->
	// yellow (Tp 0); then Tp 0 < 1 -> red.
	got := []Color{m.Mark(0, 1000), m.Mark(0, 1000), m.Mark(0, 1)}
	want := []Color{Green, Yellow, Red}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("packet %d: %v, want %v", i, got[i], want[i])
		}
	}
	// After 0.5 ms: Tc = 0 + 1e6*5e-4 = 500, Tp = 0 + 2e6*5e-4 = 1000.
	if c := m.Mark(500_000_000, 600); c != Yellow { // 600 > Tc 500, <= Tp 1000
		t.Fatalf("after 0.5 ms, 600 B: %v, want yellow", c)
	}
	if c := m.Mark(500_000_000, 500); c != Red { // Tp now 400 < 500
		t.Fatalf("then 500 B: %v, want red", c)
	}
	// After a long idle period both buckets are full again but capped: a
	// 1001-byte packet exceeds CBS (yellow), a 1000-byte one fits.
	if c := m.Mark(10_000_000_000_000, 1001); c != Yellow {
		t.Fatalf("buckets must be capped at CBS: %v, want yellow", c)
	}
	if c := m.Mark(20_000_000_000_000, 1000); c != Green {
		t.Fatalf("after idle: %v, want green", c)
	}
}

// TestRFC2698Rates offers 3 MB/s of 100-byte packets to a 1 MB/s / 2 MB/s
// meter for one second: green traffic converges to CIR and green+yellow to
// PIR (within the bucket sizes).
func TestRFC2698Rates(t *testing.T) {
	m := New(1e6, 2e6, 1000, 2000)
	var green, yellow int64
	const size = 100
	const gapPs int64 = 33_333_333 // 100 B at 3 MB/s, in ps
	for ps := int64(0); ps < 1e12; ps += gapPs {
		switch m.Mark(ps, size) {
		case Green:
			green += size
		case Yellow:
			yellow += size
		}
	}
	if green < 1e6-1000 || green > 1e6+1000 {
		t.Fatalf("green bytes %d, want ~1e6 (CIR x 1 s + CBS)", green)
	}
	if gy := green + yellow; gy < 2e6-2000 || gy > 2e6+2000 {
		t.Fatalf("green+yellow bytes %d, want ~2e6 (PIR x 1 s + PBS)", gy)
	}
}
