package programs

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"testing"
)

// The compiled interpreter (compile.go) against the reference tree walker
// (refexec_test.go): on every built-in program and every program of the
// package's tests, and on random expressions and statements, both must
// leave the same header vectors, registers, counters, meters and tables,
// count the same Steps, draw the same random numbers, call the tracer,
// OnRegister, Dyn and Emit with the same arguments in the same order.

// callLog records every call an executor makes to the outside world.
type callLog struct{ calls []string }

func (l *callLog) add(format string, a ...any) { l.calls = append(l.calls, fmt.Sprintf(format, a...)) }

func (l *callLog) Stmt(s Stmt) { l.add("stmt %p %T %v", s, s, s.Position()) }
func (l *callLog) Lookup(t *Table, key []int64, hit bool, a *Action) {
	name := "<nil>"
	if a != nil {
		name = a.Name
	}
	l.add("lookup %s %v %v %s", t.Name, key, hit, name)
}
func (l *callLog) Register(ra *RegisterAction, index int) { l.add("register %s %d", ra.Name, index) }
func (l *callLog) Meter(m *Meter, index int)              { l.add("meter %s %d", m.Name, index) }
func (l *callLog) Count(c *Counter, index int)            { l.add("count %s %d", c.Name, index) }
func (l *callLog) Payload(word int)                       { l.add("payload %d", word) }
func (l *callLog) Bulk(r *Register, start, cells int)     { l.add("bulk %s %d %d", r.Name, start, cells) }
func (l *callLog) Clear(r *Register, start, cells int)    { l.add("clear %s %d %d", r.Name, start, cells) }
func (l *callLog) TableOp(t *Table, op TableOpKind, slot int, done bool) {
	l.add("tableop %s %s %d %v", t.Name, op, slot, done)
}

// costLog is a callLog that is also a CostTracer and a RegAddTracer: it
// logs what each handle and each run of register adds stands for, as the
// plain calls would.
type costLog struct {
	*callLog
	runs  int // runs of register adds
	stmts []Stmt
	ras   []*RegisterAction
}

func (l *costLog) StmtCost(s Stmt) int32 {
	l.stmts = append(l.stmts, s)
	return int32(len(l.stmts))
}
func (l *costLog) StmtAt(h int32) { l.Stmt(l.stmts[h-1]) }
func (l *costLog) RegisterCost(ra *RegisterAction) int32 {
	l.ras = append(l.ras, ra)
	return int32(len(l.ras) - 1)
}
func (l *costLog) RegisterAt(h int32, index int) { l.Register(l.ras[h], index) }
func (l *costLog) RegAdds(run []RegAdd) {
	l.runs++
	for _, a := range run {
		if a.Stmt != 0 {
			l.StmtAt(a.Stmt)
		}
		if a.Payload {
			l.Payload(a.Word)
		}
		l.RegisterAt(a.Reg, a.Index)
	}
}

// spanLog is a costLog that is also a RegAddSpanTracer: it logs a span's
// adds as the RegAdds of their records would.
type spanLog struct {
	*costLog
	spans int
}

func (l *spanLog) RegAddSpan(s *AddSpan, index, word int) {
	l.spans++
	run := make([]RegAdd, len(s.Stmt))
	for j := range run {
		run[j] = RegAdd{Word: word + j, Index: index + j, Stmt: s.Stmt[j], Reg: s.Reg[j], Payload: true}
	}
	l.RegAdds(run)
	l.runs--
}

// diffMode is how an executor is set up for a differential run.
type diffMode struct {
	name   string
	tracer bool // a Tracer (otherwise exact tables take the tracer-less path)
	dyn    bool // std.enq_qdepth is a dynamic slot (Tofino 2's ghost thread)
	// cost: the compiled executor's tracer is a costLog and OnRegister is
	// not set (runs of register adds are batched, see RegAddTracer).
	cost bool
	// span: with cost, the tracer is a spanLog (RegAddSpanTracer).
	span bool
}

