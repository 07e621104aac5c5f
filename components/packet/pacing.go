package packet

// PaceCredit is transmit time a port's transmitter is owed (negative: owes)
// because frames it paced by their queued length left egress with another
// length (ndp.p4 strips a 3-byte in-band header in egress): a MAC returns
// credit for the bytes it really sends. A frame egress drops is not
// credited: its slot in the port's schedule was spent when the traffic
// manager dequeued it. This is what the trimming paper states for the
// recirculation port, whose deflected packets egress mirrors as headers and
// drops: it carries "up to 100Gb/s of untrimmed packets" (§3), 12x
// oversubscribed in the 16 x 4:1 incast; the paper's htsim model drains
// its DoD queue at that rate (§6.1), and its frames carry no in-band
// header. (Crediting dropped frames let a DoD queue drain at egress's
// packet rate instead, and every trimming ablation of §6.3 stayed stable:
// TestDroppedFrameSpendsItsSlot.) The Tofino traffic manager and Trio's
// output queues keep one per port.
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
// egress taking leftPs on the wire (0: dropped there, which costs the
// whole slot).
func (c *PaceCredit) Resized(pacedPs, leftPs int64) {
	if leftPs > 0 {
		*c += PaceCredit(pacedPs - leftPs)
	}
}
