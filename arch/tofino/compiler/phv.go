package compiler

import (
	"fmt"
	"sort"
	"strings"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// PHV allocation: every field a thread carries must sit in a packet header
// vector container of 8, 16 or 32 bits ([BFP4C] phv/phv_spec.cpp; sizes and
// counts in configs/tofino*.yaml, tofino.phv). bf-p4c's allocator is a large
// search over field slices, live ranges and dozens of constraints; this is a
// deterministic first-fit-decreasing packer with a few of its rules, enough
// to count containers per thread and size and to reject a program whose
// fields cannot fit. What a thread carries:
//
//   - every field of every header its parser extracts (the egress thread's
//     parser is the program's egress parser, or its parser), and of every
//     header its control code reads, writes or validates;
//   - the metadata and intrinsic (std.*) fields its logical tables read or
//     write, and the temporaries the compiler makes for gateway conditions;
//   - bridged metadata, in both threads (ingress deparses it, egress parses it);
//   - one validity (POV) bit per header it carries.
//
// The egress thread carries nothing when the program has no egress code and
// no egress parser (a TNA program with an empty egress parses nothing there).
//
// The rules (each a test in phv_test.go):
//
//  1. Byte runs: a header's fields are taken in wire order and joined until
//     the run ends on a byte boundary (version+ihl, flags+frag_offset): the
//     deparser emits every container byte by byte, so a byte comes from one
//     container. A run (or a metadata field) is a unit the packer places whole.
//  2. No split: a unit never splits unless it is wider than the largest
//     container; then it is cut into 32-bit pieces from its most
//     significant bit, the last piece the rest (a 48-bit MAC: 32 + 16).
//  3. Decreasing first fit: units (pieces) are placed widest first, ties in
//     declaration order; each goes into the first open container of its
//     packing group with enough free bits, else opens a container of the
//     smallest size that holds it. Containers are never enlarged.
//  4. Packing groups: units share a container only with units of the same
//     header; metadata, temporaries, intrinsic fields, bridged metadata and
//     POV bits form one group each.
//  5. Solitary: a field written by an action ALU operation other than a
//     move (add, subtract, logic with a second operand, shift, a built-in
//     computed by the ALU) gets a container of its own, as bf-p4c marks such
//     fields solitary (PHV::Field SolitaryReason::ALU: the operation works on
//     the whole container).
//  6. One MAU writer: a container holds at most one unit the MAU writes
//     (the documented simple rule for bf-p4c's action constraints: an action
//     writes a container with one instruction, so two written fields of one
//     container could need two). POV bits are exempt: setValid/setInvalid
//     write constants, which one instruction combines.
//  7. Tagalong (Tofino 1): a header or bridged unit the thread's MAU never
//     reads or writes is only carried from parser to deparser and goes to a
//     tagalong container, which the MAU cannot see; POV bits stay in normal
//     containers. Tagalong containers go to a thread by collections
//     (tagalong_per_collection of each size); when a thread's collections run
//     out, its last carried units move to normal containers.
//  8. Threads: a container belongs to one thread. Per size, the first
//     ingress_only_groups MAU groups are ingress's, the next
//     egress_only_groups egress's, and the rest (minus dark containers,
//     which the parser and deparser cannot reach) go to a thread
//     thread_group containers at a time (bf-p4c's deparser groups).
//  9. Fitting: while a thread needs more containers of a size than it can
//     have, the packer splits its last unit (in declaration order) that fills
//     more than half a container of that size and is not solitary into
//     pieces of the next smaller size, as bf-p4c slices fields (a SALU input
//     or a moved value may span two containers); when none is left it moves
//     its last unit of that size up to the next larger size; when neither
//     is possible the program does not fit (rule phv-allocation).
//
// Not modelled: live ranges (bf-p4c overlays fields that are never live at
// once, and uses Tofino 2's dark containers to hold them), alignment of a
// field inside its container, mocha containers' whole-container writes,
// the individually assigned containers of Tofino 1, and the parser's
// extraction limits per state.

// phvPool is where a unit lives: normal (MAU-visible) or tagalong.
type phvPool int

const (
	poolNormal phvPool = iota
	poolTagalong
)

// phvUnit is what the packer places: a byte run of a header, a metadata,
// intrinsic or temporary field, or a POV bit.
type phvUnit struct {
	name     string
	fields   []*programs.Field
	bits     int
	group    string
	mau      bool // read or written by the thread's MAU
	written  bool // written by the thread's MAU
	solitary bool // written by an ALU operation: alone in its container
	pov      bool
	carried  bool // header or bridged: parsed and deparsed
	order    int
	pos      programs.Pos
	pool     phvPool
	piece    int  // widest piece, bits (32 unless split to fit)
	minSize  int  // index into spec.PHVBits of the smallest container allowed
	split    bool // split to fit (rule 9)
	promoted bool // moved up a size to fit (rule 9)
}

// pieces returns the widths the unit is cut into (rule 2, rule 9).
func (u *phvUnit) pieces() []int {
	var out []int
	for left := u.bits; left > 0; left -= u.piece {
		out = append(out, min(left, u.piece))
	}
	return out
}

// phvBin is one allocated container.
type phvBin struct {
	size     int // index into spec.PHVBits
	used     int
	group    string
	written  bool
	solitary bool
	units    []*phvUnit
}

// PHVCounts is a number of PHV containers per width.
type PHVCounts struct {
	B8  int `json:"b8"`
	B16 int `json:"b16"`
	B32 int `json:"b32"`
}

// Of returns the count for spec.PHVBits[i].
func (c PHVCounts) Of(i int) int { return [3]int{c.B8, c.B16, c.B32}[i] }

func (c *PHVCounts) set(i, v int) { *[3]*int{&c.B8, &c.B16, &c.B32}[i] = v }

// Total is the number of containers of all widths.
func (c PHVCounts) Total() int { return c.B8 + c.B16 + c.B32 }

// PHVPct is a share of the chip's containers per width, in percent.
type PHVPct struct {
	B8  float64 `json:"b8"`
	B16 float64 `json:"b16"`
	B32 float64 `json:"b32"`
}

// PHVThread is one thread's PHV allocation.
type PHVThread struct {
	Normal      PHVCounts `json:"normal"`       // MAU-visible containers used, per width
	Tagalong    PHVCounts `json:"tagalong"`     // tagalong containers used, per width
	NormalPct   PHVPct    `json:"normal_pct"`   // of the chip's MAU-visible containers of that width
	TagalongPct PHVPct    `json:"tagalong_pct"` // of the chip's tagalong containers of that width
	Containers  int       `json:"containers"`   // normal + tagalong
	Pct         float64   `json:"containers_pct"`
	Fields      int       `json:"fields"`     // header, metadata and intrinsic fields carried
	POVBits     int       `json:"pov_bits"`   // header validity bits
	FieldBits   int       `json:"field_bits"` // bits of those fields and POV bits
	Split       int       `json:"split_units"`
}

// PHVUse is a placed program's PHV allocation.
type PHVUse struct {
	Ingress  PHVThread `json:"ingress"`
	Egress   PHVThread `json:"egress"`
	Capacity struct {
		Normal   PHVCounts `json:"normal"`
		Tagalong PHVCounts `json:"tagalong"`
	} `json:"capacity"`
	Containers int     `json:"containers"`     // both threads
	Pct        float64 `json:"containers_pct"` // of all the chip's containers
	bins       [2][2][]*phvBin
}

// Thread returns one thread's allocation.
func (u *PHVUse) Thread(g spec.Gress) *PHVThread {
	if g == spec.Egress {
		return &u.Egress
	}
	return &u.Ingress
}

// phvAlloc is the packer's state.
type phvAlloc struct {
	c     *spec.Config
	prog  *programs.Program
	units [2][]*phvUnit
	bins  [2][2][]*phvBin
	need  [2][2][3]int
}

// allocatePHV packs the program's fields into PHV containers (see the rules
// above) or returns the phv-allocation rule's error.
func allocatePHV(c *spec.Config, prog *programs.Program, lts []*LT) (*PHVUse, error) {
	a := &phvAlloc{c: c, prog: prog}
	a.units[spec.Ingress] = threadUnits(c, prog, lts, spec.Ingress)
	if egressActive(prog) {
		a.units[spec.Egress] = threadUnits(c, prog, lts, spec.Egress)
	}
	limit := 1
	for _, us := range a.units {
		limit += 4 * len(us)
	}
	for range limit {
		a.pack()
		if a.fixTagalong() {
			continue
		}
		g, i, ok := a.normalOverflow()
		if ok {
			return a.result(), nil
		}
		if !a.shrink(g, i) && (a.groups(1-g, i) == 0 || !a.shrink(1-g, i)) {
			return nil, a.overflowError(g, i)
		}
	}
	return nil, ruleErr(RulePHV, programs.Pos{}, "the PHV packer did not converge")
}

// egressActive reports whether the egress thread carries anything.
func egressActive(prog *programs.Program) bool {
	return prog.EgressParser != nil || prog.Egress != nil && len(prog.Egress.Body) > 0
}

// threadUnits builds a thread's units in declaration order.
func threadUnits(c *spec.Config, prog *programs.Program, lts []*LT, g spec.Gress) []*phvUnit {
	var used, written fieldSet
	solitary := map[*programs.Field]bool{}
	var temps []*programs.Field
	for _, lt := range lts {
		if lt.Gress != g {
			continue
		}
		used.union(lt.MatchReads)
		used.union(lt.ActionReads)
		used.union(lt.Writes)
		written.union(lt.Writes)
		for _, body := range lt.Actions {
			aluDestinations(body, solitary)
		}
		for _, s := range lt.Stmts {
			if as, ok := s.(*programs.AssignStmt); ok && as.Dst.Field != nil && as.Dst.Field.Slot >= len(prog.Fields) {
				temps = append(temps, as.Dst.Field)
			}
		}
	}
	tagalong := c.PHV.B8.Tagalong+c.PHV.B16.Tagalong+c.PHV.B32.Tagalong > 0
	var units []*phvUnit
	add := func(u *phvUnit) {
		for _, f := range u.fields {
			u.mau = u.mau || used.has(f)
			u.written = u.written || written.has(f)
			u.solitary = u.solitary || solitary[f]
		}
		u.order = len(units)
		u.piece = spec.PHVBits[2]
		if tagalong && u.carried && !u.mau && !u.pov {
			u.pool = poolTagalong
		}
		units = append(units, u)
	}
	parser := prog.Parser
	if g == spec.Egress && prog.EgressParser != nil {
		parser = prog.EgressParser
	}
	extracted := map[*programs.Header]bool{}
	if parser != nil {
		for _, st := range parser.States {
			for _, h := range st.Extract {
				extracted[h] = true
			}
		}
	}
	var headers []*programs.Header
	for _, h := range prog.Headers {
		ref := used.has(h.Valid)
		for _, f := range h.Fields {
			ref = ref || used.has(f)
		}
		if extracted[h] || ref {
			headers = append(headers, h)
		}
	}
	for _, h := range headers {
		var run []*programs.Field
		bits := 0
		for _, f := range h.Fields {
			run = append(run, f)
			bits += f.Type.Bits
			if bits%8 == 0 {
				add(&phvUnit{name: joinNames(run), fields: run, bits: bits, group: h.Name, carried: true, pos: run[0].Pos})
				run, bits = nil, 0
			}
		}
		if len(run) > 0 { // the loader requires whole bytes; keep any rest anyway
			add(&phvUnit{name: joinNames(run), fields: run, bits: bits, group: h.Name, carried: true, pos: run[0].Pos})
		}
	}
	for _, f := range prog.Meta {
		if f.Bridged {
			add(&phvUnit{name: f.Name, fields: []*programs.Field{f}, bits: f.Type.Bits, group: "$bridged", carried: true, pos: f.Pos})
		} else if used.has(f) {
			add(&phvUnit{name: f.Name, fields: []*programs.Field{f}, bits: f.Type.Bits, group: "$meta", pos: f.Pos})
		}
	}
	for _, f := range prog.Std {
		if f != nil && used.has(f) && f.Std != programs.StdTimerIndex { // timer_index is a folded constant
			add(&phvUnit{name: f.Name, fields: []*programs.Field{f}, bits: f.Type.Bits, group: "$std", pos: f.Pos})
		}
	}
	seen := map[*programs.Field]bool{}
	for _, f := range temps {
		if !seen[f] {
			seen[f] = true
			add(&phvUnit{name: f.Name, fields: []*programs.Field{f}, bits: f.Type.Bits, group: "$meta", pos: f.Pos})
		}
	}
	for _, h := range headers {
		add(&phvUnit{name: h.Valid.Name, fields: []*programs.Field{h.Valid}, bits: 1, group: "$pov", pov: true, pos: h.Pos})
	}
	return units
}

func joinNames(fs []*programs.Field) string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return strings.Join(n, "+")
}

