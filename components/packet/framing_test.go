package packet

import "testing"

// TestFraming: Ethernet sends a frame with its FCS, preamble and gap (24
// bytes), htsim's bare links the frame alone; a memo gives its framing's
// times, and the zero memo Ethernet's.
func TestFraming(t *testing.T) {
	if got, want := Ethernet.Ps(1564, 100), int64(127040); got != want || SerializationPs(1564, 100) != want {
		t.Errorf("Ethernet: %d ps for 1564 bytes at 100 Gb/s, want %d (1588 bytes)", got, want)
	}
	if got, want := Bare.Ps(1564, 100), int64(125120); got != want {
		t.Errorf("bare: %d ps, want %d", got, want)
	}
	var eth SerialMemo
	bare := SerialMemo{Framing: Bare}
	for i := 0; i < 3; i++ { // computed, then remembered
		if eth.Ps(64, 100) != Ethernet.Ps(64, 100) || bare.Ps(64, 100) != Bare.Ps(64, 100) || bare.Ps(1564, 25) != Bare.Ps(1564, 25) {
			t.Fatalf("round %d: memo times differ from their framing's", i)
		}
	}
	if Ethernet.String() != "ethernet" || Bare.String() != "htsim" {
		t.Errorf("names %q, %q", Ethernet, Bare)
	}
}
