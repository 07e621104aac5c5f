package packet

// PaceCredit is transmit time a port's transmitter is owed (negative: owes)
// because frames it paced by their queued length left egress with another
// length, or were dropped there (ndp.p4 strips a 3-byte in-band header in
// egress): a MAC returns credit for the bytes it really sends. The Tofino
// traffic manager and Trio's output queues keep one per port.
type PaceCredit int64

// Slot is how long the transmitter is busy with a frame of serPs, dequeued
// at nowPs by a port busy until busyUntil: serPs less the credit owed, as
// far as it goes. A port that idled since its last frame drops its credit
// (frames sent back then buy nothing now) and pays a debt off by the idle
// time.
func (c *PaceCredit) Slot(serPs, nowPs, busyUntil int64) int64 {
	if *c == 0 {
		return serPs
	}
	if nowPs > busyUntil {
		*c = min(0, *c+PaceCredit(nowPs-busyUntil))
	}
	adj := min(int64(*c), serPs)
	*c -= PaceCredit(adj)
	return serPs - adj
}

// Resized records that a frame the transmitter paced for pacedPs left
// egress taking leftPs on the wire (0: dropped there).
func (c *PaceCredit) Resized(pacedPs, leftPs int64) { *c += PaceCredit(pacedPs - leftPs) }