// aluDestinations marks the fields an action body writes with an ALU
// operation other than a move (rule 5).
func aluDestinations(body []programs.Stmt, out map[*programs.Field]bool) {
	for _, s := range body {
		switch s := s.(type) {
		case *programs.AssignStmt:
			if s.Dst.Field != nil && !isMove(s.Src) {
				out[s.Dst.Field] = true
			}
		case *programs.IfStmt:
			aluDestinations(s.Then, out)
			aluDestinations(s.Else, out)
		}
	}
}

// isMove reports whether an action writes e into a field without an ALU
// operation: a field, a constant, action data, a validity bit, a stateful
// ALU's or meter's result, a hash or random unit's output (or a slice or
// cast of one of those).
func isMove(e programs.Expr) bool {
	switch x := e.(type) {
	case *programs.ConstExpr, *programs.FieldExpr, *programs.ParamExpr, *programs.ValidExpr,
		*programs.RegisterCall, *programs.MeterCall:
		return true
	case *programs.SliceExpr:
		return isMove(x.X)
	case *programs.CastExpr:
		return isMove(x.X)
	case *programs.CallExpr:
		return x.Builtin.Tofino.Unit != programs.TofinoALU
	}
	return false
}

// piece is one piece of a unit, as the packer sorts them.
type piece struct {
	u    *phvUnit
	bits int
	idx  int
}

