package trio

import (
	"unsafe"

	"archsim/arch/trio/lower"
	"archsim/programs"
)

// The tracer turns what the interpreter runs into a thread's script: the
// lowered cost of each statement, lookup, stateful operation and payload
// access the packet actually executed.

// tracer turns what the interpreter runs into script steps.
type tracer struct {
	p  *PFE
	th *thread
	// The lowered costs by program object (cache.go).
	stmts  ptrTable[int]
	regs   ptrTable[regInfo]
	tables ptrTable[tableInfo]
	adds   ptrTable[addInfo]
	// regList holds the register actions' lowerings by handle
	// (RegisterCost), regClass their classes (addReg).
	regList  []regInfo
	regClass []int32
}

func (t *tracer) Stmt(s programs.Stmt) {
	if n := t.stmtInstr(s); n > 0 {
		t.th.addInstr(n)
	}
}

// StmtCost implements programs.CostTracer: a statement's handle is its
// instructions, resolved when the statement is compiled.
func (t *tracer) StmtCost(s programs.Stmt) int32 { return int32(max(0, t.p.mc.StmtCost(s).Instr)) }

// StmtAt charges a statement of h instructions (StmtCost).
func (t *tracer) StmtAt(h int32) { t.th.addInstr(int(h)) }

func (t *tracer) Lookup(tb *programs.Table, key []int64, hit bool, a *programs.Action) {
	p := t.p
	ti := t.table(tb)
	if ti.filter {
		t.th.addSync(step{x: uint8(lower.XFilter), bank: -1, latency: p.filterPs})
		return
	}
	entry := int64(keySlot(key, tb.Size))
	t.th.addSync(step{x: uint8(lower.XHash), bank: p.bankOf(&ti.place, entry), busy: ti.hashBusy, latency: ti.latency})
}

// hashCycles is the hash engine's time for one transaction on table o: its
// record read plus the hash computation.
func (p *PFE) hashCycles(o *lower.MemObject) int {
	return (o.EntryBytes+p.cfg.SMem.BytesPerCycle-1)/p.cfg.SMem.BytesPerCycle + p.cfg.Lookup.HashCycles
}

// TableOp charges a data-plane operation on a hash table's record slot,
// on the slot's bank ([TRIO] §5: microcode adds and deletes hash records;
// timer threads visit every record to check and clear its REF flag):
//   - insert: a synchronous hash transaction, as a lookup, to find the
//     key's record, then an asynchronous write of the record (none when
//     the table is full);
//   - remove: an asynchronous write invalidating the record (its first
//     xtxn.min_bytes);
//   - aged: a synchronous fetch-and-clear of the REF flag (an RMW of
//     xtxn.min_bytes);
//   - load: a synchronous read of the whole record.
func (t *tracer) TableOp(tb *programs.Table, op programs.TableOpKind, slot int, done bool) {
	p := t.p
	ti := t.table(tb)
	bank, lat := p.bankOf(&ti.place, int64(slot)), ti.latency
	switch op {
	case programs.TableInsert:
		t.th.addSync(step{x: uint8(lower.XHash), bank: bank, busy: ti.hashBusy, latency: lat})
		if done {
			t.th.addAsync(step{x: uint8(lower.XWrite), bank: bank, busy: ti.writeRec, latency: lat})
		}
	case programs.TableRemove:
		t.th.addAsync(step{x: uint8(lower.XWrite), bank: bank, busy: ti.writeMin, latency: lat})
	case programs.TableAged:
		t.th.addSync(step{x: uint8(lower.XRMW), bank: bank, busy: ti.andMin, latency: lat})
	case programs.TableLoad:
		t.th.addSync(step{x: uint8(lower.XRead), bank: bank, busy: ti.readRec, latency: lat})
	}
}

func (t *tracer) Register(ra *programs.RegisterAction, index int) { t.register(t.reg(ra), index) }

// RegisterCost implements programs.CostTracer: a register action's handle
// is its lowering's index in regList.
func (t *tracer) RegisterCost(ra *programs.RegisterAction) int32 { return t.addReg(*t.reg(ra)) }

// RegisterAt charges register action h (RegisterCost) on cell index.
func (t *tracer) RegisterAt(h int32, index int) { t.register(&t.regList[h], index) }

