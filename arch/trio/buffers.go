package trio

import (
	"archsim/arch"
	"archsim/arch/trio/lower"
	"archsim/components/packet"
	"archsim/programs"
)

// Packet buffers (packet_buffers:): a thread keeps a copy of its packet
// in the packet memory and sends it again later. The costs, charged as
// the interpreter runs them (programs.BufferTracer):
//
//   - store: the copy's head (up to head_bytes) is written to the packet
//     memory in 64-byte transactions, asynchronous (the tail of a frame
//     already sits in the packet memory: it is kept, not copied);
//   - resend: one asynchronous write of a notification that points at the
//     kept head and tail; the thread does not read the packet back (the
//     queueing system reads a kept frame from the packet memory as it
//     reads any frame's tail), and the copy leaves as a packet the thread
//     created (with the thread's head when a packet thread sends it,
//     reorder.go);
//   - held, buffered: one synchronous read of the buffer's descriptors,
//     kept in the shared memory's SRAM (the latency of an SRAM access);
//   - release: its own instruction (the row's), no transaction.
//
// Assumed: the Trio paper describes threads creating packets (§2.2, §4)
// and the packet memory holding tails (§2.1) but not a primitive that
// keeps a packet; this is the natural microcode for one.

// Store charges a packet kept in slot (bytes long).
func (t *tracer) Store(b *programs.PacketBuffer, slot, bytes int) {
	p, th := t.p, t.th
	for k := 0; k < p.headChunks(bytes); k++ {
		th.addAsync(step{x: uint8(lower.XPMEM), bank: -1, latency: p.tailPs})
		if k > 0 {
			th.addInstr(1) // each transaction beyond the first needs an instruction to issue it
		}
	}
}

// Resend charges the notification that sends a kept packet: one
// asynchronous write to the packet memory's queue of descriptors (bytes
// 0: an empty slot, nothing to send).
func (t *tracer) Resend(b *programs.PacketBuffer, slot, bytes int) {
	if bytes > 0 {
		t.th.addAsync(step{x: uint8(lower.XPMEM), bank: -1, latency: t.p.tailPs})
	}
}

// Release charges nothing beyond the statement's instruction.
func (t *tracer) Release(b *programs.PacketBuffer, slot int) {}

// BufferRead charges a read of the buffer's descriptors, which live in
// the shared memory's SRAM.
func (t *tracer) BufferRead(b *programs.PacketBuffer) {
	t.th.addSync(step{x: uint8(lower.XRead), bank: -1, latency: t.p.sramPs})
}

// headChunks is the 64-byte transactions a kept packet's head takes.
func (p *PFE) headChunks(bytes int) int {
	n := min(bytes, p.cfg.HeadBytes)
	return (n + p.cfg.XTXN.MaxBytes - 1) / p.cfg.XTXN.MaxBytes
}

// send creates the packet resend() sends: the kept bytes, with the kept
// frame's identity, to the thread's destination as it stands, leaving as
// an emitted packet does.
func (p *PFE) send(head []byte, length int, id programs.PacketIdent) {
	th := p.tr.th
	phv := p.exec.PHV
	prog := p.prog
	if id.ID == 0 { // kept by a timer thread: a packet of its own
		p.emitID++
		id = programs.PacketIdent{ID: 1<<62 | p.emitID, Flow: -1, BornPs: th.startPs}
	}
	pkt := &packet.Packet{ID: id.ID, Flow: id.Flow, BornPs: id.BornPs, Head: head, Len: length, Passes: 1, NoBridge: true,
		OutPort: int(phv[prog.Std[programs.StdEgressPort].Slot]), Qid: int(phv[prog.Std[programs.StdQid].Slot]),
		McastGrp: int(phv[prog.Std[programs.StdMcastGrp].Slot])}
	th.emitted, th.kept = append(th.emitted, pkt), append(th.kept, true)
	th.addEmit(len(th.emitted) - 1)
}

// BufferUse is what a packet buffer held during the run
// (arch.BufferUser).
func (p *PFE) BufferUse(name string) (arch.BufferUse, bool) {
	for _, bs := range p.state.Buffers {
		if bs.Buf.Name == name {
			return arch.BufferUse{PeakBytes: bs.PeakBytes, PeakPackets: bs.PeakPackets, Bytes: bs.Bytes, Packets: bs.Packets,
				Stores: bs.Stores, Resends: bs.Resends}, true
		}
	}
	return arch.BufferUse{}, false
}

var _ arch.BufferUser = (*PFE)(nil)
