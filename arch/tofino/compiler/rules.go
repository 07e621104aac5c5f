package compiler

import (
	"fmt"
	"slices"
	"strings"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// Rule names a Tofino constraint a program can break. The names are part of
// archsim's output contract (errors, JSON).
type Rule string

// Tofino placement rules.
const (
	RuleStageLocal       Rule = "stage-local-memory"         // a register or meter lives in one stage, reached once per pass
	RuleRegisterGress    Rule = "register-one-gress"         // a register belongs to one thread (ingress or egress)
	RuleNoLoops          Rule = "no-loops"                   // a packet passes each stage once
	RuleALUMultiply      Rule = "alu-multiply"               // VLIW ALUs multiply only by powers of two
	RuleALUShift         Rule = "alu-shift"                  // shift amounts must be constants
	RuleALUComplexity    Rule = "alu-one-operation"          // one operation per field per action
	RuleRegisterWidth    Rule = "register-width"             // max register element width
	RuleRegisterActions  Rule = "register-action-count"      // max register actions per register
	RuleSALUComplexity   Rule = "register-action-complexity" // one binary operator per SALU assignment
	RuleSALUComparators  Rule = "register-action-comparators"
	RuleSALUInputs       Rule = "register-action-inputs"
	RuleSALUConstants    Rule = "register-action-constants"
	RuleSALUAssignOnce   Rule = "register-action-assign-once"
	RuleIntrinsic        Rule = "intrinsic-metadata" // which std.* fields a thread can see
	RuleOneStateful      Rule = "one-stateful-per-action"
	RuleTableOnce        Rule = "table-applied-once"
	RuleRangeKey         Rule = "range-key-width"
	RuleStageBudget      Rule = "stage-budget" // does not fit the per-stage budget / stage count
	RuleConditionComplex Rule = "condition"
	RuleTMQueues         Rule = "tm-queues"       // a queue id the chip's ports do not have
	RuleTimerThreads     Rule = "timer-threads"   // a PISA pipeline runs only on packets: no timer threads
	RulePayloadAccess    Rule = "payload-access"  // the stages see parsed headers only, not the bytes after them
	RulePacketCreation   Rule = "packet-creation" // a pipeline copies the packet it processes but cannot create one (emit)
	RuleTableUpdate      Rule = "table-update"    // match entries are written by the control plane, not by the data plane
	RulePacketBuffer     Rule = "packet-buffer"   // a pipeline keeps no packets: it recirculates mirror copies instead
	RulePHV              Rule = "phv-allocation"  // the fields a thread carries must fit its PHV containers
	RuleParserTCAM       Rule = "parser-tcam"     // the parse graph must fit the parser's TCAM rows
)

// PlacementError is a program the chip cannot run, with the rule broken.
type PlacementError struct {
	Rule Rule
	Pos  programs.Pos
	Msg  string
}

func (e *PlacementError) Error() string {
	if e.Pos.File == "" {
		return fmt.Sprintf("rule %s: %s", e.Rule, e.Msg)
	}
	return fmt.Sprintf("%s: rule %s: %s", e.Pos, e.Rule, e.Msg)
}

func ruleErr(r Rule, pos programs.Pos, format string, args ...any) *PlacementError {
	return &PlacementError{Rule: r, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func errAt(pos programs.Pos, msg string) *PlacementError {
	return &PlacementError{Rule: RuleConditionComplex, Pos: pos, Msg: msg}
}

// stdAccess tells which standard metadata a Tofino thread can read and
// write, following TNA's intrinsic metadata structs
// (ingress_intrinsic_metadata_t / _for_tm_t / _for_deparser_t and
// egress_intrinsic_metadata_t, tofino1_base.p4).
type stdAccess struct{ read, write bool }

func stdRights(c *spec.Config, g spec.Gress, id programs.StdID) stdAccess {
	switch id {
	case programs.StdIngressPort:
		return stdAccess{read: g == spec.Ingress}
	case programs.StdEgressPort, programs.StdQid:
		return stdAccess{read: true, write: g == spec.Ingress}
	case programs.StdDrop, programs.StdMirror, programs.StdMirrorSession:
		return stdAccess{read: true, write: true}
	case programs.StdDeflectOnDrop, programs.StdMcastGrp, programs.StdRecirculate, programs.StdBypassEgress, programs.StdTrimDisable:
		return stdAccess{read: g == spec.Ingress, write: g == spec.Ingress}
	case programs.StdTstamp:
		return stdAccess{read: true}
	case programs.StdPacketLength:
		// TNA: pkt_length is egress intrinsic metadata; ingress has none
		// (a program reads ipv4.total_len there).
		return stdAccess{read: g == spec.Egress}
	case programs.StdTimerIndex:
		// Always 0 on a packet thread (a program with timers does not
		// place): a constant the compiler folds.
		return stdAccess{read: true}
	case programs.StdEnqQdepth:
		return stdAccess{read: g == spec.Egress || c.Features.IngressQueueVisibility}
	case programs.StdDeqQdepth, programs.StdEnqTstamp, programs.StdDeqTimedelta, programs.StdDeflected, programs.StdMirrorCopy:
		return stdAccess{read: g == spec.Egress}
	}
	return stdAccess{}
}

// checkThreads rejects what a packet-driven pipeline cannot run at all,
// before lowering: timer threads, and the built-ins whose row in the
// table of built-ins names the rule they break (reads of the bytes after
// the parsed headers, packet creation, resets of register ranges,
// data-plane writes or scans of match tables); of each kind, the first one
// in the file is reported.
func checkThreads(prog *programs.Program) error {
	type violation struct {
		rule Rule
		pos  programs.Pos
		what string // short name for the "also" list
		msg  string
	}
	var vs []violation
	if len(prog.Timers) > 0 {
		t := prog.Timers[0]
		vs = append(vs, violation{RuleTimerThreads, t.Pos, "timers", fmt.Sprintf("timer %s: a PISA pipeline has no timer threads: periodic work needs packets from the packet generator, and a timeout over a table needs the control plane to scan it (the Trio paper §5)", t.Name)})
	}
	uses := prog.BuiltinUses()
	for _, r := range rejections() {
		for _, u := range uses {
			if u.Builtin.Tofino.Reject == r {
				vs = append(vs, violation{Rule(r.Rule), u.Pos, r.What, r.Message(u)})
				break
			}
		}
	}
	if len(vs) == 0 {
		return nil
	}
	// The first violation is the error; the others are listed so a user
	// sees everything a PISA pipeline lacks for this program at once.
	msg := vs[0].msg
	if len(vs) > 1 {
		var also []string
		for _, v := range vs[1:] {
			also = append(also, fmt.Sprintf("%s (rule %s, line %d)", v.what, v.rule, v.pos.Line))
		}
		msg += "; the program also uses " + strings.Join(also, ", ")
	}
	return ruleErr(vs[0].rule, vs[0].pos, "%s", msg)
}

// rejections lists the rules that reject built-ins, in the order of the
// table of built-ins (rows sharing a rule are one violation).
func rejections() []*programs.TofinoReject {
	var out []*programs.TofinoReject
	for _, b := range programs.BuiltinTable() {
		if r := b.Tofino.Reject; r != nil && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// checkRules applies the target's operation limits to every logical table
// and register action. It returns the first violation.
func checkRules(c *spec.Config, prog *programs.Program, lts []*LT) error {
	if err := checkQueues(c, prog); err != nil {
		return err
	}
	for _, r := range prog.Registers {
		if err := checkRegister(c, r); err != nil {
			return err
		}
	}
	applied := map[*programs.Table][]*LT{}
	for _, lt := range lts {
		if err := checkIntrinsics(c, prog, lt); err != nil {
			return err
		}
		for _, body := range lt.Actions {
			if err := checkActionBody(c, lt, body); err != nil {
				return err
			}
		}
		if lt.Kind == KindMatch {
			for _, prev := range applied[lt.Table] {
				if !exclusive(prev, lt) {
					return ruleErr(RuleTableOnce, lt.Pos, "table %s is applied twice on one path (lines %d and %d): a table is one logical table in one stage and a packet passes each stage once",
						lt.Table.Name, prev.Pos.Line, lt.Pos.Line)
				}
			}
			applied[lt.Table] = append(applied[lt.Table], lt)
			for _, k := range lt.Table.Keys {
				if k.Kind == programs.MatchRange {
					if n := nibbles(k); n > c.MAU.RangeMaxNibbles {
						return ruleErr(RuleRangeKey, k.Pos, "table %s: range key %s spans %d nibbles; a Tofino range match covers at most %d (about %d bits)",
							lt.Table.Name, k.Field.Name, n, c.MAU.RangeMaxNibbles, 4*c.MAU.RangeMaxNibbles)
					}
				}
			}
		}
	}
	return nil
}

// checkQueues: every queue the program's traffic-manager setup names must
// exist on the chip's ports.
func checkQueues(c *spec.Config, prog *programs.Program) error {
	n := c.TM.QueuesPerPort
	for _, q := range prog.TM.Queues {
		if q.Qid >= n {
			return ruleErr(RuleTMQueues, q.Pos, "tm queue %d: %s ports have queues 0..%d", q.Qid, c.Name, n-1)
		}
	}
	if d := prog.TM.OnDrop; d.Queue >= n {
		return ruleErr(RuleTMQueues, d.Pos, "tm on_drop queue %d: %s ports have queues 0..%d", d.Queue, c.Name, n-1)
	}
	for _, m := range prog.Mirrors {
		if m.Queue >= n {
			return ruleErr(RuleTMQueues, m.Pos, "mirror session %d: queue %d: %s ports have queues 0..%d", m.ID, m.Queue, c.Name, n-1)
		}
	}
	return nil
}

func nibbles(k *programs.Key) int { return (k.Bits + 3) / 4 }

func checkIntrinsics(c *spec.Config, prog *programs.Program, lt *LT) error {
	check := func(set fieldSet, write bool) error {
		for _, slot := range set.slots() {
			if slot >= len(prog.Fields) {
				continue
			}
			f := prog.Fields[slot]
			if f.Kind != programs.StdField {
				continue
			}
			r := stdRights(c, lt.Gress, f.Std)
			// The error names the line that writes or reads the field
			// (a run of inline statements is one table named after its
			// first line).
			at := func(line int) programs.Pos {
				pos := lt.Pos
				if line > 0 {
					pos.Line = line
				}
				return pos
			}
			if write && !r.write {
				return ruleErr(RuleIntrinsic, at(writtenAt(lt, slot)), "%s writes %s, which the %s thread cannot set on %s", lt.Name, f.Name, lt.Gress, c.Name)
			}
			if !write && !r.read {
				why := ""
				switch f.Std {
				case programs.StdEnqQdepth:
					why = " (queue state reaches only egress on Tofino 1; the what-if knob tofino.features.ingress_queue_visibility models Tofino 2's ghost thread)"
				case programs.StdPacketLength:
					why = " (TNA's pkt_length is egress intrinsic metadata; in ingress read the IP header's length)"
				}
				reads := func(e programs.Expr) bool {
					fe, ok := e.(*programs.FieldExpr)
					return ok && fe.F.Slot == slot
				}
				return ruleErr(RuleIntrinsic, at(readAt(lt, reads)), "%s reads %s, which the %s thread cannot see on %s%s", lt.Name, f.Name, lt.Gress, c.Name, why)
			}
		}
		return nil
	}
	reads := append(fieldSet(nil), lt.MatchReads...)
	reads.union(lt.ActionReads)
	if err := check(reads, false); err != nil {
		return err
	}
	return check(lt.Writes, true)
}

// checkActionBody applies the VLIW limits to the statements of one action.
func checkActionBody(c *spec.Config, lt *LT, body []programs.Stmt) error {
	stateful := 0
	for _, s := range body {
		var src programs.Expr
		switch s := s.(type) {
		case *programs.AssignStmt:
			src = s.Src
		case *programs.ExprStmt:
			src = s.X
		default:
			continue
		}
		var err error
		ops := 0
		walkExpr(src, func(e programs.Expr) {
			switch x := e.(type) {
			case *programs.RegisterCall, *programs.MeterCall:
				stateful++
			case *programs.BinaryExpr:
				if x.Op != programs.OpLAnd && x.Op != programs.OpLOr {
					ops++
				}
				if err == nil {
					err = checkALUOp(c, lt, x)
				}
			case *programs.CallExpr:
				ops += x.Builtin.Tofino.ALUOps
			}
		})
		if err != nil {
			return err
		}
		if ops > 1 {
			return ruleErr(RuleALUComplexity, s.Position(), "%s: the expression needs %d operations; a Tofino action ALU does one operation per field per stage: split it into several statements (each costs a stage)",
				lt.Name, ops)
		}
	}
	if stateful > 1 && lt.Kind == KindMatch {
		return ruleErr(RuleOneStateful, lt.Pos, "table %s: an action uses %d registers/meters; Tofino allows one stateful ALU per action", lt.Name, stateful)
	}
	return nil
}

func isPow2Const(e programs.Expr) bool {
	c, ok := e.(*programs.ConstExpr)
	return ok && c.Val > 0 && c.Val&(c.Val-1) == 0
}

func checkALUOp(c *spec.Config, lt *LT, x *programs.BinaryExpr) error {
	switch x.Op {
	case programs.OpMul:
		if c.ALU.Multiply == "pow2_constant" && !isPow2Const(x.X) && !isPow2Const(x.Y) {
			return ruleErr(RuleALUMultiply, x.Pos, "%s multiplies two non-constant values (or by a constant that is not a power of two); Tofino's action ALUs have no multiplier: only a multiplication by a power-of-two constant (a shift) is possible", lt.Name)
		}
	case programs.OpDiv, programs.OpMod:
		if c.ALU.Multiply == "pow2_constant" && !isPow2Const(x.Y) {
			return ruleErr(RuleALUMultiply, x.Pos, "%s divides by a value that is not a power-of-two constant; Tofino's action ALUs cannot divide", lt.Name)
		}
	case programs.OpShl, programs.OpShr:
		if _, ok := x.Y.(*programs.ConstExpr); !ok && c.ALU.Shift == "constant" {
			return ruleErr(RuleALUShift, x.Pos, "%s shifts by a variable amount; Tofino's action ALUs shift by constants only", lt.Name)
		}
	}
	return nil
}

// checkRegister applies the stateful ALU limits to a register and its
// register actions ([BFP4C] mau/stateful_alu.cpp).
func checkRegister(c *spec.Config, r *programs.Register) error {
	if !r.Pair && r.Type.Bits > c.SALU.MaxWidth {
		return ruleErr(RuleRegisterWidth, r.Pos, "register %s is %d bits wide; a %s register holds at most %d bits (or a pair of two %d-bit halves)",
			r.Name, r.Type.Bits, c.Name, c.SALU.MaxWidth, c.SALU.MaxWidth)
	}
	if r.Pair && r.Type.Bits > c.SALU.MaxPairWidth {
		return ruleErr(RuleRegisterWidth, r.Pos, "register %s is a %d-bit pair; %s pairs are at most %d bits", r.Name, r.Type.Bits, c.Name, c.SALU.MaxPairWidth)
	}
	if len(r.Actions) > c.SALU.ActionsPerRegister {
		return ruleErr(RuleRegisterActions, r.Pos, "register %s has %d register actions; a stateful ALU holds at most %d instructions",
			r.Name, len(r.Actions), c.SALU.ActionsPerRegister)
	}
	for _, ra := range r.Actions {
		if err := checkRegisterAction(c, ra); err != nil {
			return err
		}
	}
	return nil
}

type saluCheck struct {
	c       *spec.Config
	ra      *programs.RegisterAction
	cmps    int
	inputs  fieldSet
	inputsN []*programs.Field
	consts  []int64
	wide    *programs.Field
	wideN   int
}

func checkRegisterAction(c *spec.Config, ra *programs.RegisterAction) error {
	sc := &saluCheck{c: c, ra: ra}
	if err := sc.block(ra.Body, map[string]bool{}); err != nil {
		return err
	}
	name := ra.Register.Name + "." + ra.Name
	if sc.cmps > c.SALU.Comparators {
		return ruleErr(RuleSALUComparators, ra.Pos, "register action %s makes %d comparisons; a stateful ALU has %d comparators", name, sc.cmps, c.SALU.Comparators)
	}
	if len(sc.inputsN) > c.SALU.PHVInputs {
		return ruleErr(RuleSALUInputs, ra.Pos, "register action %s reads %d packet fields (%s); a stateful ALU takes %d PHV inputs", name, len(sc.inputsN), fieldNames(sc.inputsN), c.SALU.PHVInputs)
	}
	if sc.wide != nil {
		return ruleErr(RuleSALUInputs, ra.Pos, "register action %s reads %d bits of %s; a stateful ALU input is at most %d bits (slice it, e.g. %s[%d:0])",
			name, sc.wideN, sc.wide.Name, c.SALU.PHVInputBits, sc.wide.Name, c.SALU.PHVInputBits-1)
	}
	if len(sc.consts) > c.SALU.RegfileRows {
		return ruleErr(RuleSALUConstants, ra.Pos, "register action %s needs %d constants outside %d..%d; the stateful ALU register file has %d rows",
			name, len(sc.consts), c.SALU.ConstMin, c.SALU.ConstMax, c.SALU.RegfileRows)
	}
	return nil
}

func fieldNames(fs []*programs.Field) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += ", "
		}
		s += f.Name
	}
	return s
}

func (sc *saluCheck) block(stmts []programs.Stmt, assigned map[string]bool) error {
	name := sc.ra.Register.Name + "." + sc.ra.Name
	for _, s := range stmts {
		switch s := s.(type) {
		case *programs.AssignStmt:
			key := "out"
			if s.Dst.Cell != nil {
				key = [...]string{"value", "lo", "hi"}[s.Dst.Cell.Half]
				if s.Dst.Cell.Half == 0 {
					key = "value"
				}
			}
			if assigned[key] || (key == "value" && (assigned["lo"] || assigned["hi"])) {
				return ruleErr(RuleSALUAssignOnce, s.Pos, "register action %s assigns %s twice on one path; a stateful ALU writes each output once", name, key)
			}
			assigned[key] = true
			if err := sc.expr(s.Src, false); err != nil {
				return err
			}
		case *programs.IfStmt:
			if err := sc.cond(s.Cond); err != nil {
				return err
			}
			a1 := copyMap(assigned)
			if err := sc.block(s.Then, a1); err != nil {
				return err
			}
			a2 := copyMap(assigned)
			if err := sc.block(s.Else, a2); err != nil {
				return err
			}
			for k := range a1 {
				assigned[k] = true
			}
			for k := range a2 {
				assigned[k] = true
			}
		}
	}
	return nil
}

func copyMap(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// cond counts comparator uses: every comparison (or bare 1-bit test) inside
// an if condition takes one comparator.
func (sc *saluCheck) cond(e programs.Expr) error {
	switch x := e.(type) {
	case *programs.BinaryExpr:
		if x.Op == programs.OpLAnd || x.Op == programs.OpLOr {
			if err := sc.cond(x.X); err != nil {
				return err
			}
			return sc.cond(x.Y)
		}
		if x.Op.IsCompare() {
			sc.cmps++
			// A comparator computes (a ± b ± const) OP 0: at most two
			// non-constant operands and one constant, joined by + and -.
			n, err := sc.sumOperands(x.X)
			if err != nil {
				return err
			}
			m, err := sc.sumOperands(x.Y)
			if err != nil {
				return err
			}
			if n+m > 2 {
				return ruleErr(RuleSALUComplexity, x.Pos, "register action %s.%s: the comparison uses %d values; a comparator combines at most two",
					sc.ra.Register.Name, sc.ra.Name, n+m)
			}
			return nil
		}
	case *programs.UnaryExpr:
		if x.Op == programs.OpNot {
			return sc.cond(x.X)
		}
	}
	sc.cmps++
	return sc.expr(e, true)
}

func (sc *saluCheck) sumOperands(e programs.Expr) (int, error) {
	if b, ok := e.(*programs.BinaryExpr); ok && (b.Op == programs.OpAdd || b.Op == programs.OpSub) {
		l, err := sc.sumOperands(b.X)
		if err != nil {
			return 0, err
		}
		r, err := sc.sumOperands(b.Y)
		return l + r, err
	}
	if err := sc.expr(e, true); err != nil {
		return 0, err
	}
	if _, ok := e.(*programs.ConstExpr); ok {
		return 0, nil
	}
	return 1, nil
}

// expr checks an assignment source: one binary operator unless the outer
// one is |, no multiplication or shifts, PHV inputs and constants counted.
func (sc *saluCheck) expr(e programs.Expr, inCond bool) error {
	name := sc.ra.Register.Name + "." + sc.ra.Name
	ops := 0
	outerOr := false
	if b, ok := e.(*programs.BinaryExpr); ok && b.Op == programs.OpOr {
		outerOr = true
	}
	var err error
	walkNoSlice(e, func(x programs.Expr) {
		switch x := x.(type) {
		case *programs.BinaryExpr:
			switch x.Op {
			case programs.OpMul, programs.OpDiv, programs.OpMod, programs.OpShl, programs.OpShr:
				if err == nil {
					err = ruleErr(RuleSALUComplexity, x.Pos, "register action %s uses %s; a stateful ALU has no multiplier or shifter (only add, subtract, saturating add/subtract, min/max and bit operations)", name, x.Op)
				}
			}
			if !x.Op.IsCompare() && x.Op != programs.OpLAnd && x.Op != programs.OpLOr {
				ops++
			}
		case *programs.CallExpr:
			ops += x.Builtin.Tofino.ALUOps
		case *programs.FieldExpr:
			sc.input(x.F, x.F.Type.Bits)
		case *programs.SliceExpr:
			if f, ok := x.X.(*programs.FieldExpr); ok {
				sc.input(f.F, x.Hi-x.Lo+1)
			}
		case *programs.ConstExpr:
			if x.Val < int64(sc.c.SALU.ConstMin) || x.Val > int64(sc.c.SALU.ConstMax) {
				found := false
				for _, v := range sc.consts {
					if v == x.Val {
						found = true
					}
				}
				if !found {
					sc.consts = append(sc.consts, x.Val)
				}
			}
		}
	})
	if err != nil {
		return err
	}
	if !inCond && ops > sc.c.SALU.OpsPerAssignment && !outerOr {
		return ruleErr(RuleSALUComplexity, e.Position(), "register action %s: the expression needs %d operations; a stateful ALU does %d per assignment (unless the outer operator is |)",
			name, ops, sc.c.SALU.OpsPerAssignment)
	}
	return nil
}

func (sc *saluCheck) input(f *programs.Field, bits int) {
	if bits > sc.c.SALU.PHVInputBits && sc.wide == nil {
		sc.wide, sc.wideN = f, bits
	}
	if sc.inputs.has(f) {
		return
	}
	sc.inputs.add(f)
	sc.inputsN = append(sc.inputsN, f)
}