// pack runs the first-fit-decreasing packer on every thread and pool.
func (a *phvAlloc) pack() {
	for g := range a.units {
		for pool := range 2 {
			var ps []piece
			for _, u := range a.units[g] {
				if u.pool != phvPool(pool) {
					continue
				}
				for i, b := range u.pieces() {
					ps = append(ps, piece{u, b, i})
				}
			}
			sort.SliceStable(ps, func(i, j int) bool {
				if ps[i].bits != ps[j].bits {
					return ps[i].bits > ps[j].bits
				}
				if ps[i].u.order != ps[j].u.order {
					return ps[i].u.order < ps[j].u.order
				}
				return ps[i].idx < ps[j].idx
			})
			var bins []*phvBin
			for _, p := range ps {
				bins = place(bins, p)
			}
			a.bins[g][pool] = bins
			a.need[g][pool] = [3]int{}
			for _, b := range bins {
				a.need[g][pool][b.size]++
			}
		}
	}
}

// place puts one piece into the first open container that takes it (rules
// 3-6), or a new one.
func place(bins []*phvBin, p piece) []*phvBin {
	u := p.u
	if !u.solitary {
		for _, b := range bins {
			if b.group != u.group || b.solitary || b.size < u.minSize || b.used+p.bits > spec.PHVBits[b.size] {
				continue
			}
			if u.written && b.written && !u.pov {
				continue
			}
			b.used += p.bits
			b.written = b.written || u.written
			b.units = appendOnce(b.units, u)
			return bins
		}
	}
	size := u.minSize
	for size < len(spec.PHVBits)-1 && spec.PHVBits[size] < p.bits {
		size++
	}
	return append(bins, &phvBin{size: size, used: p.bits, group: u.group, written: u.written, solitary: u.solitary, units: []*phvUnit{u}})
}

