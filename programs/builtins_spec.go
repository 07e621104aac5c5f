package programs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The language's built-ins are rows of one table (builtins.go). A row
// says how the built-in is written, how many arguments it takes, where it
// may appear, its typing rule, its semantics, and what it costs on each
// target as data the backends read (this package does not import them).
// The loader resolves a call to its row; the interpreter and the backends
// read the row through the node the loader built, so adding a built-in
// is one row plus its semantics function.
//
// A built-in that computes a value becomes a CallExpr and one that acts
// as a statement a BuiltinStmt, whatever the built-in (one node type per
// kind of use rather than one per built-in, so that walkers, the
// interpreter and the backends have one case to read the row from, and a
// new built-in needs no new node): both nodes point to their row, and the
// interpreter calls the row's Eval or Exec through a function pointer set
// at load time (no lookup by name when a packet runs). A built-in that is
// shorthand for ordinary code (a cast, drop(), h.setValid(), h.isValid())
// is rewritten by the loader into that code and has no node, semantics or
// costs of its own (Expands says what it becomes).

// Receiver is what a built-in is called on.
type Receiver int

// Receivers.
const (
	OnNothing Receiver = iota // name(args)
	OnHeader                  // hdr.name(args)
	OnTable                   // tbl.name(args)
)

// BuiltinSpec is one row of the table of built-ins.
type BuiltinSpec struct {
	Name string
	On   Receiver
	// Value: the call yields a value (it is an expression); otherwise it
	// is a statement.
	Value bool
	Args  Arity
	Where Where
	// Expands, for a built-in the loader rewrites into ordinary code, says
	// what it becomes; such a row has no Type, Eval, Exec or costs.
	Expands string
	// NotAStatement is the error when a value method is used as a
	// statement ({recv} stands for the receiver).
	NotAStatement string
	// ConstArgs: the arguments are constant expressions (named constants
	// and log2ceil allowed), each passed to Type as a *ConstExpr, or nil
	// when it is not an integer constant.
	ConstArgs bool
	// Type is the typing rule of a value built-in: the result type of the
	// call (its Builtin, Args and Table set), or the error (at the call,
	// or at an argument with argError).
	Type func(e *CallExpr) (Type, error)
	// Eval is what a value built-in yields when it runs.
	Eval func(x *Exec, e *CallExpr) int64
	// registered marks a row added by RegisterBuiltin: its Eval may read
	// the whole header vector, so a program calling it keeps every store
	// (deadstores.go).
	registered bool
	// Exec runs a statement built-in.
	Exec func(x *Exec, s *BuiltinStmt)
	// Tofino and Trio are what it costs on each target (nothing of its
	// own for a built-in that Expands: the code it becomes is costed).
	Tofino TofinoCost
	Trio   TrioCost

	// family, for a row that stands for a family of names (the casts
	// bitN, intN, uintN), tells whether a name belongs to it.
	family func(name string) bool
	// value builds a value the generic rule cannot (a cast, isValid).
	value func(c *codeCtx, b *BuiltinSpec, s callSite) (Expr, error)
	// stmt builds a statement built-in's code: its BuiltinStmt, or the
	// ordinary statements it stands for.
	stmt func(c *codeCtx, b *BuiltinSpec, s callSite) ([]Stmt, error)
	// tableOp is the record operation of a table method.
	tableOp TableOpKind
}

// Arity is the argument counts a built-in accepts: Min to Max (Max < 0:
// no limit), except those in Skip.
type Arity struct {
	Min, Max int
	Skip     []int
	// Msg is the error for another count; {call}, {name}, {recv}, {got}
	// and {want} stand for the call (e.g. "drop()"), the built-in's name,
	// the receiver's name, the count given and Min. Empty: "expected
	// {want} arguments, got {got}".
	Msg string
	// Late: the row's own rule checks the count after what it checks
	// first (concat together with the widths, a cast after the width in
	// its name), not the loader before it reads the arguments.
	Late bool
}

// accepts tells whether n arguments are allowed.
func (a Arity) accepts(n int) bool {
	return n >= a.Min && (a.Max < 0 || n <= a.Max) && !slices.Contains(a.Skip, n)
}