var diffModes = []diffMode{{"traced", true, false, false, false}, {"untraced", false, false, false, false}, {"dynamic", true, true, false, false},
	{"dynamic-untraced", false, true, false, false}, {"cost", true, false, true, false}, {"cost-dynamic", true, true, true, false}, {"cost-span", true, false, true, true}}

// newPair returns a compiled executor and a reference one on two fresh
// states of p, set up alike, with their call logs.
func newPair(p *Program, seed int64, m diffMode) (*Exec, *refExec, *callLog, *callLog) {
	x := NewExec(NewState(p), rand.New(rand.NewSource(seed)))
	r := &refExec{Exec: NewExec(NewState(p), rand.New(rand.NewSource(seed)))}
	lx, lr := &callLog{}, &callLog{}
	for _, s := range []struct {
		x *Exec
		l *callLog
	}{{x, lx}, {r.Exec, lr}} {
		x, l := s.x, s.l
		if m.tracer {
			x.Tracer = l
		}
		if m.cost {
			if x != r.Exec {
				x.Tracer = &costLog{callLog: l}
				if m.span {
					x.Tracer = &spanLog{costLog: x.Tracer.(*costLog)}
				}
			}
		} else {
			x.OnRegister = func(ra *RegisterAction, index int64, now int64) { l.add("onregister %s %d %d", ra.Name, index, now) }
		}
		x.Emit = func(payload []byte) { l.add("emit %x %v", payload, append([]int64(nil), x.PHV...)) }
		if m.dyn {
			x.DynSlot = p.Std[StdEnqQdepth].Slot
			n := int64(0)
			x.Dyn = func() int64 {
				n++
				l.add("dyn %d", n)
				return n * 0x12345
			}
		}
	}
	return x, r, lx, lr
}

// fieldValue draws a value for f: mostly small numbers, the type's
// extremes, or any value of the type.
func fieldValue(rng *rand.Rand, t Type) int64 {
	switch rng.Intn(6) {
	case 0:
		return 0
	case 1, 2:
		return t.Norm(int64(rng.Intn(8)))
	case 3:
		if rng.Intn(2) == 0 {
			return t.Max()
		}
		return t.Min()
	}
	return t.Norm(int64(rng.Uint64()))
}

// randomPHV draws a header vector for p: random validity bits and field
// values, and for some tables the key fields of one of their entries (so
// that lookups hit).
func randomPHV(rng *rand.Rand, p *Program) []int64 {
	phv := make([]int64, len(p.Fields))
	for _, f := range p.Fields {
		if f.Kind == ValidBit {
			phv[f.Slot] = b2i(rng.Intn(4) != 0)
			continue
		}
		phv[f.Slot] = fieldValue(rng, f.Type)
	}
	for _, t := range p.Tables {
		if len(t.Entries) == 0 || rng.Intn(2) == 0 {
			continue
		}
		e := t.Entries[rng.Intn(len(t.Entries))]
		for i, k := range t.Keys {
			if f, ok := k.Expr.(*FieldExpr); ok && i < len(e.Values) {
				phv[f.F.Slot] = f.F.Type.Norm(e.Values[i])
			}
		}
	}
	return phv
}

// diffPrograms are the programs of the differential test: the built-ins
// and those of the package's tests.
func diffPrograms(t *testing.T) map[string]*Program {
	out := map[string]*Program{}
	for _, n := range Builtins() {
		p, err := Resolve(n, nil)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out[n] = p
	}
	srcs := map[string]string{"clear": clProgram, "emit": emProgram, "bulk": bkProgram, "functions": fnProgram,
		"payload": plProgram, "tableupdate": tuProgram, "timers": tmProgram, "spans": spProgram}
	if data, err := os.ReadFile("testdata/small.yaml"); err == nil {
		srcs["small"] = string(data)
	}
	for n, src := range srcs {
		p, err := Load([]byte(src), n+".yaml", nil)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out[n] = p
	}
	return out
}