// collections returns the tagalong collections a thread's tagalong
// containers take (rule 7), or -1 if a size has no tagalong containers.
func (a *phvAlloc) collections(g int) int {
	n := 0
	for i := range spec.PHVBits {
		need := a.need[g][poolTagalong][i]
		if need == 0 {
			continue
		}
		per := a.c.PHV.Size(i).TagalongPerCollection
		if per == 0 {
			return -1
		}
		n = max(n, ceilDiv(need, per))
	}
	return n
}

// fixTagalong moves the last tagalong unit of the thread that takes the
// most collections to normal containers when the threads' collections (or
// a size's tagalong containers) run out; it reports whether it moved one.
func (a *phvAlloc) fixTagalong() bool {
	c0, c1 := a.collections(0), a.collections(1)
	over := c0 < 0 || c1 < 0 || c0+c1 > a.c.PHV.TagalongCollections
	if !over {
		return false
	}
	g := 0
	if c1 < 0 || (c0 >= 0 && c1 > c0) {
		g = 1
	}
	for j := len(a.units[g]) - 1; j >= 0; j-- {
		if u := a.units[g][j]; u.pool == poolTagalong {
			u.pool = poolNormal
			return true
		}
	}
	g = 1 - g
	for j := len(a.units[g]) - 1; j >= 0; j-- {
		if u := a.units[g][j]; u.pool == poolTagalong {
			u.pool = poolNormal
			return true
		}
	}
	return false
}