// Where is where in a program a built-in may be used.
type Where struct {
	// Control, when set, restricts it to control code (ingress, egress,
	// functions, timers) and says what it does, for the error in an
	// action or a register action ("creating a packet").
	Control string
	// NoRegisterAction, when set, is the error inside a register action
	// ({call} stands for the call): the stateful ALU has no such input.
	NoRegisterAction string
	// ExactTable: a table method on record slots, which need 1..8 exact
	// keys.
	ExactTable bool
	// RefFlags: a table method that reads the entries' REF flags, which
	// need aging: true.
	RefFlags bool
}

// TofinoUnit is the MAU unit that computes a value built-in.
type TofinoUnit int

// Tofino units.
const (
	TofinoALU  TofinoUnit = iota // the VLIW action ALUs (or, in a register action, the stateful ALU)
	TofinoRNG                    // the stage's random number generator, driven by an always-hit payload gateway
	TofinoHash                   // a hash unit: its inputs come through the input crossbar, its output through hash distribution
)

// TofinoCost is what a built-in needs of a Tofino MAU stage, or the rule
// that rejects it.
type TofinoCost struct {
	// ALUOps is the operations it takes of the ALU that computes the
	// statement (one per field per action on the VLIW ALUs).
	ALUOps int
	Unit   TofinoUnit
	Reject *TofinoReject
}

// isSet tells whether the descriptor says anything (a built-in with a node
// of its own costs something on Tofino, or is rejected).
func (t TofinoCost) isSet() bool { return t.ALUOps > 0 || t.Unit != TofinoALU || t.Reject != nil }

// TofinoReject is a Tofino rule a built-in breaks wherever it appears:
// rows sharing one TofinoReject are reported as one violation.
type TofinoReject struct {
	Rule string // the rule's name (part of the output contract)
	What string // the built-ins' short name in the list of other violations
	// Msg is the error; {register}, {table} and {name} stand for the use's
	// register, table and built-in name.
	Msg string
}

// Message is r's error for one use.
func (r *TofinoReject) Message(u BuiltinUse) string {
	reg, tbl := "", ""
	if u.Reg != nil {
		reg = u.Reg.Name
	}
	if u.Table != nil {
		tbl = u.Table.Name
	}
	return strings.NewReplacer("{register}", reg, "{table}", tbl, "{name}", u.Builtin.Name).Replace(r.Msg)
}

// TrioCost is how Trio microcode runs a built-in: what it takes of the
// instruction that holds it, the transactions (XTXNs) it issues, and the
// instructions of its own. Transaction kinds are named as in the Trio
// report's xtxn_sites (hash_lookup, rmw, read, write, pmem_write, ...).
type TrioCost struct {
	ALUOps    int  // condition-ALU operations
	LMEMReads int  // local-memory reads (payload32: a word of the packet head)
	Key       bool // reads its table's key fields, as a lookup assembles its key
	// XTXN is the transactions the instruction that holds it issues.
	XTXN []string
	// Sync: the thread waits for the reply; what follows runs in the next
	// instruction.
	Sync bool
	// Reply is the transactions the instruction that takes the reply
	// issues (T.insert's record write).
	Reply []string
	// KeyWrites: the reply's key is written into the table's key fields
	// (T.load), on the instruction that takes it and more when the keys
	// outnumber its write ports.
	KeyWrites bool
	Instr     int  // instructions of its own (emit: creating the packet)
	Ends      bool // ends its instruction: what follows is a branch target
	// RangeLoop is the transactions of the loop over a register range
	// (emit with a payload, clear), lowered as a block of its own; the
	// PFE charges each run for the cells it covers.
	RangeLoop []string
}

// isSet tells whether the descriptor says anything.
func (t TrioCost) isSet() bool {
	return t.ALUOps > 0 || t.LMEMReads > 0 || len(t.XTXN) > 0 || len(t.Reply) > 0 || t.Instr > 0 || len(t.RangeLoop) > 0
}

// Kinds lists every transaction kind t names.
func (t TrioCost) Kinds() []string {
	return slices.Concat(t.XTXN, t.Reply, t.RangeLoop)
}

// CallExpr is a call of a value built-in (sat_add, concat, random, hash,
// payload32, T.aged, ...). Builtin is its row; Table is the receiver of a
// table method; eval is the row's Eval, set by the loader so that the
// interpreter dispatches with one indirect call.
type CallExpr struct {
	Builtin *BuiltinSpec
	Args    []Expr
	Table   *Table
	Buf     *PacketBuffer // the packet buffer of held, buffered
	T       Type
	Pos     Pos
	eval    func(x *Exec, e *CallExpr) int64
}

