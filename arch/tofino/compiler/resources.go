package compiler

import (
	"fmt"
	"math/bits"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// Resources is what logical tables use in one MAU stage, in the units
// bf-p4c's mau.resources.log reports.
type Resources struct {
	SRAM          int `json:"sram"`
	MapRAM        int `json:"map_ram"`
	TCAM          int `json:"tcam"`
	ExactXbar     int `json:"exact_xbar_bytes"`
	TernaryXbar   int `json:"ternary_xbar_bytes"`
	HashBits      int `json:"hash_bits"`
	HashDist      int `json:"hash_dist_units"`
	Gateways      int `json:"gateways"`
	LogicalIDs    int `json:"logical_tables"`
	TernaryTables int `json:"ternary_tables"`
	VLIW          int `json:"vliw_instructions"`
	MeterALU      int `json:"meter_alus"`
	StatsALU      int `json:"stats_alus"`
}

func (r *Resources) add(o Resources) {
	r.SRAM += o.SRAM
	r.MapRAM += o.MapRAM
	r.TCAM += o.TCAM
	r.ExactXbar += o.ExactXbar
	r.TernaryXbar += o.TernaryXbar
	r.HashBits += o.HashBits
	r.HashDist += o.HashDist
	r.Gateways += o.Gateways
	r.LogicalIDs += o.LogicalIDs
	r.TernaryTables += o.TernaryTables
	r.VLIW += o.VLIW
	r.MeterALU += o.MeterALU
	r.StatsALU += o.StatsALU
}

// xbarUse is input-crossbar bytes a logical table needs for one field.
type xbarUse struct {
	slot    int
	bytes   int
	ternary bool
}

// ltCost is a logical table's own resource needs (before stage-level
// sharing of crossbar bytes, instruction rows and stateful objects).
type ltCost struct {
	res     Resources // SRAM, TCAM, hash, gateways, logical IDs, ALUs of the table itself
	xbar    []xbarUse
	vliw    [][]int // per PHV-writing action, the PHV slots it writes (see imem)
	noops   int     // actions that write nothing (the first takes the no-op slot)
	tcam    bool    // a TCAM lookup (adds to the stage pipeline length)
	indices []hashIndex
}

// hashIndex is one hash-distribution use: an index expression and its width.
type hashIndex struct {
	key  string
	bits int
}

func indexKey(g spec.Gress, ix indexUse) hashIndex {
	return hashIndex{key: fmt.Sprintf("%d:%s", g, exprKey(ix.expr)), bits: ceilLog2(ix.size)}
}

// exprKey is a canonical text of an index expression (fields by slot).
func exprKey(e programs.Expr) string {
	switch x := e.(type) {
	case *programs.FieldExpr:
		return fmt.Sprintf("f%d", x.F.Slot)
	case *programs.ConstExpr:
		return fmt.Sprintf("c%d", x.Val)
	case *programs.SliceExpr:
		return fmt.Sprintf("%s[%d:%d]", exprKey(x.X), x.Hi, x.Lo)
	case *programs.CastExpr:
		return fmt.Sprintf("(%s)%s", x.T, exprKey(x.X))
	case *programs.BinaryExpr:
		return fmt.Sprintf("(%s%s%s)", exprKey(x.X), x.Op, exprKey(x.Y))
	case *programs.CallExpr:
		if x.Builtin.Tofino.Unit != programs.TofinoALU || x.Builtin.Tofino.Reject != nil {
			break // a generator or hash unit's output is its own
		}
		s := x.Builtin.Name + "("
		for _, a := range x.Args {
			s += exprKey(a) + ","
		}
		return s + ")"
	}
	return fmt.Sprintf("%T%p", e, e)
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func ceilLog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

func pow2Ceil(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << ceilLog2(n)
}

func pow2Floor(n int) int {
	if n < 1 {
		return 0
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

// fieldBytes is the crossbar bytes a value occupies: whole bytes of the
// field, or the bytes a slice touches.
func exprBytes(e programs.Expr) (slot int, n int, ok bool) {
	switch x := e.(type) {
	case *programs.FieldExpr:
		return x.F.Slot, ceilDiv(x.F.Type.Bits, 8), true
	case *programs.SliceExpr:
		if f, isF := x.X.(*programs.FieldExpr); isF {
			return f.F.Slot, x.Hi/8 - x.Lo/8 + 1, true
		}
	case *programs.ValidExpr:
		return x.H.Valid.Slot, 1, true
	}
	return 0, 0, false
}

func addXbar(list []xbarUse, e programs.Expr, ternary bool, mult int) []xbarUse {
	walkNoSlice(e, func(x programs.Expr) {
		if slot, n, ok := exprBytes(x); ok {
			list = append(list, xbarUse{slot: slot, bytes: n * mult, ternary: ternary})
		}
	})
	return list
}

// actionParamBits returns the largest action data any of the table's actions
// needs.
func actionParamBits(t *programs.Table) int {
	best := 0
	for _, a := range t.Actions {
		n := 0
		for _, p := range a.Params {
			n += p.Type.Bits
		}
		best = max(best, n)
	}
	return best
}

// writtenSlots returns the PHV slots an action body writes, in order, each
// once. Without a PHV allocation a field stands for its container(s).
func writtenSlots(body []programs.Stmt) []int {
	var out []int
	seen := map[int]bool{}
	for _, s := range body {
		if a, ok := s.(*programs.AssignStmt); ok && a.Dst.Field != nil && !seen[a.Dst.Field.Slot] {
			seen[a.Dst.Field.Slot] = true
			out = append(out, a.Dst.Field.Slot)
		}
	}
	return out
}

// instrBits is the instruction-select overhead of a table with n actions
// ([BFP4C] DoTableLayout::setup_instr_and_next).
func instrBits(n int) int {
	switch {
	case n <= 1:
		return 0
	case n <= 8:
		return ceilLog2(n)
	}
	return 6
}

// cost estimates a logical table's resources following bf-p4c's layout
// rules (see configs/tofino.yaml and ../shared/references for the sources).
func cost(c *spec.Config, lt *LT) ltCost {
	var k ltCost
	k.res.LogicalIDs = 1
	for _, body := range lt.Actions {
		if w := writtenSlots(body); len(w) > 0 {
			k.vliw = append(k.vliw, w)
		} else {
			k.noops++
		}
	}
	switch lt.Kind {
	case KindGateway:
		gatewayCost(c, lt, &k)
	case KindKeyless:
		if lt.Random || lt.Hash {
			k.res.Gateways++ // an always-hit "payload" gateway drives the hash/RNG path
		}
	case KindMatch:
		if lt.Table.Default.Action == nil && !hasAction(lt.Table, "NoAction") {
			k.noops++ // p4c adds a @defaultonly NoAction
		}
		matchCost(c, lt.Table, &k)
	}
	// Stateful indices computed from the packet use hash distribution; the
	// stage counts each distinct index once (tables sharing an index share
	// the unit), see Placement.addTo.
	for _, ix := range lt.Indices {
		k.xbar = addXbar(k.xbar, ix.expr, false, 1)
		k.indices = append(k.indices, indexKey(lt.Gress, ix))
	}
	for _, ra := range lt.Regs {
		// SALU PHV inputs arrive on the exact crossbar (search bus).
		for _, st := range ra.RA.Body {
			walkStmt(st, func(e programs.Expr) {
				switch e.(type) {
				case *programs.FieldExpr, *programs.SliceExpr:
					k.xbar = addXbar(k.xbar, e, false, 1)
				}
			})
		}
	}
	return k
}

func hasAction(t *programs.Table, name string) bool {
	for _, a := range t.Actions {
		if a.Name == name {
			return true
		}
	}
	return false
}

// gatewayCost follows bf-p4c's gateway layout ([BFP4C] mau/gateway.cpp
// CollectGatewayFields::compute_offsets): a field compared by range (<, <=,
// >, >=) goes to the gateway's hash bits, its own width of them; every other
// field, validity bits included, is matched in the gateway's PHV bytes.
func gatewayCost(c *spec.Config, lt *LT, k *ltCost) {
	bytes, rangeBits := 0, 0
	inRange := map[programs.Expr]bool{}
	walkNoSlice(lt.Cond, func(x programs.Expr) {
		if b, ok := x.(*programs.BinaryExpr); ok {
			switch b.Op {
			case programs.OpLt, programs.OpLe, programs.OpGt, programs.OpGe:
				for _, side := range []programs.Expr{b.X, b.Y} {
					if n := exprBits(side); n > 0 {
						inRange[side] = true
						rangeBits += min(n, c.MAU.GatewayHashBits)
					}
				}
			}
		}
		if _, n, ok := exprBytes(x); ok && !inRange[x] {
			bytes += n
		}
	})
	k.res.HashBits += rangeBits
	k.xbar = addXbar(k.xbar, lt.Cond, false, 1)
	k.res.Gateways = max(1, ceilDiv(bytes, c.MAU.GatewayBytes), ceilDiv(rangeBits, max(1, c.MAU.GatewayHashBits)))
}

// exprBits is the width of a field or a field's slice (0 for anything else).
func exprBits(e programs.Expr) int {
	switch x := e.(type) {
	case *programs.FieldExpr:
		return x.F.Type.Bits
	case *programs.SliceExpr:
		if _, ok := x.X.(*programs.FieldExpr); ok {
			return x.Hi - x.Lo + 1
		}
	}
	return 0
}

func matchCost(c *spec.Config, t *programs.Table, k *ltCost) {
	ternary := false
	for _, key := range t.Keys {
		if key.Kind != programs.MatchExact {
			ternary = true
		}
	}
	paramBits := actionParamBits(t)
	imm := 0
	adtBytes := 0
	if paramBits <= c.MAU.ImmediateBits {
		imm = paramBits
	} else {
		adtBytes = pow2Ceil(ceilDiv(paramBits, 8))
	}
	overhead := instrBits(len(t.Actions)) + imm
	// Tofino 1: a table with one constant entry, no range key and no action
	// data RAM becomes a payload gateway (FindPayloadCandidates).
	if c.MAU.PayloadGateway && t.Const && len(t.Entries) == 1 && adtBytes == 0 && !hasRange(t) {
		for _, key := range t.Keys {
			k.xbar = addXbar(k.xbar, key.Expr, false, 1)
		}
		k.res.Gateways++
		return
	}
	size := exactCost
	if ternary {
		size = ternaryCost
	}
	if adtBytes > 0 {
		// bf-p4c offers several action formats, moving action data from
		// the action-data RAM into the entry's immediate field, and table
		// placement keeps the layout with the fewest RAMs
		// (StageUseEstimate::select_best_option sorts on srams, which
		// include the direct action-data RAMs).
		bestSRAM := -1
		for _, f := range actionFormats(c, t) {
			var probe ltCost
			size(c, t, instrBits(len(t.Actions))+f.immBits, f.adtBytes, &probe)
			if bestSRAM < 0 || probe.res.SRAM <= bestSRAM {
				bestSRAM = probe.res.SRAM
				overhead, adtBytes = instrBits(len(t.Actions))+f.immBits, f.adtBytes
			}
		}
	}
	size(c, t, overhead, adtBytes, k)
}

// actionFormat is where a table's action data goes: bits in the match
// entry's immediate field, bytes per entry in the action-data RAM.
type actionFormat struct {
	immBits, adtBytes int
}

// adSlot is one action parameter as bf-p4c lays it out in action data: a
// slot of 8, 16 or 32 bits (RAM sections by container size).
type adSlot struct {
	bits, slot int
}

// actionFormats lists the action formats bf-p4c generates for a table whose
// action data exceeds the immediate field ([BFP4C] mau/action_format.cpp
// Format::determine_bytes_per_loc, determine_next_immediate_bytes): first
// everything in the action-data RAM; then, repeatedly, the RAM entry is
// halved (or cut by 16 bytes above 16) by moving the fewest slot bits that
// make it fit into the immediate field, which holds at most 32 bits.
func actionFormats(c *spec.Config, t *programs.Table) []actionFormat {
	var acts [][]adSlot
	adt := 0
	for _, a := range t.Actions {
		var sl []adSlot
		n := 0
		for _, p := range a.Params {
			for b := p.Type.Bits; b > 0; b -= 32 {
				w := min(b, 32)
				s := 8
				for s < w {
					s *= 2
				}
				sl = append(sl, adSlot{bits: w, slot: s})
				n += s
			}
		}
		acts = append(acts, sl)
		adt = max(adt, ceilDiv(n, 8))
	}
	out := []actionFormat{{adtBytes: pow2Ceil(adt)}}
	for adt > 0 {
		next := adt / 2
		if adt > 16 {
			next = adt - 16
		}
		imm, rest := 0, 0
		ok := true
		for _, sl := range acts {
			total := 0
			for _, s := range sl {
				total += s.slot
			}
			moved, bits, found := bestMove(sl, total-8*next, c.MAU.ImmediateBits)
			if !found {
				ok = false
				break
			}
			imm = max(imm, bits)
			rem := 0
			for j, s := range sl {
				if moved&(1<<j) == 0 {
					rem += s.slot
				}
			}
			rest = max(rest, ceilDiv(rem, 8))
		}
		if !ok {
			break
		}
		adt = rest
		f := actionFormat{immBits: imm}
		if adt > 0 {
			f.adtBytes = pow2Ceil(adt)
		}
		out = append(out, f)
	}
	return out
}

// bestMove picks the slots to move to immediate: the fewest slot bits that
// cover need, their parameter bits at most maxImm (bitmask over slots).
func bestMove(sl []adSlot, need, maxImm int) (mask, bits int, ok bool) {
	if need <= 0 {
		return 0, 0, true
	}
	if len(sl) > 16 {
		return 0, 0, false
	}
	best := -1
	for m := 1; m < 1<<len(sl); m++ {
		slots, b := 0, 0
		for j, s := range sl {
			if m&(1<<j) != 0 {
				slots += s.slot
				b += s.bits
			}
		}
		if slots < need || b > maxImm {
			continue
		}
		if best < 0 || slots < best {
			best, mask, bits = slots, m, b
		}
	}
	return mask, bits, best >= 0
}

func hasRange(t *programs.Table) bool {
	for _, key := range t.Keys {
		if key.Kind == programs.MatchRange {
			return true
		}
	}
	return false
}

// adtRAMs is the direct action-data RAMs for a table of the given capacity
// ([BFP4C] ActionDataPerWord).
func adtRAMs(c *spec.Config, capacity, adtBytes int) int {
	if adtBytes == 0 {
		return 0
	}
	wordBytes := c.MAU.SRAMWidthBits / 8
	if adtBytes <= wordBytes {
		perWord := wordBytes / adtBytes
		return ceilDiv(capacity, c.MAU.SRAMDepth*perWord)
	}
	return ceilDiv(capacity, c.MAU.SRAMDepth) * ceilDiv(adtBytes, wordBytes)
}

// exactCost sizes a hash (exact-match) table: entries packed per RAM word,
// at least exact_min_ways ways, hash bits per way ([BFP4C]
// LayoutChoices::setup_exact_match, StageUseEstimate::options_to_ways).
func exactCost(c *spec.Config, t *programs.Table, overhead, adtBytes int, k *ltCost) {
	keyBits, keyBytes := 0, 0
	var byteBits []int
	for _, key := range t.Keys {
		k.xbar = addXbar(k.xbar, key.Expr, false, 1)
		keyBits += key.Bits
		nb := ceilDiv(key.Bits, 8)
		keyBytes += nb
		for i := 0; i < nb; i++ {
			byteBits = append(byteBits, min(8, key.Bits-8*i))
		}
	}
	// Ghost whole bytes while the running total stays within ghost_bits.
	matchBytes := keyBytes
	sortInts(byteBits)
	run := 0
	for _, b := range byteBits {
		if run+b > c.MAU.GhostBits {
			break
		}
		run += b
		matchBytes--
	}
	matchBits := max(0, keyBits-c.MAU.GhostBits)
	single := overhead + c.MAU.VersionBits + matchBits
	wordBits := c.MAU.SRAMWidthBits
	wordBytes := wordBits / 8
	entries := t.Size
	bestSRAM, bestW, bestN, bestDepth := -1, 0, 0, 0
	for n := 1; n <= c.MAU.ExactMaxPack; n++ {
		w := max(ceilDiv(n*single, wordBits), ceilDiv(n*matchBytes, wordBytes), ceilDiv(n*overhead, wordBits/2), ceilDiv(n, c.MAU.ExactMaxPackPerRAM), 1)
		if w > 8 {
			continue
		}
		if (n%w == 0 || w%n == 0) && min(n, w) != 1 {
			continue
		}
		depth := ceilDiv(entries, n*c.MAU.SRAMDepth)
		if keyBits < c.MAU.HashIndexBits && depth == 1 {
			depth = 1 // identity hash: the key indexes one RAM directly
		} else {
			depth = max(depth, c.MAU.ExactMinWays)
		}
		total := depth*w + adtRAMs(c, depth*n*c.MAU.SRAMDepth, adtBytes)
		better := bestSRAM < 0 || total < bestSRAM ||
			(total == bestSRAM && w < bestW) ||
			(total == bestSRAM && w == bestW && n > bestN)
		if better {
			bestSRAM, bestW, bestN, bestDepth = total, w, n, depth
		}
	}
	if bestSRAM < 0 { // key too wide for 8 RAMs per entry: one entry per word, 8 wide
		bestW, bestN = 8, 1
		bestDepth = max(ceilDiv(entries, c.MAU.SRAMDepth), c.MAU.ExactMinWays)
		bestSRAM = bestDepth*bestW + adtRAMs(c, bestDepth*c.MAU.SRAMDepth, adtBytes)
	}
	k.res.SRAM += bestSRAM
	if keyBits < c.MAU.HashIndexBits && bestDepth == 1 {
		k.res.HashBits += keyBits
		return
	}
	// Every way uses a 10-bit RAM-line index and log2(RAMs) select bits of
	// some hash function; ways beyond a function's four index groups (or
	// its 12 select bits) come from another function, and bf-p4c logs each
	// (bit, function) pair ([BFP4C] IXBar::Use::update_resources: way_use
	// line-select and select-mask bits keyed by (bit, way.source)).
	for _, w := range waySizes(bestDepth, c.MAU.ExactMinWays) {
		k.res.HashBits += c.MAU.HashIndexBits + ceilLog2(w)
	}
}

// waySizes splits a table's RAM depth into hash ways
// ([BFP4C] StageUseEstimate::calculate_way_sizes).
func waySizes(depth, minWays int) []int {
	if depth < 2*minWays {
		ways := make([]int, minWays)
		for i := range ways {
			ways[i] = 1
		}
		for i := 0; i < depth-minWays; i++ {
			ways[i]++
		}
		return ways
	}
	var ways []int
	g := max(1, pow2Floor(min(depth, 64))/4)
	rem := depth
	for rem > 0 {
		if len(ways) == 4 {
			g = min(ways[0], pow2Floor(rem))
		}
		if g <= rem {
			ways = append(ways, g)
			rem -= g
		} else {
			g = max(1, g/2)
		}
	}
	return ways
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// ternaryCost sizes a TCAM table: 44-bit TCAM columns per 5 key bytes plus
// the version nibble, 512-entry rows, range expansion, and the ternary
// indirection RAM for its overhead bits ([BFP4C] TableFormat,
// RangeEntries, TernaryIndirectPerWord).
func ternaryCost(c *spec.Config, t *programs.Table, overhead, adtBytes int, k *ltCost) {
	k.res.TernaryTables = 1
	k.tcam = true
	xbarBytes := 0
	entries := t.Size
	lines := 1
	for _, key := range t.Keys {
		mult := 1
		if key.Kind == programs.MatchRange {
			mult = 2
			lines = max(lines, min(c.MAU.RangeMaxLines, 2*nibbles(key)-1))
		}
		k.xbar = addXbar(k.xbar, key.Expr, true, mult)
		xbarBytes += ceilDiv(key.Bits, 8) * mult
	}
	if lines > 1 {
		rangeEntries := int(float64(t.Size)*c.MAU.RangeEntryFraction + 0.999999)
		entries = rangeEntries*lines + (t.Size - rangeEntries)
	}
	wide := ceilDiv(8*xbarBytes+c.MAU.VersionBits, c.MAU.TCAMWidthBits)
	rows := ceilDiv(entries, c.MAU.TCAMDepth)
	k.res.TCAM += rows * wide
	capacity := rows * c.MAU.TCAMDepth
	if overhead > 0 {
		entryBits := max(8, pow2Ceil(overhead))
		k.res.SRAM += ceilDiv(capacity, c.MAU.SRAMDepth*(c.MAU.SRAMWidthBits/entryBits))
	}
	k.res.SRAM += adtRAMs(c, capacity, adtBytes)
}

// registerCost is a register's memory and ALU: (entries per 128-bit word =
// 128/width) RAMs plus one spare bank, one map RAM per RAM, one meter ALU
// ([BFP4C] RegisterPerWord, Memories::mems_needed).
func registerCost(c *spec.Config, r *programs.Register) Resources {
	w := pow2Ceil(r.Type.Bits)
	if r.Type.Bits == 1 {
		w = 1
	} else if w < 8 {
		w = 8
	}
	perWord := max(1, c.MAU.SRAMWidthBits/w)
	rams := ceilDiv(r.Size, c.MAU.SRAMDepth*perWord) + 1
	return Resources{SRAM: rams, MapRAM: rams, MeterALU: 1}
}

// meterCost: one meter per 128-bit word, plus spare, map RAMs and colour
// map RAMs (4096 colours per map RAM) ([BFP4C] Memories, COLOR_MAPRAM_PER_ROW).
func meterCost(c *spec.Config, m *programs.Meter) Resources {
	rams := ceilDiv(m.Size, c.MAU.SRAMDepth) + 1
	return Resources{SRAM: rams, MapRAM: rams + ceilDiv(m.Size, 4*c.MAU.SRAMDepth), MeterALU: 1}
}

// counterCost: packet-and-byte counters, two per 128-bit word, spare bank,
// map RAMs and one stats ALU ([BFP4C] CounterPerWord).
func counterCost(c *spec.Config, ctr *programs.Counter) Resources {
	rams := ceilDiv(ctr.Size, 2*c.MAU.SRAMDepth) + 1
	return Resources{SRAM: rams, MapRAM: rams, StatsALU: 1}
}