// RegAdds implements programs.RegAddTracer: a run of register adds, each
// charged as StmtAt, Payload and RegisterAt would in turn. The adds'
// payload words are mostly in the chunk the previous add read: that chunk,
// once charged or found fetched, is in local memory, and a word in it
// needs no check. An add whose atomic asynchronous transaction continues
// the open segment's last one (same engine and cost: the adds of one
// 64-byte line) only counts it, as thread.addAsync would.
func (t *tracer) RegAdds(run []programs.RegAdd) {
	lastChunk := -1
	for k := 0; k < len(run); k++ {
		if ri := t.regAdd(&run[k], &lastChunk); ri != nil {
			k += t.sameLine(run[k:], ri, t.th.payloadAt-t.th.tailAt, lastChunk)
		}
	}
}

// regAdd charges one add of a run as StmtAt, Payload and RegisterAt would
// (lastChunk: the tail chunk the run charged last). It returns the add's
// lowering when the add ended on the open segment's last transaction, an
// atomic asynchronous one of its kind (so sameLine may continue it), else
// nil.
func (t *tracer) regAdd(a *programs.RegAdd, lastChunk *int) *regInfo {
	th := t.th
	if a.Stmt != 0 {
		th.addInstr(int(a.Stmt))
	}
	if a.Payload {
		if off := th.payloadAt - th.tailAt + 4*a.Word; uint(off) < uint(th.tailLen) {
			if chunk := t.tailChunk(off); chunk != *lastChunk {
				*lastChunk = chunk
				t.fetch(chunk)
			}
		}
	}
	ri := &t.regList[a.Reg]
	if ri.atomic && !ri.sync && th.segLast > 0 {
		// (segLast > 0: the segment is open.)
		l := &th.script[th.segLast-1]
		if l.x == uint8(lower.XRMW) && l.busy == ri.busy && l.latency == ri.latency && l.bank == t.p.bankOf(&ri.place, int64(a.Index)) {
			l.n++
			th.xtxn[lower.XRMW]++
			return ri
		}
	}
	t.register(ri, a.Index)
	if ri.atomic && !ri.sync && th.segLast > 0 {
		if l := &th.script[th.segLast-1]; l.x == uint8(lower.XRMW) && l.busy == ri.busy && l.latency == ri.latency {
			return ri
		}
	}
	return nil
}

// sameLine charges, in one step, the adds after run[0] that the loop of
// RegAdds would each charge as one more instruction of the open segment
// and one more transaction of its last step, run[0]'s (which the caller
// has charged and found, or made, that step): the adds of a register
// action that charges as run[0]'s (its class) and of the same statement
// cost, on the next cells of run[0]'s 64-byte line (so on its engine),
// reading the next payload words where they need no fetch. It returns how
// many it charged: the same script and counts as the loop, one add at a
// time (TestRegAddsSameLine). Trio-ML adds 1024 gradients a packet, 16 to
// a line.
func (t *tracer) sameLine(run []programs.RegAdd, ri *regInfo, tailOff, lastChunk int) int {
	a := &run[0]
	limit := t.lineRoom(a, ri, tailOff, lastChunk, len(run))
	cls := t.regClass[a.Reg]
	m := 1
	for m < limit {
		b := &run[m]
		if b.Stmt != a.Stmt || b.Payload != a.Payload || b.Index != a.Index+m || t.regClass[b.Reg] != cls || (a.Payload && b.Word != a.Word+m) {
			break
		}
		m++
	}
	return t.chargeLine(a, m-1)
}

// lineRoom is how many adds from a on (a included, at most avail) the
// open segment's last step could take in sameLine's one step: the cells
// left on a's line, and the payload words that need no fetch (up to the
// head's end, up to the end of the chunk charged; all of them when that
// chunk, or the word, runs past the packet). At most 1 (a alone) when no
// add can follow: a statement would open a segment, or the cell has no
// address.
func (t *tracer) lineRoom(a *programs.RegAdd, ri *regInfo, tailOff, lastChunk, avail int) int {
	th := t.th
	if a.Stmt != 0 && th.seg == 0 {
		return 1 // the instruction would open a segment
	}
	first := ri.addr + int64(a.Index)*ri.entryBytes
	if first < 0 || ri.entryBytes <= 0 {
		return 1
	}
	limit := int(((first>>6+1)<<6 - first + ri.entryBytes - 1) / ri.entryBytes)
	if a.Payload {
		switch off := tailOff + 4*a.Word; {
		case off < 0:
			limit = min(limit, (-off+3)/4)
		case off < th.tailLen:
			chunkBytes := t.p.cfg.XTXN.TailChunkBytes
			if end := (lastChunk + 1) * chunkBytes; end < th.tailLen {
				limit = min(limit, (end-off+3)/4)
			}
		}
	}
	return min(limit, avail)
}