// groups returns the thread groups a thread needs beyond its own
// containers of size i (rule 8).
func (a *phvAlloc) groups(g, i int) int {
	s := a.c.PHV.Size(i)
	own := s.IngressOnly()
	if g == 1 {
		own = s.EgressOnly()
	}
	return ceilDiv(max(0, a.need[g][poolNormal][i]-own), s.ThreadGroup)
}

// limit is the most containers of size i thread g can have, given what
// the other thread takes.
func (a *phvAlloc) limit(g, i int) int {
	s := a.c.PHV.Size(i)
	own := s.IngressOnly()
	if g == 1 {
		own = s.EgressOnly()
	}
	return own + max(0, s.SharedGroups()-a.groups(1-g, i))*s.ThreadGroup
}

// normalOverflow returns the widest size whose normal containers the two
// threads overflow, and the thread to shrink first (the one taking more
// shared groups, ingress on a tie); ok when everything fits.
func (a *phvAlloc) normalOverflow() (g, i int, ok bool) {
	for i = len(spec.PHVBits) - 1; i >= 0; i-- {
		gi, ge := a.groups(0, i), a.groups(1, i)
		if gi+ge > a.c.PHV.Size(i).SharedGroups() {
			if ge > gi {
				return 1, i, false
			}
			return 0, i, false
		}
	}
	return 0, 0, true
}

// shrink applies rule 9 to thread g's containers of size i: split the
// last unit that fills more than half such a container, else move the
// last unit of that size up a size. It reports whether it changed one.
func (a *phvAlloc) shrink(g, i int) bool {
	us := a.units[g]
	if i > 0 {
		for j := len(us) - 1; j >= 0; j-- {
			u := us[j]
			if u.pool != poolNormal || u.solitary || u.promoted || !a.inSize(g, u, i) || u.piece <= spec.PHVBits[i-1] {
				continue
			}
			if largest(u) <= spec.PHVBits[i-1] {
				continue
			}
			u.piece = spec.PHVBits[i-1]
			u.split = true
			return true
		}
	}
	// Moving up only helps while the thread has room in the next size.
	if i < len(spec.PHVBits)-1 && a.need[g][poolNormal][i+1] < a.limit(g, i+1) {
		for j := len(us) - 1; j >= 0; j-- {
			u := us[j]
			if u.pool != poolNormal || u.split || u.minSize > i || !a.inSize(g, u, i) {
				continue
			}
			u.minSize = i + 1
			u.promoted = true
			return true
		}
	}
	return false
}

// largest is the widest piece of a unit.
func largest(u *phvUnit) int { return min(u.bits, u.piece) }

// inSize reports whether a unit has a piece in a normal container of size i.
func (a *phvAlloc) inSize(g int, u *phvUnit, i int) bool {
	for _, b := range a.bins[g][poolNormal] {
		if b.size == i {
			for _, x := range b.units {
				if x == u {
					return true
				}
			}
		}
	}
	return false
}

