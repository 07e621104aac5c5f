package programs

import (
	"errors"
	"fmt"
	"regexp"
)

// builtinRows is the table of the language's built-ins (see
// builtins_spec.go), in the order messages list them and Tofino reports
// the rules they break. Typing rules are below, semantics in
// builtins_exec.go, the loader's rules for statements in
// builtins_check.go.
func builtinRows() []*BuiltinSpec {
	return []*BuiltinSpec{
		// Arithmetic of the ALUs: one operation of an action ALU (or of
		// the stateful ALU inside a register action) and of a Trio
		// condition ALU.
		arithmetic("sat_add", evalSatAdd),
		arithmetic("sat_sub", evalSatSub),
		arithmetic("min", evalMin),
		arithmetic("max", evalMax),
		{
			Name: "concat", Value: true, Args: Arity{Min: 2, Max: -1, Late: true},
			Type: concatType, Eval: evalConcat,
			Tofino: TofinoCost{ALUOps: 1}, Trio: TrioCost{ALUOps: 1},
		},
		// Random extern: Tofino's per-stage generator; one Trio ALU
		// operation.
		{
			Name: "random", Value: true, ConstArgs: true,
			Args:  Arity{Min: 0, Max: 1, Msg: "{call} takes at most one argument (its width)"},
			Where: Where{NoRegisterAction: "{call} is not available inside a register action; draw it into a field first"},
			Type:  randomType, Eval: evalRandom,
			Tofino: TofinoCost{Unit: TofinoRNG}, Trio: TrioCost{ALUOps: 1},
		},
		// CRC-32 of the arguments: a Tofino hash unit; one Trio ALU
		// operation (the hash engine's CRC).
		{
			Name: "hash", Value: true,
			Args:  Arity{Min: 1, Max: -1, Msg: "{call} needs at least one field"},
			Where: Where{NoRegisterAction: "{call} is not available inside a register action"},
			Type:  hashType, Eval: evalHash,
			Tofino: TofinoCost{Unit: TofinoHash}, Trio: TrioCost{ALUOps: 1},
		},
		// A 32-bit word after the parsed headers: a PISA parser hands
		// the stages headers only; a Trio thread reads it from local
		// memory (a tail chunk is fetched when first touched, charged
		// by the PFE).
		{
			Name: "payload32", Value: true, Args: Arity{Min: 1, Max: 1},
			Type: payloadType, Eval: evalPayload,
			Tofino: TofinoCost{Reject: &TofinoReject{Rule: "payload-access", What: "payload32",
				Msg: "payload32 reads the packet after its parsed headers, but a PISA parser extracts headers only; the bytes after the parsed headers are not visible to the match-action stages: parse them as header fields instead, as SwitchML does"}},
			Trio: TrioCost{LMEMReads: 1},
		},
		{
			Name: "bitN/intN/uintN", Value: true, Args: Arity{Min: 1, Max: 1, Late: true},
			Expands: "a width conversion (CastExpr), or a constant",
			family:  castRE.MatchString, value: castValue,
		},
		// Intrinsic metadata the traffic manager and deparser act on.
		{
			Name: "drop", Args: Arity{Msg: "{call} takes no arguments"},
			Where:   Where{NoRegisterAction: notInRegisterAction},
			Expands: "std.drop = 1", stmt: setStd(StdDrop),
		},
		{
			Name: "recirculate", Args: Arity{Msg: "{call} takes no arguments"},
			Where:   Where{NoRegisterAction: notInRegisterAction},
			Expands: "std.recirculate = 1", stmt: setStd(StdRecirculate),
		},
		{
			Name: "mirror", Args: Arity{Min: 1, Max: 1, Msg: "{name}(x) takes one argument"},
			Where:   Where{NoRegisterAction: notInRegisterAction},
			Expands: "std.mirror = 1; std.mirror_session = x", stmt: mirrorStmt,
		},
		{
			Name: "multicast", Args: Arity{Min: 1, Max: 1, Msg: "{name}(x) takes one argument"},
			Where:   Where{NoRegisterAction: notInRegisterAction},
			Expands: "std.mcast_grp = x", stmt: multicastStmt,
		},
		// Packet creation by a thread (Trio's PPE and timer threads).
		{
			Name: "emit", Args: Arity{Min: 0, Max: 3, Skip: []int{1, 2},
				Msg: "emit takes no arguments or three, emit(REGISTER, START, CELLS), got {got} (the new packet is built from the valid headers, std.egress_port, std.mcast_grp, std.qid and std.packet_length; the three arguments add register cells as its payload)"},
			Where: Where{Control: "creating a packet"},
			stmt:  emitStmt, Exec: execEmit,
			Tofino: TofinoCost{Reject: &TofinoReject{Rule: "packet-creation", What: "emit()",
				Msg: "emit(): a PISA pipeline cannot create packets in the data plane; it can only copy the packet it processes (mirror, multicast, recirculate)"}},
			Trio: TrioCost{Instr: 1, Ends: true, RangeLoop: []string{"read", "pmem_write"}},
		},
		// Reset of a register range (the shared memory's writes).
		{
			Name: "clear", Args: Arity{Min: 3, Max: 3,
				Msg: "clear takes three arguments, clear(REGISTER, START, CELLS), got {got} (it resets cells START to START+CELLS-1 of the register to its initial value)"},
			Where: Where{Control: "resetting a range of register cells"},
			stmt:  clearStmt, Exec: execClear,
			Tofino: TofinoCost{Reject: &TofinoReject{Rule: "stage-local-memory", What: "clear()",
				Msg: "clear({register}, ...): register {register} lives in one pipeline stage, whose stateful ALU accesses one cell per packet; a range of cells cannot be reset in the data plane (reset it from the control plane, or one cell per packet with a register action)"}},
			Trio: TrioCost{Ends: true, RangeLoop: []string{"write"}},
		},
		// Packets a program keeps in a packet buffer (packet_buffers:):
		// a copy of the packet as it stands, sent again later (Trio keeps
		// them in its packet memory; a PISA pipeline keeps none).
		{
			Name: "store", Args: Arity{Min: 2, Max: 2, Msg: "store takes two arguments, store(BUFFER, SLOT), got {got} (it keeps a copy of the packet as it stands, its valid headers and its payload, in slot SLOT of packet buffer BUFFER)"},
			Where: Where{Control: "keeping a packet"},
			stmt:  bufferStmt, Exec: execStore,
			Tofino: TofinoCost{Reject: bufferOnTofino},
			Trio:   TrioCost{XTXN: []string{"pmem_write"}},
		},
		{
			Name: "resend", Args: Arity{Min: 2, Max: 2, Msg: "resend takes two arguments, resend(BUFFER, SLOT), got {got} (it sends a copy of the packet slot SLOT of BUFFER holds to std.egress_port, std.mcast_grp and std.qid)"},
			Where: Where{Control: "sending a kept packet"},
			stmt:  bufferStmt, Exec: execResend,
			Tofino: TofinoCost{Reject: bufferOnTofino},
			Trio:   TrioCost{XTXN: []string{"tail_fetch"}, Sync: true, Instr: 1, Ends: true},
		},
		{
			Name: "release", Args: Arity{Min: 2, Max: 2, Msg: "release takes two arguments, release(BUFFER, SLOT), got {got} (it empties slot SLOT of BUFFER)"},
			Where: Where{Control: "releasing a kept packet"},
			stmt:  bufferStmt, Exec: execRelease,
			Tofino: TofinoCost{Reject: bufferOnTofino},
			Trio:   TrioCost{Instr: 1},
		},
		{
			Name: "held", Value: true, Args: Arity{Min: 2, Max: 2, Msg: "held takes two arguments, held(BUFFER, SLOT), got {got} (1 when slot SLOT of BUFFER holds a packet)"},
			Where: Where{NoRegisterAction: notInRegisterAction},
			value: bufferValue, Type: bitsType(1), Eval: evalHeld,
			Tofino: TofinoCost{Reject: bufferOnTofino},
			Trio:   TrioCost{XTXN: []string{"read"}, Sync: true},
		},
		{
			Name: "buffered", Value: true, Args: Arity{Min: 1, Max: 1, Msg: "buffered takes one argument, buffered(BUFFER), got {got} (the bytes BUFFER holds)"},
			Where: Where{NoRegisterAction: notInRegisterAction},
			value: bufferValue, Type: bitsType(32), Eval: evalBuffered,
			Tofino: TofinoCost{Reject: bufferOnTofino},
			Trio:   TrioCost{XTXN: []string{"read"}, Sync: true},
		},
		// Header validity bits.
		{
			Name: "setValid", On: OnHeader, Args: Arity{Msg: "{call} takes no arguments, got {got}"},
			Where:   Where{NoRegisterAction: headersInRegisterAction},
			Expands: "hdr.$valid = 1", stmt: setValidity(1),
		},
		{
			Name: "setInvalid", On: OnHeader, Args: Arity{Msg: "{call} takes no arguments, got {got}"},
			Where:   Where{NoRegisterAction: headersInRegisterAction},
			Expands: "hdr.$valid = 0", stmt: setValidity(0),
		},
		{
			Name: "isValid", On: OnHeader, Value: true, Args: Arity{Msg: "{call} is not a value (headers have isValid())"},
			Expands: "a read of hdr.$valid (ValidExpr)", value: validValue,
		},
		// Data-plane writes and scans of an exact table's hash records
		// (Trio's microcode, the Trio paper §5); a Tofino match table is
		// written by the control plane.
		{
			Name: "insert", On: OnTable, tableOp: TableInsert,
			Args:  Arity{Min: 1, Max: 1, Msg: "{recv}.insert(ACTION(args)) takes one action call, got {got} arguments"},
			Where: tableRecords, stmt: insertStmt, Exec: execInsert,
			Tofino: TofinoCost{Reject: tableUpdateOnTofino},
			Trio:   TrioCost{Key: true, XTXN: []string{"hash_lookup"}, Sync: true, Reply: []string{"write"}},
		},
		{
			Name: "remove", On: OnTable, tableOp: TableRemove,
			Args:  Arity{Msg: "{recv}.remove() takes no arguments (it deletes the entry keyed by the current values of the table's keys)"},
			Where: tableRecords, stmt: removeStmt, Exec: execRemove,
			Tofino: TofinoCost{Reject: tableUpdateOnTofino},
			Trio:   TrioCost{Key: true, XTXN: []string{"write"}},
		},
		{
			Name: "load", On: OnTable, tableOp: TableLoad,
			Args:  Arity{Min: 1, Max: 1, Msg: "{recv}.load(INDEX) takes the record slot, got {got} arguments"},
			Where: tableRecords, stmt: loadStmt, Exec: execLoad,
			Tofino: TofinoCost{Reject: tableUpdateOnTofino},
			Trio:   TrioCost{XTXN: []string{"read"}, Sync: true, KeyWrites: true, Ends: true},
		},
		{
			Name: "aged", On: OnTable, Value: true, tableOp: TableAged,
			Args:          Arity{Min: 1, Max: 1, Msg: "{recv}.aged(INDEX) takes the record slot, got {got} arguments"},
			Where:         Where{Control: tableRecords.Control, ExactTable: true, RefFlags: true},
			NotAStatement: "{recv}.aged(INDEX) is a value (1: the record's REF flag was clear); test it, e.g. if {recv}.aged(meta.i) == 1 { ... }",
			Type:          agedType, Eval: evalAged,
			Tofino: TofinoCost{Reject: tableUpdateOnTofino},
			Trio:   TrioCost{XTXN: []string{"rmw"}, Sync: true}, // fetch-and-clear of the REF flag
		},
	}
}