// BuiltinStmt is a statement built-in that is an operation of its own
// (emit, clear, T.insert, T.remove, T.load). Builtin is its row; Reg is
// the register whose cells it copies or resets; Table and Action the
// table whose records it writes or reads and T.insert's action; Args its
// operands (the START and CELLS of a register range, T.insert's action
// data, T.load's record slot).
type BuiltinStmt struct {
	Builtin *BuiltinSpec
	Reg     *Register
	Buf     *PacketBuffer // the packet buffer of store, resend, release
	Table   *Table
	Action  *Action
	Args    []Expr
	Pos     Pos
}

func (e *CallExpr) Type() Type        { return e.T }
func (e *CallExpr) Position() Pos     { return e.Pos }
func (s *BuiltinStmt) Position() Pos  { return s.Pos }
func (b *BuiltinSpec) String() string { return b.Name }

// Is tells whether b is the built-in name called on on.
func (b *BuiltinSpec) Is(on Receiver, name string) bool { return b.On == on && b.Name == name }

// argError is a typing error about argument i (the loader reports it at
// that argument).
type argError struct {
	i   int
	msg string
}

func (e *argError) Error() string { return e.msg }

// errArg returns a typing error about argument i.
func errArg(i int, format string, args ...any) error {
	return &argError{i: i, msg: fmt.Sprintf(format, args...)}
}

// builtinKey indexes the table by receiver and name.
type builtinKey struct {
	on   Receiver
	name string
}

// builtins is the table, in order; builtinIndex holds its rows that are
// not families. init fills both from builtinRows (the rows' rules refer
// back to the lookups).
var (
	builtins     []*BuiltinSpec
	builtinIndex = map[builtinKey]*BuiltinSpec{}
)

func init() {
	builtins = builtinRows()
	for _, b := range builtins {
		if b.family == nil {
			builtinIndex[builtinKey{b.On, b.Name}] = b
		}
	}
}

// lookupBuiltin returns the row of the built-in name called on on, or nil.
func lookupBuiltin(on Receiver, name string) *BuiltinSpec {
	if b := builtinIndex[builtinKey{on, name}]; b != nil {
		return b
	}
	for _, b := range builtins {
		if b.family != nil && b.On == on && b.family(name) {
			return b
		}
	}
	return nil
}

// constFuncs are the functions of constant expressions (consts.go): code
// cannot call them, but their names are reserved like the built-ins'.
var constFuncs = []string{"log2ceil"}

// isBuiltinFunc tells whether name is a built-in function computing a
// value (or a function of constant expressions).
func isBuiltinFunc(name string) bool {
	b := lookupBuiltin(OnNothing, name)
	return (b != nil && b.Value) || slices.Contains(constFuncs, name)
}

// isBuiltinStmt tells whether name is a built-in statement.
func isBuiltinStmt(name string) bool {
	b := lookupBuiltin(OnNothing, name)
	return b != nil && !b.Value
}

// BuiltinTable returns the rows of the table of built-ins, in order.
func BuiltinTable() []*BuiltinSpec { return slices.Clone(builtins) }

// RegisterBuiltin adds a value function (On OnNothing, Value, with Type,
// Eval and both cost descriptors) to the table, for extensions and tests;
// the returned function removes it. It is not safe while programs load.
func RegisterBuiltin(b *BuiltinSpec) (remove func(), err error) {
	switch {
	case b.On != OnNothing || !b.Value || b.Type == nil || b.Eval == nil:
		return nil, fmt.Errorf("built-in %s: only value functions with a typing rule and semantics can be registered", b.Name)
	case !b.Tofino.isSet() || !b.Trio.isSet():
		return nil, fmt.Errorf("built-in %s: no cost on Tofino or Trio", b.Name)
	case !nameRE.MatchString(b.Name) || lookupBuiltin(OnNothing, b.Name) != nil || isBuiltinFunc(b.Name):
		return nil, fmt.Errorf("built-in %s: the name is taken or not an identifier", strconv.Quote(b.Name))
	}
	b.registered = true
	builtins = append(builtins, b)
	builtinIndex[builtinKey{b.On, b.Name}] = b
	return func() {
		delete(builtinIndex, builtinKey{b.On, b.Name})
		builtins = slices.DeleteFunc(builtins, func(x *BuiltinSpec) bool { return x == b })
	}, nil
}