// overflowError is the phv-allocation error for thread g and size i.
func (a *phvAlloc) overflowError(g, i int) error {
	s := a.c.PHV.Size(i)
	bits := spec.PHVBits[i]
	gress := spec.Gress(g)
	var names []string
	var pos programs.Pos
	solitary := 0
	for _, b := range a.bins[g][poolNormal] {
		if b.size != i {
			continue
		}
		if b.solitary {
			solitary++
		}
		for _, u := range b.units {
			if len(names) == 0 {
				pos = u.pos
			}
			names = appendOnce(names, u.name)
		}
	}
	list := names
	if len(list) > 8 {
		list = append(append([]string{}, names[:8]...), fmt.Sprintf("and %d more", len(names)-8))
	}
	why := fmt.Sprintf("%d are %s-only", s.EgressOnly(), spec.Egress)
	if g == 1 {
		why = fmt.Sprintf("%d are %s-only", s.IngressOnly(), spec.Ingress)
	}
	if s.Dark > 0 {
		why += fmt.Sprintf(", %d are dark (no parser or deparser access)", s.Dark)
	}
	why += fmt.Sprintf(", %s takes %d of the %d groups of %d the threads share", spec.Gress(1-g), a.groups(1-g, i), s.SharedGroups(), s.ThreadGroup)
	split := "after splitting every field that may split"
	if solitary > 0 {
		split += fmt.Sprintf("; %d hold a field written by an ALU operation, which stays whole and alone", solitary)
	}
	return ruleErr(RulePHV, pos, "phv: %s needs %d %d-bit containers, the chip has %d and %s can have at most %d of them (%s), %s; fields: %s",
		gress, a.need[g][poolNormal][i], bits, s.Containers, gress, a.limit(g, i), why, split, strings.Join(list, ", "))
}

// result summarizes the allocation.
func (a *phvAlloc) result() *PHVUse {
	c := a.c
	r := &PHVUse{bins: a.bins}
	total := 0
	for i := range spec.PHVBits {
		s := c.PHV.Size(i)
		r.Capacity.Normal.set(i, s.Containers)
		r.Capacity.Tagalong.set(i, s.Tagalong)
		total += s.Containers + s.Tagalong
	}
	pct := func(used, capacity int) float64 {
		if capacity == 0 {
			return 0
		}
		return 100 * float64(used) / float64(capacity)
	}
	for g := range a.units {
		t := r.Thread(spec.Gress(g))
		for i := range spec.PHVBits {
			t.Normal.set(i, a.need[g][poolNormal][i])
			t.Tagalong.set(i, a.need[g][poolTagalong][i])
		}
		t.NormalPct = PHVPct{pct(t.Normal.B8, r.Capacity.Normal.B8), pct(t.Normal.B16, r.Capacity.Normal.B16), pct(t.Normal.B32, r.Capacity.Normal.B32)}
		t.TagalongPct = PHVPct{pct(t.Tagalong.B8, r.Capacity.Tagalong.B8), pct(t.Tagalong.B16, r.Capacity.Tagalong.B16), pct(t.Tagalong.B32, r.Capacity.Tagalong.B32)}
		t.Containers = t.Normal.Total() + t.Tagalong.Total()
		t.Pct = pct(t.Containers, total)
		for _, u := range a.units[g] {
			if u.pov {
				t.POVBits++
			} else {
				t.Fields += len(u.fields)
			}
			t.FieldBits += u.bits
			if u.split {
				t.Split++
			}
		}
		r.Containers += t.Containers
	}
	r.Pct = pct(r.Containers, total)
	return r
}

// ContainerOf returns the width and kind ("normal" or "tagalong") of the
// container holding (the first piece of) a field in a thread, or 0 if the
// thread does not carry it; for tests and reports.
func (u *PHVUse) ContainerOf(g spec.Gress, f *programs.Field) (bits int, kind string) {
	for pool, bins := range u.bins[g] {
		for _, b := range bins {
			for _, x := range b.units {
				for _, y := range x.fields {
					if y == f {
						return spec.PHVBits[b.size], [...]string{"normal", "tagalong"}[pool]
					}
				}
			}
		}
	}
	return 0, ""
}

// SharesContainer reports whether two fields sit in one container of a
// thread.
func (u *PHVUse) SharesContainer(g spec.Gress, f1, f2 *programs.Field) bool {
	for _, bins := range u.bins[g] {
		for _, b := range bins {
			has1, has2 := false, false
			for _, x := range b.units {
				for _, y := range x.fields {
					has1 = has1 || y == f1
					has2 = has2 || y == f2
				}
			}
			if has1 && has2 {
				return true
			}
		}
	}
	return false
}