const (
	notInRegisterAction     = "{call} is not available inside a register action"
	headersInRegisterAction = "headers cannot be changed inside a register action"
)

// tableRecords is where the record statements of a table may appear.
var tableRecords = Where{Control: "writing or scanning a table's records", ExactTable: true}

// bufferOnTofino is the one violation the packet-buffer built-ins make on
// Tofino.
var bufferOnTofino = &TofinoReject{Rule: "packet-buffer", What: "packet buffers",
	Msg: "{name}(): a PISA pipeline keeps no packets; the match-action stages see each packet once and pass it on. Buffer a packet by mirroring it to a recirculation port, where it circulates through ingress until the program drops it (Protego's Tx and Rx buffers on Tofino)"}

// tableUpdateOnTofino is the one violation all data-plane table operations
// make on Tofino.
var tableUpdateOnTofino = &TofinoReject{Rule: "table-update", What: "table updates",
	Msg: "{table}.{name}(): a match table is written by the control plane; the MAU stages only look entries up, so the data plane cannot add, delete or scan the entries of table {table}. For aging, declare aging: true and let Tofino's idle timeout (per-entry idle-time bits set by hits) notify the control plane, which removes idle entries; state the data plane must write belongs in registers"}

// arithmetic is the row of a two-operand ALU function: the operands'
// common width, as for +.
func arithmetic(name string, eval func(x *Exec, e *CallExpr) int64) *BuiltinSpec {
	return &BuiltinSpec{Name: name, Value: true, Args: Arity{Min: 2, Max: 2}, Type: arithmeticType, Eval: eval,
		Tofino: TofinoCost{ALUOps: 1}, Trio: TrioCost{ALUOps: 1}}
}