// chargeLine charges n more adds like a on the open segment (sameLine's
// step) and returns n.
func (t *tracer) chargeLine(a *programs.RegAdd, n int) int {
	if n <= 0 {
		return 0
	}
	th := t.th
	if a.Stmt != 0 {
		th.instr += n * int(a.Stmt)
		th.script[th.seg-1].n += int32(n * int(a.Stmt))
	}
	th.script[th.segLast-1].n += int32(n)
	th.xtxn[lower.XRMW] += n
	return n
}

// RegAddSpan charges a span of adds as RegAdds would charge its records
// (programs.RegAddSpanTracer) without them: add k is cell index+k, payload
// word word+k, statement s.Stmt[k], register action s.Reg[k]
// (TestRegAddSpan).
func (t *tracer) RegAddSpan(s *programs.AddSpan, index, word int) {
	lastChunk := -1
	n := len(s.Stmt)
	for k := 0; k < n; k++ {
		a := programs.RegAdd{Word: word + k, Index: index + k, Stmt: s.Stmt[k], Reg: s.Reg[k], Payload: true}
		ri := t.regAdd(&a, &lastChunk)
		if ri == nil {
			continue
		}
		limit := t.lineRoom(&a, ri, t.th.payloadAt-t.th.tailAt, lastChunk, n-k)
		cls := t.regClass[a.Reg]
		m := 1
		for m < limit && s.Stmt[k+m] == a.Stmt && t.regClass[s.Reg[k+m]] == cls {
			m++
		}
		k += t.chargeLine(&a, m-1)
	}
}

// addReg appends a register action's lowering to regList and returns its
// handle. Its class is the first earlier handle whose atomic asynchronous
// add charges alike (the same cells, engine time and latency: Trio-ML's
// add0..add15 on one register), or its own.
func (t *tracer) addReg(ri regInfo) int32 {
	h := int32(len(t.regList))
	cls := h
	if ri.atomic && !ri.sync {
		for i, r := range t.regList {
			if r.atomic && !r.sync && r.addr == ri.addr && r.entryBytes == ri.entryBytes && r.busy == ri.busy && r.latency == ri.latency {
				cls = int32(i)
				break
			}
		}
	}
	t.regList = append(t.regList, ri)
	t.regClass = append(t.regClass, cls)
	return h
}

func (t *tracer) register(ri *regInfo, index int) {
	p := t.p
	bank, lat := p.bankOf(&ri.place, int64(index)), ri.latency
	if ri.atomic {
		s := step{x: uint8(lower.XRMW), bank: bank, busy: ri.busy, latency: lat}
		if ri.sync {
			t.th.addSync(s)
		} else {
			t.th.addAsync(s)
		}
		return
	}
	t.th.addSync(step{x: uint8(lower.XRead), bank: bank, busy: ri.busy, latency: lat})
	t.th.addInstr(ri.instr)
	t.th.addAsync(step{x: uint8(lower.XWrite), bank: bank, busy: ri.writeBusy, latency: lat})
}

func (t *tracer) Meter(m *programs.Meter, index int) {
	p := t.p
	a := t.adder(m, unsafe.Pointer(m))
	t.th.addSync(step{x: uint8(lower.XPolicer), bank: p.bankOf(&a.place, int64(index)), busy: a.busy, latency: a.latency})
}

func (t *tracer) Count(c *programs.Counter, index int) {
	p := t.p
	a := t.adder(c, unsafe.Pointer(c))
	t.th.addAsync(step{x: uint8(lower.XCounter), bank: p.bankOf(&a.place, int64(index)), busy: a.busy, latency: a.latency})
}

// Payload charges a tail fetch the first time a thread touches a 64-byte
// chunk of the packet beyond its head.
func (t *tracer) Payload(word int) {
	th := t.th
	off := th.payloadAt + 4*word - th.tailAt
	if uint(off) >= uint(th.tailLen) {
		return // in the head, or past the packet (a timer thread has no packet: tailLen 0)
	}
	t.fetch(t.tailChunk(off))
}