// sameState fails unless two states hold the same registers, meters,
// counters and tables.
func sameState(t *testing.T, what string, a, b *State) {
	t.Helper()
	for i := range a.Regs {
		if !reflect.DeepEqual(a.Regs[i].Values(), b.Regs[i].Values()) {
			t.Fatalf("%s: registers differ", what)
		}
	}
	if !reflect.DeepEqual(a.Counters, b.Counters) {
		t.Fatalf("%s: counters differ", what)
	}
	if !reflect.DeepEqual(a.Meters, b.Meters) {
		t.Fatalf("%s: meters differ", what)
	}
	if !reflect.DeepEqual(a.Tables, b.Tables) {
		t.Fatalf("%s: tables differ", what)
	}
	if !reflect.DeepEqual(a.Buffers, b.Buffers) {
		t.Fatalf("%s: packet buffers differ", what)
	}
}

// sameRun fails unless the two executors are in the same state.
func sameRun(t *testing.T, what string, x *Exec, r *refExec, lx, lr *callLog) {
	t.Helper()
	if !reflect.DeepEqual(x.PHV, r.PHV) {
		t.Fatalf("%s: header vectors differ:\ncompiled  %v\nreference %v", what, x.PHV, r.PHV)
	}
	if x.Steps != r.Steps {
		t.Fatalf("%s: %d steps, reference %d", what, x.Steps, r.Steps)
	}
	if !reflect.DeepEqual(lx.calls, lr.calls) {
		for i := range min(len(lx.calls), len(lr.calls)) {
			if lx.calls[i] != lr.calls[i] {
				t.Fatalf("%s: call %d differs:\ncompiled  %s\nreference %s", what, i, lx.calls[i], lr.calls[i])
			}
		}
		t.Fatalf("%s: %d calls, reference %d", what, len(lx.calls), len(lr.calls))
	}
	lx.calls, lr.calls = lx.calls[:0], lr.calls[:0]
	if x.Rng.Int63() != r.Rng.Int63() {
		t.Fatalf("%s: random draws differ", what)
	}
}

// TestCompiledMatchesReference runs packets and timer threads with random
// header vectors and payloads through every program, compiled and by the
// reference, in every executor setup.
func TestCompiledMatchesReference(t *testing.T) {
	packets := 400
	if testing.Short() {
		packets = 60
	}
	for name, p := range diffPrograms(t) {
		for _, m := range diffModes {
			t.Run(name+"/"+m.name, func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(len(name))))
				x, r, lx, lr := newPair(p, 7, m)
				now := int64(0)
				for i := 0; i < packets; i++ {
					now = nextPacket(rng, p, now, x, r.Exec)
					what := fmt.Sprintf("packet %d", i)
					x.RunControl(p.Ingress)
					r.RunControl(p.Ingress)
					sameRun(t, what+" ingress", x, r, lx, lr)
					x.RunControl(p.Egress)
					r.RunControl(p.Egress)
					sameRun(t, what+" egress", x, r, lx, lr)
					for _, tm := range p.Timers {
						if i%7 != 0 {
							continue
						}
						for j := 0; j < min(tm.Threads, 8); j++ {
							th := j
							if tm.Threads > 8 {
								th = rng.Intn(tm.Threads)
							}
							x.PHV, r.PHV = make([]int64, len(p.Fields)), make([]int64, len(p.Fields))
							x.Payload, r.Payload = nil, nil
							x.RunTimer(tm, th)
							r.RunTimer(tm, th)
							sameRun(t, fmt.Sprintf("%s timer %s thread %d", what, tm.Name, th), x, r, lx, lr)
						}
					}
				}
				sameState(t, name, x.State, r.State)
				if x.Steps == 0 {
					t.Fatalf("no statement ran")
				}
				if cl, ok := x.Tracer.(*costLog); ok && name == "trio-ml" && cl.runs == 0 {
					t.Fatalf("no run of register adds was batched")
				}
				if sl, ok := x.Tracer.(*spanLog); ok && name == "trio-ml" && (sl.spans == 0 || sl.runs == 0) {
					t.Fatalf("trio-ml's runs of adds: %d as spans, %d as records; want some of each", sl.spans, sl.runs)
				}
			})
		}
	}
}