// arithmeticType: the operands have one width (a constant takes the
// other's), and one of them is typed.
func arithmeticType(e *CallExpr) (Type, error) {
	t, err := operandType(OpAdd, e.Args[0], e.Args[1])
	if err != nil {
		return Type{}, err
	}
	if t.Bits == 0 {
		return Type{}, fmt.Errorf("%s needs a typed operand", e.Builtin.Name)
	}
	return t, nil
}

// concatType: typed operands, 2 or more, of at most 64 bits in total.
func concatType(e *CallExpr) (Type, error) {
	bits := 0
	for _, a := range e.Args {
		if a.Type().Bits == 0 {
			return Type{}, errors.New("concat needs typed operands (cast constants, e.g. bit4(0))")
		}
		bits += a.Type().Bits
	}
	if len(e.Args) < 2 || bits > 64 {
		return Type{}, fmt.Errorf("concat joins 2 or more values of at most 64 bits in total (got %d bits)", bits)
	}
	return Type{Bits: bits}, nil
}

// randomType: random() is 32 bits, random(bits) a constant width 1..64.
func randomType(e *CallExpr) (Type, error) {
	if len(e.Args) == 0 {
		return Type{Bits: 32}, nil
	}
	w, ok := e.Args[0].(*ConstExpr)
	if !ok || w.Val < 1 || w.Val > 64 {
		return Type{}, errors.New("random(bits) needs a constant width 1..64")
	}
	return Type{Bits: int(w.Val)}, nil
}

// hashType: a 32-bit CRC.
func hashType(*CallExpr) (Type, error) { return Type{Bits: 32}, nil }

// payloadType: a 32-bit word at an index that may not be a negative
// constant.
func payloadType(e *CallExpr) (Type, error) {
	if ce, ok := e.Args[0].(*ConstExpr); ok && ce.Val < 0 {
		return Type{}, fmt.Errorf("payload32(i): the word index must be >= 0, got %d", ce.Val)
	}
	return Type{Bits: 32}, nil
}

// agedType: one bit, for a record slot that a constant must name inside
// the table.
func agedType(e *CallExpr) (Type, error) {
	if ce, ok := e.Args[0].(*ConstExpr); ok && (ce.Val < 0 || ce.Val >= int64(e.Table.Size)) {
		return Type{}, errArg(0, "index %d is outside %s (size %d)", ce.Val, e.Table.Name, e.Table.Size)
	}
	return Type{Bits: 1}, nil
}

// castRE matches the cast functions bitN, intN and uintN.
var castRE = regexp.MustCompile(`^(bit|int|uint)([0-9]+)$`)