// tailChunk is the tail chunk of the tail's byte off.
func (t *tracer) tailChunk(off int) int {
	if sh := t.p.tailShift; sh >= 0 {
		return off >> sh
	}
	return off / t.p.cfg.XTXN.TailChunkBytes
}

// fetch charges the fetch of tail chunk chunk unless the thread has it.
func (t *tracer) fetch(chunk int) {
	th := t.th
	if th.tailFetched[chunk/64]&(1<<(chunk%64)) != 0 {
		return
	}
	th.tailFetched[chunk/64] |= 1 << (chunk % 64)
	th.addSync(step{x: uint8(lower.XTail), bank: -1, latency: t.p.tailPs})
}

// Bulk charges emit(REG, START, CELLS)'s copy of register cells into the
// new packet's tail as Trio-ML builds its Result packet ([TRIO] §4): a
// loop whose iterations each pull an xtxn.result_chunk_bytes chunk from
// the shared memory (DMEM) into local memory, in synchronous reads of at
// most xtxn.max_bytes on the register's banks, then write it to the packet
// buffer (PMEM, asynchronous, no RMW engine).
func (t *tracer) Bulk(r *programs.Register, start, cells int) {
	p, th := t.p, t.th
	o := p.mc.Object(r)
	pl := p.placeOf(o)
	w := r.Type.Bits / 8
	lat := pl.latency
	total := cells * w
	for off := 0; off < total; off += p.cfg.XTXN.ResultChunkBytes {
		chunk := min(p.cfg.XTXN.ResultChunkBytes, total-off)
		// The chunk's reads are issued back to back and the thread waits
		// for the last reply (replies return in order); then one write
		// puts the chunk in the packet buffer. Each transaction needs an
		// instruction to issue it.
		reads := (chunk + p.cfg.XTXN.MaxBytes - 1) / p.cfg.XTXN.MaxBytes
		for i := 0; i < reads; i++ {
			k := i * p.cfg.XTXN.MaxBytes
			n := min(p.cfg.XTXN.MaxBytes, chunk-k)
			cell := int64(start + (off+k)/w)
			s := step{x: uint8(lower.XRead), bank: p.bankOf(&pl, cell), busy: p.busy("read", n), latency: lat}
			if i == reads-1 {
				th.addSync(s)
			} else {
				th.addAsync(s)
			}
		}
		th.addAsync(step{x: uint8(lower.XPMEM), bank: -1, latency: p.tailPs})
		th.addInstr(max(lower.BulkLoopInstr, (reads+1+p.cfg.Instr.XTXNPerInstr-1)/p.cfg.Instr.XTXNPerInstr))
	}
}

// Clear charges clear(REG, START, CELLS)'s reset of register cells, the
// way Trio-ML empties a block's aggregation buffer ([TRIO] §4): the range
// (cells × the cell's bytes) is written with the largest transactions
// ([TRIO] §2.3: up to xtxn.max_bytes; the last one shorter but at least
// xtxn.min_bytes), asynchronous, each on the bank of its first cell. The loop's body is BulkLoopInstr
// instructions, each issuing instr.xtxn_per_instr writes (the offset
// increment and the branch ride on them): one issue instruction per write
// when xtxn_per_instr is 1.
func (t *tracer) Clear(r *programs.Register, start, cells int) {
	p, th := t.p, t.th
	o := p.mc.Object(r)
	pl := p.placeOf(o)
	w := max(1, (r.Type.Bits+7)/8)
	lat := pl.latency
	total := cells * w
	perIter := lower.BulkLoopInstr * p.cfg.Instr.XTXNPerInstr
	writes := (total + p.cfg.XTXN.MaxBytes - 1) / p.cfg.XTXN.MaxBytes
	for i := 0; i < writes; i++ {
		k := i * p.cfg.XTXN.MaxBytes
		n := max(p.cfg.XTXN.MinBytes, min(p.cfg.XTXN.MaxBytes, total-k))
		cell := int64(start + k/w)
		th.addAsync(step{x: uint8(lower.XWrite), bank: p.bankOf(&pl, cell), busy: p.busy("write", n), latency: lat})
		if (i+1)%perIter == 0 || i == writes-1 {
			th.addInstr(lower.BulkLoopInstr)
		}
	}
}