// nextPacket draws a packet for p, arriving up to 2 us after now: a random
// header vector and payload, given to the executors alike (each its own
// copy of the vector). It returns the packet's time.
func nextPacket(rng *rand.Rand, p *Program, now int64, xs ...*Exec) int64 {
	now += int64(rng.Intn(2_000_000))
	phv := randomPHV(rng, p)
	n := rng.Intn(80)
	if rng.Intn(4) == 0 {
		n = rng.Intn(4400) // room for whole runs of payload words (trio-ml reads up to 4 KB)
	}
	payload := make([]byte, n)
	rng.Read(payload)
	for i, x := range xs {
		x.PHV, x.NowPs, x.Payload = phv, now, payload
		if i > 0 {
			x.PHV = append([]int64(nil), phv...)
		}
	}
	return now
}

// exprGen builds random well-formed expression and statement trees over a
// program's fields, registers and meters.
type exprGen struct {
	rng *rand.Rand
	p   *Program
}

func (g *exprGen) typ() Type {
	switch g.rng.Intn(5) {
	case 0:
		return Type{}
	case 1, 2:
		return Type{Bits: 48 + g.rng.Intn(17), Signed: g.rng.Intn(2) == 0}
	}
	return Type{Bits: 1 + g.rng.Intn(63), Signed: g.rng.Intn(2) == 0}
}

func (g *exprGen) constant() *ConstExpr {
	t := g.typ()
	var v int64
	switch g.rng.Intn(4) {
	case 0, 2:
		v = int64(g.rng.Intn(70)) - 3 // shift counts around 0 and 64, zero divisors
	case 1:
		v = t.Max()
	default:
		v = int64(g.rng.Uint64())
	}
	if t.Bits == 0 && g.rng.Intn(2) == 0 {
		v = -v // an untyped negative constant
	}
	return &ConstExpr{Val: t.Norm(v), T: t}
}

func (g *exprGen) field() *Field {
	for {
		f := g.p.Fields[g.rng.Intn(len(g.p.Fields))]
		if f.Kind != ValidBit {
			return f
		}
	}
}

// typed is a random expression of a known, nonzero width (for concat
// and hash operands).
func (g *exprGen) typed(depth int) Expr {
	e := g.expr(depth)
	if e.Type().Bits == 0 {
		return &CastExpr{X: e, T: Type{Bits: 1 + g.rng.Intn(32)}}
	}
	return e
}

func (g *exprGen) call(name string, args ...Expr) *CallExpr {
	b := lookupBuiltin(OnNothing, name)
	c := &CallExpr{Builtin: b, Args: args, eval: b.Eval}
	t, err := b.Type(c)
	if err != nil {
		t = Type{Bits: 32}
	}
	c.T = t
	return c
}

