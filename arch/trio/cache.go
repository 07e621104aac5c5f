package trio

import (
	"hash/crc32"
	"unsafe"

	"archsim/arch/trio/lower"
	"archsim/programs"
)

// The tracer runs once per statement and stateful operation of every
// packet: what it charges is looked up in small tables keyed by the
// program object's address (open addressing, filled on first use), a few
// ns each instead of a map's hashing of an interface or a pointer. The
// values are the lowered costs (lower.Microcode) in the form the script
// needs: engine times in ps, banks' addresses, latencies.

// ptrTable maps program objects (by address) to V. The keys are held, so
// an address is never reused for another object while the table lives.
type ptrTable[V any] struct {
	keys  []unsafe.Pointer
	vals  []V
	n     int
	shift uint
}

func (t *ptrTable[V]) slot(k unsafe.Pointer) int {
	return int((uint64(uintptr(k)) * 0x9E3779B97F4A7C15) >> t.shift)
}

// get is the value of k, or nil.
func (t *ptrTable[V]) get(k unsafe.Pointer) *V {
	if t.n == 0 {
		return nil
	}
	mask := len(t.keys) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return &t.vals[i]
		case nil:
			return nil
		}
	}
}

// put sets k's value (k is not in the table) and returns where it is.
func (t *ptrTable[V]) put(k unsafe.Pointer, v V) *V {
	if 2*(t.n+1) > len(t.keys) {
		old, oldv := t.keys, t.vals
		size := max(64, 2*len(t.keys))
		t.keys, t.vals, t.n = make([]unsafe.Pointer, size), make([]V, size), 0
		t.shift = uint(64 - bitsOf(size))
		for i, ok := range old {
			if ok != nil {
				t.put(ok, oldv[i])
			}
		}
	}
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != nil {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
	return &t.vals[i]
}

func bitsOf(size int) int {
	b := 0
	for 1<<b < size {
		b++
	}
	return b
}

// stmtPtr is the address of the statement an interface holds (every
// statement is a pointer to its node).
func stmtPtr(s programs.Stmt) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&s))[1]
}

// place is where an object's entries are in the shared memory.
type place struct {
	base, entryBytes int64
	dram             bool
	latency          int64 // round trip, ps
	addr             int64 // base's address among the banks (DRAM after the SRAM)
}

// regInfo is a register action's lowering.
type regInfo struct {
	place
	atomic, sync bool
	instr        int   // body instructions (read-compute-write)
	busy         int64 // engine time of the operation (the read, read-compute-write)
	writeBusy    int64 // read-compute-write: the write back
}

// tableInfo is a table's lookups and record operations.
type tableInfo struct {
	place
	filter   bool  // lookups are filter lookups (no bank)
	hashBusy int64 // a hash transaction: the record's read and the hash
	writeRec int64 // writing a whole record
	writeMin int64 // writing xtxn.min_bytes
	andMin   int64 // fetch-and-clear of xtxn.min_bytes
	readRec  int64 // reading a whole record
}

// addInfo is a meter's or counter's add.
type addInfo struct {
	place
	busy int64
}

func (p *PFE) placeOf(o *lower.MemObject) place {
	pl := place{base: o.Base, entryBytes: int64(o.EntryBytes), dram: o.Memory == "dram", latency: p.latency(o)}
	pl.addr = pl.base
	if pl.dram {
		pl.addr += int64(p.cfg.SMem.SRAMBytes)
	}
	return pl
}

// bankOf is the RMW engine of an entry (smem.Memory.Bank; with a power
// of two of engines, a mask instead of a division).
func (p *PFE) bankOf(pl *place, entry int64) int32 {
	if a := pl.addr + entry*pl.entryBytes; a >= 0 {
		if p.bankMask >= 0 {
			return int32(a >> 6 & p.bankMask)
		}
		// The last line's engine (a loop's accesses stay on one line).
		if line := a >> 6; line != p.bankLine {
			p.bankLine, p.bankLast = line, int32(line%int64(p.cfg.SMem.RMWEngines))
		}
		return p.bankLast
	}
	return int32(p.smem.Bank(pl.base+entry*pl.entryBytes, pl.dram))
}

func (p *PFE) busy(op string, bytes int) int64 { return p.smem.CyclesPs(p.mc.EngineCycles(op, bytes)) }

func (t *tracer) stmtInstr(s programs.Stmt) int {
	k := stmtPtr(s)
	if v := t.stmts.get(k); v != nil {
		return *v
	}
	return *t.stmts.put(k, t.p.mc.StmtCost(s).Instr)
}

func (t *tracer) reg(ra *programs.RegisterAction) *regInfo {
	k := unsafe.Pointer(ra)
	if v := t.regs.get(k); v != nil {
		return v
	}
	p := t.p
	rc := p.mc.RegisterCost(ra)
	ri := regInfo{place: p.placeOf(rc.Object), atomic: rc.Atomic, sync: rc.Sync, instr: rc.Instr,
		busy: p.smem.CyclesPs(rc.Cycles), writeBusy: p.busy("write", rc.Bytes)}
	return t.regs.put(k, ri)
}

func (t *tracer) table(tb *programs.Table) *tableInfo {
	k := unsafe.Pointer(tb)
	if v := t.tables.get(k); v != nil {
		return v
	}
	p := t.p
	ti := tableInfo{filter: p.mc.LookupKind(tb) == lower.XFilter}
	if o := p.mc.Object(tb); o != nil {
		ti.place = p.placeOf(o)
		ti.hashBusy = p.smem.CyclesPs(p.hashCycles(o))
		ti.writeRec = p.busy("write", o.EntryBytes)
		ti.writeMin = p.busy("write", p.cfg.XTXN.MinBytes)
		ti.andMin = p.busy("and", p.cfg.XTXN.MinBytes)
		ti.readRec = p.busy("read", o.EntryBytes)
	}
	return t.tables.put(k, ti)
}

func (t *tracer) adder(x any, k unsafe.Pointer) *addInfo {
	if v := t.adds.get(k); v != nil {
		return v
	}
	p := t.p
	o := p.mc.Object(x)
	return t.adds.put(k, addInfo{place: p.placeOf(o), busy: p.busy("add", o.EntryBytes)})
}

// keySlot is programs.KeySlot (the CRC-32 of the key's little-endian
// words, modulo the size) without its allocation per call.
func keySlot(key []int64, size int) int {
	crc := ^uint32(0)
	t := &crcSlicing8
	for _, k := range key {
		// Eight bytes a step (slicing-by-8): the word's low half is
		// folded into the CRC, then eight table lookups, independent of
		// each other, replace eight dependent ones.
		crc ^= uint32(k)
		hi := uint32(uint64(k) >> 32)
		crc = t[0][hi>>24] ^ t[1][hi>>16&0xff] ^ t[2][hi>>8&0xff] ^ t[3][hi&0xff] ^
			t[4][crc>>24] ^ t[5][crc>>16&0xff] ^ t[6][crc>>8&0xff] ^ t[7][crc&0xff]
	}
	return int(int64(^crc) % int64(max(1, size)))
}

// crcSlicing8 are the slicing-by-8 tables of CRC-32 (IEEE): t[0] is the
// byte table, t[i][b] the CRC of byte b followed by i zero bytes.
var crcSlicing8 = func() (t [8][256]uint32) {
	t[0] = *crc32.IEEETable
	for i := 1; i < 8; i++ {
		for b := 0; b < 256; b++ {
			c := t[i-1][b]
			t[i][b] = c>>8 ^ t[0][c&0xff]
		}
	}
	return
}()
