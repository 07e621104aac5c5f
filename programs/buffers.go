package programs

// Packet buffers: the packets a program keeps (packet_buffers:, the
// built-ins store, resend, release, held and buffered; builtins.go).

// BufferState is a packet buffer's contents in one State, with what it
// has held.
type BufferState struct {
	Buf   *PacketBuffer
	slots []storedPacket
	// Bytes and Packets are what it holds now; PeakBytes and PeakPackets
	// the most it held; Stores, Resends and Releases count the built-ins'
	// runs (a resend of an empty slot and a release of one count too).
	Bytes, Packets         int64
	PeakBytes, PeakPackets int64
	Stores, Resends        int64
	Releases               int64
}

// storedPacket is one slot's copy.
type storedPacket struct {
	head   []byte
	length int
	id     PacketIdent
	held   bool
}

// PacketIdent is a packet's identity as its chip gives it (Exec.Ident):
// what a model tracking frames end to end needs to know a resent copy is
// the frame it stored.
type PacketIdent struct {
	ID     uint64
	Flow   int
	BornPs int64
}

// BufferTracer is an optional interface of a Tracer: a timing model sees
// the packet-buffer built-ins with the bytes they move (a resend of an
// empty slot moves 0).
type BufferTracer interface {
	Store(b *PacketBuffer, slot, bytes int)
	Resend(b *PacketBuffer, slot, bytes int)
	Release(b *PacketBuffer, slot int)
	BufferRead(b *PacketBuffer)
}

// execStore runs store(BUFFER, SLOT): slot SLOT (modulo the buffer's
// slots) keeps a copy of the packet as it stands: its valid headers,
// deparsed from the header vector as they are now, then the payload bytes
// the model holds; its length is those headers plus the frame's payload
// (Exec.PayloadLen). What the slot held before is replaced.
func execStore(x *Exec, s *BuiltinStmt) {
	slot := cellIndex(x.eval(s.Args[0]), int64(s.Buf.Slots))
	x.store(s.Buf, slot)
}

func (x *Exec) store(b *PacketBuffer, slot int) {
	bs := x.State.Buffers[b.Index]
	hdrs, _ := x.State.Prog.Codec().Deparse(x.PHV, nil, 0, 0, false)
	head := append(hdrs, x.Payload...)
	length := len(hdrs) + max(x.PayloadLen, len(x.Payload))
	sp := &bs.slots[slot]
	if sp.held {
		bs.Bytes -= int64(sp.length)
		bs.Packets--
	}
	*sp = storedPacket{head: head, length: length, id: x.Ident, held: true}
	bs.Bytes += int64(length)
	bs.Packets++
	bs.PeakBytes, bs.PeakPackets = max(bs.PeakBytes, bs.Bytes), max(bs.PeakPackets, bs.Packets)
	bs.Stores++
	if bt, ok := x.Tracer.(BufferTracer); ok {
		bt.Store(b, slot, length)
	}
}

// execResend runs resend(BUFFER, SLOT): a copy of the packet the slot
// holds goes to std.egress_port, std.mcast_grp and std.qid as they stand
// (the chip sends it, Exec.Send); the slot keeps its copy. An empty slot
// sends nothing.
func execResend(x *Exec, s *BuiltinStmt) {
	slot := cellIndex(x.eval(s.Args[0]), int64(s.Buf.Slots))
	x.resend(s.Buf, slot)
}

func (x *Exec) resend(b *PacketBuffer, slot int) {
	bs := x.State.Buffers[b.Index]
	sp := &bs.slots[slot]
	bs.Resends++
	n := 0
	if sp.held {
		n = sp.length
	}
	if bt, ok := x.Tracer.(BufferTracer); ok {
		bt.Resend(b, slot, n)
	}
	if sp.held && x.Send != nil {
		x.Send(append([]byte(nil), sp.head...), sp.length, sp.id)
	}
}

// execRelease runs release(BUFFER, SLOT): the slot is emptied.
func execRelease(x *Exec, s *BuiltinStmt) {
	slot := cellIndex(x.eval(s.Args[0]), int64(s.Buf.Slots))
	x.release(s.Buf, slot)
}

func (x *Exec) release(b *PacketBuffer, slot int) {
	bs := x.State.Buffers[b.Index]
	sp := &bs.slots[slot]
	if sp.held {
		bs.Bytes -= int64(sp.length)
		bs.Packets--
		*sp = storedPacket{}
	}
	bs.Releases++
	if bt, ok := x.Tracer.(BufferTracer); ok {
		bt.Release(b, slot)
	}
}

// evalHeld is held(BUFFER, SLOT): 1 when the slot holds a packet.
func evalHeld(x *Exec, e *CallExpr) int64 {
	return x.held(e.Buf, cellIndex(x.eval(e.Args[0]), int64(e.Buf.Slots)))
}

func (x *Exec) held(b *PacketBuffer, slot int) int64 {
	if bt, ok := x.Tracer.(BufferTracer); ok {
		bt.BufferRead(b)
	}
	return b2i(x.State.Buffers[b.Index].slots[slot].held)
}

// evalBuffered is buffered(BUFFER): the bytes the buffer holds (their
// frames' lengths), saturated at 2^32-1.
func evalBuffered(x *Exec, e *CallExpr) int64 { return x.buffered(e.Buf) }

func (x *Exec) buffered(b *PacketBuffer) int64 {
	if bt, ok := x.Tracer.(BufferTracer); ok {
		bt.BufferRead(b)
	}
	return min(x.State.Buffers[b.Index].Bytes, 1<<32-1)
}