func (g *exprGen) expr(depth int) Expr {
	if depth <= 0 {
		switch g.rng.Intn(3) {
		case 0:
			return g.constant()
		default:
			return &FieldExpr{F: g.field()}
		}
	}
	d := depth - 1
	switch g.rng.Intn(14) {
	case 0:
		return g.constant()
	case 1:
		return &FieldExpr{F: g.field()}
	case 2, 3, 4, 5:
		op := Op(g.rng.Intn(int(OpLOr) + 1))
		y := g.expr(d)
		if g.rng.Intn(2) == 0 {
			y = g.constant()
		}
		return &BinaryExpr{Op: op, X: g.expr(d), Y: y, T: g.typ()}
	case 6:
		return &UnaryExpr{Op: OpNeg + Op(g.rng.Intn(3)), X: g.expr(d), T: g.typ()}
	case 7:
		lo := g.rng.Intn(64)
		return &SliceExpr{X: g.expr(d), Lo: lo, Hi: lo + g.rng.Intn(64-lo)}
	case 8:
		return &CastExpr{X: g.expr(d), T: g.typ()}
	case 9:
		switch g.rng.Intn(7) {
		case 0:
			return g.call("sat_add", g.typed(d), g.expr(d))
		case 1:
			return g.call("sat_sub", g.typed(d), g.expr(d))
		case 2:
			return g.call([]string{"min", "max"}[g.rng.Intn(2)], g.expr(d), g.expr(d))
		case 3:
			a := &CastExpr{X: g.expr(d), T: Type{Bits: 1 + g.rng.Intn(31)}}
			b := &CastExpr{X: g.expr(d), T: Type{Bits: 1 + g.rng.Intn(31), Signed: g.rng.Intn(2) == 0}}
			return g.call("concat", a, b)
		case 4:
			return g.call("hash", g.typed(d), g.typed(d))
		case 5:
			return g.call("random", &ConstExpr{Val: int64(1 + g.rng.Intn(64))})
		default:
			return g.call("payload32", g.expr(d))
		}
	case 10:
		if len(g.p.Registers) > 0 {
			r := g.p.Registers[g.rng.Intn(len(g.p.Registers))]
			if len(r.Actions) > 0 {
				return &RegisterCall{Action: r.Actions[g.rng.Intn(len(r.Actions))], Index: g.expr(d)}
			}
		}
	case 11:
		if len(g.p.Meters) > 0 {
			return &MeterCall{Meter: g.p.Meters[g.rng.Intn(len(g.p.Meters))], Index: g.expr(d)}
		}
	case 12:
		return &ValidExpr{H: g.p.Headers[g.rng.Intn(len(g.p.Headers))]}
	}
	return &BinaryExpr{Op: OpAdd, X: g.expr(d), Y: g.expr(d), T: g.typ()}
}

// stmts is a random statement list: assignments, expression statements
// and conditionals.
func (g *exprGen) stmts(depth, n int) []Stmt {
	var out []Stmt
	for i := 0; i < n; i++ {
		switch g.rng.Intn(5) {
		case 0:
			if depth > 0 {
				out = append(out, &IfStmt{Cond: g.expr(2), Then: g.stmts(depth-1, 2), Else: g.stmts(depth-1, g.rng.Intn(2))})
				continue
			}
			fallthrough
		case 1, 2, 3:
			out = append(out, &AssignStmt{Dst: LValue{Field: g.field()}, Src: g.expr(3)})
		default:
			out = append(out, &ExprStmt{X: g.expr(2)})
		}
	}
	return out
}

// TestCompiledExpressionsMatchReference evaluates random expressions and
// runs random statement lists on random header vectors, compiled and by
// the reference: every operator on every width and signedness, constants
// at the edges (shifts by 64 and more, negative shifts, division by
// zero), slices, casts, value built-ins, register actions and meters.
func TestCompiledExpressionsMatchReference(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	for _, name := range []string{"ndp", "trio-ml", "pie-dp"} {
		p, err := Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range diffModes[:2] {
			t.Run(name+"/"+m.name, func(t *testing.T) {
				rng := rand.New(rand.NewSource(11))
				g := &exprGen{rng: rng, p: p}
				x, r, lx, lr := newPair(p, 3, m)
				for i := 0; i < n; i++ {
					phv := randomPHV(rng, p)
					payload := make([]byte, rng.Intn(24))
					rng.Read(payload)
					x.PHV, r.PHV = phv, append([]int64(nil), phv...)
					x.Payload, r.Payload = payload, payload
					x.NowPs, r.NowPs = int64(i)*1000, int64(i)*1000
					e := g.expr(1 + rng.Intn(4))
					if a, b := x.Eval(e), r.Eval(e); a != b {
						t.Fatalf("expression %d (%#v): compiled %d, reference %d", i, e, a, b)
					}
					sameRun(t, fmt.Sprintf("expression %d", i), x, r, lx, lr)
					c := &Control{Name: "random", Body: g.stmts(2, 1+rng.Intn(4))}
					x.RunControl(c)
					r.RunControl(c)
					sameRun(t, fmt.Sprintf("statements %d", i), x, r, lx, lr)
				}
				sameState(t, name, x.State, r.State)
			})
		}
	}
}

