// Package compiler is the Tofino placement compiler: the tool-chain step
// that, like the back end of bf-p4c ([BFP4C]), turns a program into a
// placement on the chip's MAU stages or refuses it. Place rejects what a
// packet pipeline cannot run at all (timer threads, payload reads, packet
// creation, data-plane table updates), lowers the control flow to logical
// tables as bf-p4c does (every apply a table, every if a gateway, runs of
// inline statements keyless tables, functions inlined), checks the target's
// rules (TNA's intrinsic metadata per thread, the VLIW action ALU, the
// stateful ALU limits of [BFP4C] mau/stateful_alu.cpp, queue ids), analyses
// the dependencies between logical tables (bf-p4c table_dependency_graph),
// binds every register, meter, counter and table to one stage, schedules
// the tables into stages under the per-stage budgets with costs following
// bf-p4c's table-layout rules, and derives each thread's MAU pipeline length
// from the stage dependencies ([BFASM] Stage::cycles_contribute_to_latency,
// [BFP4C] compute_pipe_latency).
//
// The result is a Placement, which the timing model (arch/tofino) runs and
// reports, or a PlacementError naming the Rule the program breaks. The chip
// comes from arch/tofino/spec; the compiler knows nothing of the model.
package compiler

import (
	"fmt"
	"sort"
	"strings"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// DepKind is the kind of dependency between two logical tables, which
// decides both the stage distance and the latency between stages.
type DepKind int

// Dependency kinds, weakest first.
const (
	DepNone    DepKind = iota // independent: may share a stage (concurrent)
	DepControl                // predicated by the other's result: same stage or later
	DepAnti                   // writes what the other reads: same stage or later
	DepAction                 // reads in its action (or also writes) what the other writes: next stage
	DepMatch                  // matches on (or feeds a SALU/index with) what the other writes: next stage
)

var depNames = []string{"concurrent", "control", "anti", "action", "match"}

func (d DepKind) String() string { return depNames[d] }

func (d DepKind) data() bool { return d >= DepAction }

type dep struct {
	from  *LT
	kind  DepKind
	field string
}

// Placement is the result of placing a program on a Tofino-family chip.
type Placement struct {
	Chip       *spec.Config
	Prog       *programs.Program
	LTs        []*LT
	Stages     []*Stage
	StagesUsed int
	Totals     Resources
	VLIWRows   int
	Pct        Percent
	MAUCycles  [2]int // per gress, after the egress minimum
	RawMAU     [2]int // per gress, before padding
	PHV        *PHVUse
	Parser     ParserUse // parser TCAM rows (a lower bound) and capacity
	deps       map[*LT][]dep
	regStage   map[*programs.Register]int
}

// Percent is resource use as a percentage of the whole chip (all stages), in
// the columns of bf-p4c's resource summary (PIE paper Table III).
type Percent struct {
	Stages   float64 `json:"stages_pct"`
	SRAM     float64 `json:"sram_pct"`
	TCAM     float64 `json:"tcam_pct"`
	HashBits float64 `json:"hash_bits_pct"`
	VLIW     float64 `json:"vliw_pct"`
	Crossbar float64 `json:"crossbar_pct"`
	SALU     float64 `json:"salu_pct"`
	MapRAM   float64 `json:"map_ram_pct"`
	Gateway  float64 `json:"gateway_pct"`
	Logical  float64 `json:"logical_tables_pct"`
}

// Stage is one physical MAU stage after placement.
type Stage struct {
	Index   int
	LTs     [2][]*LT
	Res     Resources
	Objects []string // registers, meters and counters bound to this stage
	Dep     [2]DepKind
	PipeLen [2]int
	tcam    [2]bool
	salu    [2]bool
	meter   [2]bool
	xbar    map[[2]int]int // (slot, ternary) -> bytes
	hashIdx map[string]bool
	imem    [2]imem
	objects map[any]bool
}

// Place runs the placement pass: rejection of what a packet pipeline
// cannot run (timers, payload reads, packet creation), lowering to logical tables, target
// rule checks, dependency analysis, stage scheduling under the per-stage
// budgets, binding of every register/meter/counter to one stage, and the
// MAU latency implied by the stage dependencies, and the PHV allocation
// of every field each thread carries (phv.go).
func Place(c *spec.Config, prog *programs.Program) (*Placement, error) {
	if err := checkThreads(prog); err != nil {
		return nil, err
	}
	lts, err := lowerProgram(prog)
	if err != nil {
		return nil, err
	}
	if err := checkRules(c, prog, lts); err != nil {
		return nil, err
	}
	parser, err := checkParser(c, prog)
	if err != nil {
		return nil, err
	}
	p := &Placement{Chip: c, Prog: prog, LTs: lts, Parser: parser, deps: map[*LT][]dep{}, regStage: map[*programs.Register]int{}}
	p.analyze()
	if err := p.schedule(); err != nil {
		return nil, err
	}
	p.mergeGateways()
	p.latency()
	p.totals()
	// bf-p4c allocates the PHV before it places tables; here it comes
	// last, so that a program breaking a stage rule reports that rule.
	if p.PHV, err = allocatePHV(c, prog, lts); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Placement) fieldName(slot int) string {
	if slot < len(p.Prog.Fields) {
		return p.Prog.Fields[slot].Name
	}
	return "a condition temporary"
}

// controls reports whether a is (transitively) the controller of b.
func controls(a, b *LT) bool {
	for x := b.Ctrl; x != nil; x = x.Ctrl {
		if x == a {
			return true
		}
	}
	return false
}

// analyze computes every logical table's dependencies on earlier ones in the
// same thread (bf-p4c table_dependency_graph: match, action, output, anti,
// control).
func (p *Placement) analyze() {
	for j, b := range p.LTs {
		for _, a := range p.LTs[:j] {
			if a.Gress != b.Gress || exclusive(a, b) {
				continue
			}
			d := dep{from: a}
			if s := b.MatchReads.firstCommon(a.Writes); s >= 0 {
				d.kind, d.field = DepMatch, p.fieldName(s)
			} else if s := b.ActionReads.firstCommon(a.Writes); s >= 0 {
				d.kind, d.field = DepAction, p.fieldName(s)
			} else if s := b.Writes.firstCommon(a.Writes); s >= 0 {
				d.kind, d.field = DepAction, p.fieldName(s)
			} else {
				reads := append(fieldSet(nil), a.MatchReads...)
				reads.union(a.ActionReads)
				if s := b.Writes.firstCommon(reads); s >= 0 {
					d.kind, d.field = DepAnti, p.fieldName(s)
				} else if controls(a, b) {
					d.kind = DepControl
				}
			}
			if d.kind != DepNone {
				d.field += lineNote(a, b, d.kind)
				p.deps[b] = append(p.deps[b], d)
			}
		}
	}
}

// lineNote says on which lines a dependency's field is written and read
// when a run of inline statements (a keyless table, named after its first
// line) has it on another line: ", written at line 268" (empty
// otherwise), so the why column never cites a field that is not on the
// cited line. The run is one table as bf-p4c's action synthesis makes it
// (midend/action_synthesis_policy.h: statements are combined unless one
// depends on another or both use an extern), so the whole run is placed by
// its statements' dependencies together.
func lineNote(a, b *LT, kind DepKind) string {
	var note []string
	field := func(slot int) func(programs.Expr) bool {
		return func(e programs.Expr) bool {
			f, ok := e.(*programs.FieldExpr)
			return ok && f.F.Slot == slot
		}
	}
	slot := -1
	switch kind {
	case DepMatch:
		slot = b.MatchReads.firstCommon(a.Writes)
	case DepAction:
		if slot = b.ActionReads.firstCommon(a.Writes); slot < 0 {
			slot = b.Writes.firstCommon(a.Writes)
		}
	}
	if slot < 0 {
		return ""
	}
	if l := writtenAt(a, slot); l > 0 && l != a.Pos.Line {
		note = append(note, fmt.Sprintf("written at line %d", l))
	}
	if l := readAt(b, field(slot)); l > 0 && l != b.Pos.Line {
		note = append(note, fmt.Sprintf("read at line %d", l))
	}
	if len(note) == 0 {
		return ""
	}
	return ", " + strings.Join(note, ", ")
}

// writtenAt is the line of the first of a's inline statements that
// assigns the field in slot (0: none of them, or a is not inline code).
func writtenAt(a *LT, slot int) int {
	for _, s := range a.Stmts {
		if as, ok := s.(*programs.AssignStmt); ok && as.Dst.Field != nil && as.Dst.Field.Slot == slot {
			return s.Position().Line
		}
	}
	return 0
}

// readAt is the line of the first of b's inline statements that reads an
// expression for which is returns true (through register and meter
// indexes, register action bodies and hash inputs too; 0: none).
func readAt(b *LT, is func(programs.Expr) bool) int {
	for _, s := range b.Stmts {
		found := false
		var visit func(programs.Expr)
		visit = func(e programs.Expr) {
			if found || e == nil {
				return
			}
			if is(e) {
				found = true
				return
			}
			switch x := e.(type) {
			case *programs.RegisterCall:
				walkExpr(x.Index, visit)
				for _, st := range x.Action.Body {
					walkStmt(st, visit)
				}
			case *programs.MeterCall:
				walkExpr(x.Index, visit)
			case *programs.CallExpr:
				if x.Builtin.Tofino.Unit == programs.TofinoHash {
					for _, arg := range x.Args {
						walkExpr(arg, visit)
					}
				}
			}
		}
		switch s := s.(type) {
		case *programs.CountStmt:
			walkExpr(s.Index, visit)
		default:
			walkStmt(s, visit)
		}
		if found {
			return s.Position().Line
		}
	}
	return 0
}

// asap returns each logical table's earliest stage from dependencies alone.
func (p *Placement) asap() map[*LT]int {
	out := map[*LT]int{}
	for _, b := range p.LTs {
		s := 0
		for _, d := range p.deps[b] {
			e := out[d.from]
			if d.kind.data() {
				e++
			}
			s = max(s, e)
		}
		out[b] = s
	}
	return out
}

// statefulObject is anything with stage-local memory.
func statefulObjects(lt *LT) []any {
	var out []any
	for _, r := range lt.Regs {
		out = appendOnce(out, any(r.RA.Register))
	}
	for _, m := range lt.Meters {
		out = appendOnce(out, any(m))
	}
	for _, c := range lt.Counters {
		out = appendOnce(out, any(c))
	}
	if lt.Kind == KindMatch {
		out = appendOnce(out, any(lt.Table))
	}
	return out
}

func objectName(o any) string {
	switch x := o.(type) {
	case *programs.Register:
		return "register " + x.Name
	case *programs.Meter:
		return "meter " + x.Name
	case *programs.Counter:
		return "counter " + x.Name
	case *programs.Table:
		return "table " + x.Name
	}
	return "object"
}

func objectPos(o any) programs.Pos {
	switch x := o.(type) {
	case *programs.Register:
		return x.Pos
	case *programs.Meter:
		return x.Pos
	case *programs.Counter:
		return x.Pos
	case *programs.Table:
		return x.Pos
	}
	return programs.Pos{}
}

// accessWord describes how a logical table uses a register (for messages).
func accessWord(lt *LT, o any) string {
	r, ok := o.(*programs.Register)
	if !ok {
		return "uses it"
	}
	var names []string
	for _, ra := range lt.Regs {
		if ra.RA.Register == r {
			names = append(names, ra.RA.Name)
		}
	}
	return "runs " + strings.Join(names, ", ")
}

// stageLocalError explains a register (or other stage-local object) that a
// packet would need in more than one stage: every access, with the stage
// its dependencies put it in.
func (p *Placement) stageLocalError(o any, users []*LT, asap map[*LT]int) error {
	var parts []string
	stages := map[int]bool{}
	for _, lt := range users {
		parts = append(parts, fmt.Sprintf("%s by %s at line %d (stage %d)", strings.TrimPrefix(accessWord(lt, o), "runs "), lt.Name, lt.Pos.Line, asap[lt]))
		stages[asap[lt]] = true
	}
	var ss []int
	for s := range stages {
		ss = append(ss, s)
	}
	sort.Ints(ss)
	var sn []string
	for _, s := range ss {
		sn = append(sn, fmt.Sprint(s))
	}
	last := users[len(users)-1]
	return ruleErr(RuleStageLocal, last.Pos,
		"%s is accessed more than once per packet — %s — so it would be needed in stages %s; Tofino memory is stage-local: a register lives in one MAU stage and a packet reaches it once per pass",
		objectName(o), strings.Join(parts, "; "), strings.Join(sn, " and "))
}

// node is a set of logical tables that must share a stage because they use
// the same stage-local object (mutually exclusive accesses to one register,
// one table applied in exclusive branches).
type node struct {
	lts  []*LT
	objs []any
}

// group binds logical tables to stateful objects and checks the
// stage-local-memory rule: one object, one stage, one access per packet.
func (p *Placement) group() ([]*node, map[*LT]*node, error) {
	asap := p.asap()
	users := map[any][]*LT{}
	var order []any
	for _, lt := range p.LTs {
		for _, o := range statefulObjects(lt) {
			if _, ok := users[o]; !ok {
				order = append(order, o)
			}
			users[o] = append(users[o], lt)
		}
	}
	parent := map[*LT]*LT{}
	var find func(*LT) *LT
	find = func(x *LT) *LT {
		if parent[x] == nil || parent[x] == x {
			return x
		}
		r := find(parent[x])
		parent[x] = r
		return r
	}
	for _, o := range order {
		us := users[o]
		for _, a := range us {
			if a.Gress != us[0].Gress {
				return nil, nil, ruleErr(RuleRegisterGress, objectPos(o), "%s is used by %s (%s) and %s (%s); stateful memory belongs to one thread",
					objectName(o), us[0].Name, us[0].Gress, a.Name, a.Gress)
			}
		}
		for i, a := range us {
			for _, b := range us[i+1:] {
				if exclusive(a, b) {
					continue
				}
				if p.earlyReadLateWrite(o, a, b) {
					continue
				}
				return nil, nil, p.stageLocalError(o, us, asap)
			}
		}
		for _, b := range us[1:] {
			if exclusive(us[0], b) {
				ra, rb := find(us[0]), find(b)
				if ra != rb {
					parent[rb] = ra
				}
			}
		}
	}
	nodes := []*node{}
	byRoot := map[*LT]*node{}
	of := map[*LT]*node{}
	for _, lt := range p.LTs {
		r := find(lt)
		n, ok := byRoot[r]
		if !ok {
			n = &node{}
			byRoot[r] = n
			nodes = append(nodes, n)
		}
		n.lts = append(n.lts, lt)
		for _, o := range statefulObjects(lt) {
			n.objs = appendOnce(n.objs, o)
		}
		of[lt] = n
	}
	return nodes, of, nil
}

// earlyReadLateWrite allows the PIE paper's §VIII wish when the what-if
// knob is on: one read-only access followed by one writing access in a later
// stage.
func (p *Placement) earlyReadLateWrite(o any, a, b *LT) bool {
	r, ok := o.(*programs.Register)
	if !ok || !p.Chip.Features.EarlyReadLateWrite {
		return false
	}
	readOnly := func(lt *LT) bool {
		for _, ra := range lt.Regs {
			if ra.RA.Register == r && ra.RA.Writes {
				return false
			}
		}
		return true
	}
	if !readOnly(a) || readOnly(b) {
		return false
	}
	p.deps[b] = append(p.deps[b], dep{from: a, kind: DepAction, field: "early read of register " + r.Name})
	return true
}

// schedule places nodes in dependency order, each in the first stage at or
// after its dependencies allow where its resources fit.
func (p *Placement) schedule() error {
	nodes, of, err := p.group()
	if err != nil {
		return err
	}
	c := p.Chip
	p.Stages = make([]*Stage, c.MAU.Stages)
	for i := range p.Stages {
		p.Stages[i] = &Stage{Index: i, xbar: map[[2]int]int{}, objects: map[any]bool{}, hashIdx: map[string]bool{}}
	}
	placed := map[*LT]bool{}
	done := map[*node]bool{}
	costs := map[*LT]ltCost{}
	for _, lt := range p.LTs {
		costs[lt] = cost(c, lt)
	}
	for len(done) < len(nodes) {
		var n *node
		for _, cand := range nodes {
			if done[cand] || !p.ready(cand, placed, of) {
				continue
			}
			n = cand
			break
		}
		if n == nil {
			return p.cycleError(nodes, done, of)
		}
		earliest, why := 0, "no dependency"
		for _, lt := range n.lts {
			for _, d := range p.deps[lt] {
				if of[d.from] == n {
					continue
				}
				e := d.from.Stage
				if d.kind.data() {
					e++
				}
				if e > earliest || (e == earliest && why == "no dependency") {
					earliest = e
					why = fmt.Sprintf("%s dependency on %s", d.kind, d.from.Name)
					if d.field != "" {
						why += " (" + d.field + ")"
					}
				}
			}
		}
		s := earliest
		var full string
		for ; s < c.MAU.Stages; s++ {
			if full = p.fits(p.Stages[s], n, costs); full == "" {
				break
			}
		}
		if s >= c.MAU.Stages {
			if earliest >= c.MAU.Stages {
				return ruleErr(RuleStageBudget, n.lts[0].Pos, "%s needs stage %d (%s) but %s has stages 0..%d", n.lts[0].Name, earliest, why, c.Name, c.MAU.Stages-1)
			}
			if p.fits(&Stage{xbar: map[[2]int]int{}, objects: map[any]bool{}, hashIdx: map[string]bool{}}, n, costs) != "" {
				return ruleErr(RuleStageBudget, n.lts[0].Pos, "%s does not fit in an empty MAU stage (%s); splitting a table across stages is not modelled", n.lts[0].Name, full)
			}
			return ruleErr(RuleStageBudget, n.lts[0].Pos, "%s does not fit in stages %d..%d of %s (%s)", n.lts[0].Name, earliest, c.MAU.Stages-1, c.Name, full)
		}
		if s > earliest {
			why = fmt.Sprintf("%s; stages %d..%d were full (%s)", why, earliest, s-1, p.firstFull(earliest, s, n, costs))
		}
		for _, lt := range n.lts {
			lt.Stage, lt.Why = s, why
			placed[lt] = true
		}
		p.commit(p.Stages[s], n, costs)
		done[n] = true
	}
	return nil
}

func (p *Placement) firstFull(from, to int, n *node, costs map[*LT]ltCost) string {
	return p.fits(p.Stages[from], n, costs)
}

func (p *Placement) ready(n *node, placed map[*LT]bool, of map[*LT]*node) bool {
	for _, lt := range n.lts {
		for _, d := range p.deps[lt] {
			if of[d.from] != n && !placed[d.from] {
				return false
			}
		}
	}
	return true
}

// cycleError explains a dependency cycle through a shared object: the
// object would be needed in two stages.
func (p *Placement) cycleError(nodes []*node, done map[*node]bool, of map[*LT]*node) error {
	asap := p.asap()
	for _, n := range nodes {
		if done[n] || len(n.lts) < 2 || len(n.objs) == 0 {
			continue
		}
		first, last := n.lts[0], n.lts[len(n.lts)-1]
		return ruleErr(RuleStageLocal, last.Pos, "%s must live in one stage, but %s (line %d) needs it in stage %d and %s (line %d) in stage %d through a chain of dependencies; Tofino memory is stage-local",
			objectName(n.objs[0]), first.Name, first.Pos.Line, asap[first], last.Name, last.Pos.Line, asap[last])
	}
	return ruleErr(RuleStageLocal, programs.Pos{}, "dependency cycle between logical tables")
}

// stageUse returns the stage's resources if n were added (or committed).
func (p *Placement) addTo(st *Stage, n *node, costs map[*LT]ltCost, commit bool) (Resources, int) {
	c := p.Chip
	res := st.Res
	xbar := st.xbar
	if !commit {
		xbar = map[[2]int]int{}
		for k, v := range st.xbar {
			xbar[k] = v
		}
	}
	im := st.imem
	if !commit {
		im = [2]imem{st.imem[0].clone(), st.imem[1].clone()}
	}
	objs := st.objects
	hidx := st.hashIdx
	if !commit {
		objs = map[any]bool{}
		for k, v := range st.objects {
			objs[k] = v
		}
		hidx = map[string]bool{}
		for k, v := range st.hashIdx {
			hidx[k] = v
		}
	}
	for _, lt := range n.lts {
		k := costs[lt]
		r := k.res
		r.ExactXbar, r.TernaryXbar = 0, 0
		res.add(r)
		if lt.Hash {
			res.HashBits += 32
			res.HashDist += 2
		}
		for _, u := range k.xbar {
			key := [2]int{u.slot, b2i(u.ternary)}
			if u.bytes > xbar[key] {
				xbar[key] = u.bytes
			}
		}
		for _, hi := range k.indices {
			if !hidx[hi.key] {
				hidx[hi.key] = true
				res.HashBits += hi.bits
				res.HashDist++
			}
		}
		if lt.Table == nil || !objs[lt.Table] {
			// A table applied again in an exclusive branch shares its
			// instructions (InstructionMemory::shared_instr).
			im[lt.Gress].alloc(k.vliw, k.noops)
		}
		if commit {
			st.LTs[lt.Gress] = append(st.LTs[lt.Gress], lt)
			st.tcam[lt.Gress] = st.tcam[lt.Gress] || k.tcam
			st.salu[lt.Gress] = st.salu[lt.Gress] || len(lt.Regs) > 0
			st.meter[lt.Gress] = st.meter[lt.Gress] || len(lt.Meters) > 0
		}
		for _, o := range statefulObjects(lt) {
			if objs[o] {
				if t, ok := o.(*programs.Table); ok && lt.Table == t {
					// A table applied again in an exclusive branch shares
					// its memories and logical ID.
					res.SRAM -= k.res.SRAM
					res.TCAM -= k.res.TCAM
					res.HashBits -= k.res.HashBits
					res.LogicalIDs -= k.res.LogicalIDs
					res.TernaryTables -= k.res.TernaryTables
					res.Gateways -= k.res.Gateways
				}
				continue
			}
			objs[o] = true
			switch x := o.(type) {
			case *programs.Register:
				res.add(registerCost(c, x))
				if commit {
					st.Objects = append(st.Objects, "register "+x.Name)
					p.regStage[x] = st.Index
				}
			case *programs.Meter:
				res.add(meterCost(c, x))
				if commit {
					st.Objects = append(st.Objects, "meter "+x.Name)
				}
			case *programs.Counter:
				res.add(counterCost(c, x))
				if commit {
					st.Objects = append(st.Objects, "counter "+x.Name)
				}
			}
		}
	}
	res.ExactXbar, res.TernaryXbar = 0, 0
	for key, b := range xbar {
		if key[1] == 1 {
			res.TernaryXbar += b
		} else {
			res.ExactXbar += b
		}
	}
	// bf-p4c logs instruction rows (ResourcesLogging::collectVliwUsage keys
	// imemColor by row): a row used by either thread counts once.
	rows := max(im[0].used(), im[1].used())
	res.VLIW = rows
	if commit {
		st.imem = im
	}
	return res, rows
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fits returns "" if n fits in st, or the first exhausted resource.
func (p *Placement) fits(st *Stage, n *node, costs map[*LT]ltCost) string {
	c := p.Chip
	r, rows := p.addTo(st, n, costs, false)
	checks := []struct {
		name      string
		used, cap int
	}{
		{"logical table IDs", r.LogicalIDs, c.MAU.LogicalTables},
		{"SRAM blocks", r.SRAM, c.MAU.SRAMBlocks},
		{"map RAMs", r.MapRAM, c.MAU.MapRAMs},
		{"TCAM blocks", r.TCAM, c.MAU.TCAMBlocks},
		{"ternary tables", r.TernaryTables, c.MAU.TernaryTables},
		{"stateful/meter ALUs", r.MeterALU, c.MAU.MeterALUs},
		{"stats ALUs", r.StatsALU, c.MAU.StatsALUs},
		{"exact crossbar bytes", r.ExactXbar, c.MAU.ExactXbarBytes},
		{"ternary crossbar bytes", r.TernaryXbar, c.MAU.TernaryXbarBytes},
		{"hash bits", r.HashBits, c.MAU.HashBits},
		{"hash distribution units", r.HashDist, c.MAU.HashDistUnits},
		{"gateways", r.Gateways, c.MAU.Gateways},
		{"VLIW instruction rows", rows, c.MAU.VLIWRows},
	}
	for _, ch := range checks {
		if ch.used > ch.cap {
			return fmt.Sprintf("%s: %d needed, %d per stage", ch.name, ch.used, ch.cap)
		}
	}
	return ""
}

func (p *Placement) commit(st *Stage, n *node, costs map[*LT]ltCost) {
	r, _ := p.addTo(st, n, costs, true)
	st.Res = r
	for _, lt := range n.lts {
		lt.Res = costs[lt].res
	}
}

// mergeGateways lets a gateway share the logical ID of a table that heads
// one of its branches in the same stage ([BFP4C] gateway_merge_choices).
func (p *Placement) mergeGateways() {
	used := map[*LT]bool{}
	for _, g := range p.LTs {
		if g.Kind != KindGateway {
			continue
		}
		for _, lt := range p.LTs {
			if lt.Ctrl == g && lt.Stage == g.Stage && lt.Kind != KindGateway && !used[lt] {
				used[lt] = true
				g.Merged = true
				p.Stages[g.Stage].Res.LogicalIDs--
				break
			}
		}
	}
}

// latency derives each thread's MAU pipeline length in cycles: a stage
// starts a full stage length after the previous one when it has a match
// dependency on an earlier stage, action_dep cycles after it for an action
// dependency, and concurrent cycles otherwise ([BFASM]
// Stage::cycles_contribute_to_latency, [BFP4C] compute_pipe_latency).
func (p *Placement) latency() {
	c := p.Chip
	L := c.Latency
	for g := 0; g < 2; g++ {
		start := 0
		for i, st := range p.Stages {
			st.PipeLen[g] = L.StageBase
			if st.tcam[g] {
				st.PipeLen[g] += L.TCAMExtra
			}
			extra := 0
			if st.salu[g] {
				extra = max(extra, L.StatefulExtra)
			}
			if st.meter[g] {
				extra = max(extra, L.MeterExtra)
			}
			st.PipeLen[g] += extra
			kind := DepNone
			for _, lt := range st.LTs[g] {
				for _, d := range p.deps[lt] {
					if d.from.Stage < i && d.kind.data() && d.kind > kind {
						kind = d.kind
					}
				}
			}
			st.Dep[g] = kind
			if i == 0 {
				continue
			}
			prev := p.Stages[i-1]
			switch kind {
			case DepMatch:
				start += prev.PipeLen[g]
			case DepAction:
				start += L.ActionDep
			default:
				start += L.Concurrent
			}
			if i == L.CornerTurnStage {
				start += L.CornerTurn
			}
		}
		total := start + p.Stages[len(p.Stages)-1].PipeLen[g]
		p.RawMAU[g] = total
		if spec.Gress(g) == spec.Egress {
			total = max(total, L.MinEgressMAU)
		}
		p.MAUCycles[g] = total
	}
}

func (p *Placement) totals() {
	c := p.Chip
	for _, st := range p.Stages {
		p.Totals.add(st.Res)
		if len(st.LTs[0])+len(st.LTs[1]) > 0 {
			p.StagesUsed = st.Index + 1
		}
	}
	p.VLIWRows = p.Totals.VLIW
	n := float64(c.MAU.Stages)
	pct := func(used, per int) float64 {
		if per == 0 {
			return 0
		}
		return 100 * float64(used) / (n * float64(per))
	}
	p.Pct = Percent{
		Stages:   100 * float64(p.StagesUsed) / n,
		SRAM:     pct(p.Totals.SRAM, c.MAU.SRAMBlocks),
		TCAM:     pct(p.Totals.TCAM, c.MAU.TCAMBlocks),
		HashBits: pct(p.Totals.HashBits, c.MAU.HashBits),
		VLIW:     pct(p.Totals.VLIW, c.MAU.VLIWRows),
		Crossbar: pct(p.Totals.ExactXbar+p.Totals.TernaryXbar, c.MAU.ExactXbarBytes+c.MAU.TernaryXbarBytes),
		SALU:     pct(p.Totals.MeterALU, c.MAU.MeterALUs),
		MapRAM:   pct(p.Totals.MapRAM, c.MAU.MapRAMs),
		Gateway:  pct(p.Totals.Gateways, c.MAU.Gateways),
		Logical:  pct(p.Totals.LogicalIDs, c.MAU.LogicalTables),
	}
}