// TestEveryBuiltinCompiled: every value and statement built-in of the
// table has a compiled form (none runs through its row function, whose
// operands Exec.Eval would evaluate one by one).
func TestEveryBuiltinCompiled(t *testing.T) {
	k := newCompiled(&Program{}, -1)
	args := []Expr{&ConstExpr{Val: 1}, &ConstExpr{Val: 2}, &ConstExpr{Val: 3}}
	a := &Action{Params: []*Param{{}, {}, {}}}
	for _, b := range BuiltinTable() {
		switch {
		case b.Value && b.Eval != nil:
			if k.callFor(&CallExpr{Builtin: b, Args: args, Table: &Table{}}) == nil {
				t.Errorf("%s has no compiled form", b)
			}
		case !b.Value && b.Exec != nil:
			if k.builtinStmtFor(&BuiltinStmt{Builtin: b, Args: args, Table: &Table{}, Action: a, Reg: &Register{}}) == nil {
				t.Errorf("%s has no compiled form", b)
			}
		}
	}
}

// BenchmarkRunControl runs ndp's ingress and egress on parsed packets of
// its traffic, compiled and by the reference tree walker.
func BenchmarkRunControl(b *testing.B) {
	for _, name := range []string{"ndp", "pie-dp", "trio-ml"} {
		p, err := Resolve(name, nil)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewSource(1))
		var phvs [][]int64
		for i := 0; i < 256; i++ {
			phv := randomPHV(rng, p)
			if len(p.Traffic) > 0 {
				ft := p.Traffic[i%len(p.Traffic)]
				phv = make([]int64, len(p.Fields))
				head := ft.BuildPacket(i, 1500)
				p.Parse(head, 1500, phv, false, false)
				phv[p.Std[StdIngressPort].Slot] = int64(ft.Ports[i%len(ft.Ports)])
				phv[p.Std[StdPacketLength].Slot] = 1500
			}
			phvs = append(phvs, phv)
		}
		for _, mode := range []string{"compiled", "reference"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
				r := &refExec{Exec: NewExec(NewState(p), rand.New(rand.NewSource(1)))}
				phv := make([]int64, len(p.Fields))
				for i := 0; i < b.N; i++ {
					copy(phv, phvs[i%len(phvs)])
					x.PHV, r.PHV = phv, phv
					x.NowPs, r.NowPs = int64(i)*1000, int64(i)*1000
					if mode == "compiled" {
						x.RunControl(p.Ingress)
						x.RunControl(p.Egress)
					} else {
						r.RunControl(p.Ingress)
						r.RunControl(p.Egress)
					}
				}
			})
		}
	}
}

// spProgram's runs of adds are spans whose 8-bit index and word wrap at
// random header values (base 253..255, word 254..255), and whose cells
// sit on both sides of a register page (4093 + etype: base 4093..4095 of
// the 16-bit index into the 5000-cell register), so the differential test
// meets the spans RegAddSpan must not take.
const spProgram = `program: spans
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  b: 8
  w: 8
  c: 16
registers:
  r:
    width: 32
    size: 5000
    actions:
      add0: value = value + payload32(meta.w + 0)
      add1: value = value + payload32(meta.w + 1)
      add2: value = value + payload32(meta.w + 2)
      add3: value = value + payload32(meta.w + 3)
parser:
  start: s
  states:
    s:
      extract: eth
ingress: |
  meta.b = eth.etype[7:0]
  meta.w = eth.etype[15:8]
  meta.c = 4093 + eth.etype
  r.add0(meta.b + 0)
  r.add1(meta.b + 1)
  r.add2(meta.b + 2)
  r.add3(meta.b + 3)
  meta.w = meta.w + 1
  r.add0(meta.c + 0)
  r.add1(meta.c + 1)
  r.add2(meta.c + 2)
`
