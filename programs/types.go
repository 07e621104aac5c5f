package programs

import (
	"fmt"
	"sort"
	"sync"
)

// Type is the type of a field or expression: a bit width and a signedness.
// Bits == 0 marks an untyped constant, which takes the type of the other
// operand.
type Type struct {
	Bits   int
	Signed bool
}

func (t Type) String() string {
	switch {
	case t.Bits == 0:
		return "untyped"
	case t.Signed:
		return fmt.Sprintf("int<%d>", t.Bits)
	default:
		return fmt.Sprintf("bit<%d>", t.Bits)
	}
}

// Norm truncates v to the type's width and extends it back to 64 bits: zero
// extension for unsigned types, sign extension for signed ones. Every value
// stored in a field is normalized this way.
func (t Type) Norm(v int64) int64 {
	if t.Bits == 0 || t.Bits >= 64 {
		return v
	}
	if t.Signed {
		shift := uint(64 - t.Bits)
		return (v << shift) >> shift
	}
	return int64(uint64(v) & (uint64(1)<<uint(t.Bits) - 1))
}

// Max returns the largest value of the type.
func (t Type) Max() int64 {
	if t.Bits >= 64 || t.Bits == 0 {
		if t.Signed || t.Bits == 0 {
			return int64(^uint64(0) >> 1)
		}
		return int64(^uint64(0) >> 1) // unsigned 64-bit saturates at 2^63-1 in this model
	}
	if t.Signed {
		return int64(1)<<uint(t.Bits-1) - 1
	}
	return int64(1)<<uint(t.Bits) - 1
}

// Min returns the smallest value of the type.
func (t Type) Min() int64 {
	if !t.Signed {
		return 0
	}
	if t.Bits >= 64 || t.Bits == 0 {
		return -int64(^uint64(0)>>1) - 1
	}
	return -(int64(1) << uint(t.Bits-1))
}

// FieldKind tells where a field lives.
type FieldKind int

// Field kinds.
const (
	HeaderField FieldKind = iota // a field of a packet header
	MetaField                    // user metadata (meta.*), per packet
	StdField                     // standard (intrinsic) metadata (std.*)
	ValidBit                     // a header's validity bit (pseudo field)
)

// Field is one named, typed storage location of the packet-header vector.
type Field struct {
	Name    string // full name: "ipv4.dst_addr", "meta.delay", "std.tstamp"
	Short   string // name inside its header or namespace
	Type    Type
	Kind    FieldKind
	Header  *Header // for HeaderField and ValidBit
	Offset  int     // bit offset inside the header (HeaderField)
	Slot    int     // index into the packet-header vector
	Bridged bool    // MetaField carried from ingress to egress
	Std     StdID   // for StdField
	Pos     Pos
}

// Header is a packet header type with its fields in wire order.
type Header struct {
	Name   string
	Fields []*Field
	Bits   int
	Valid  *Field // validity pseudo field
	Index  int    // declaration index; also deparse order
	Pos    Pos
}

// Bytes returns the header's size in bytes.
func (h *Header) Bytes() int { return (h.Bits + 7) / 8 }

// StdID identifies a standard metadata field.
type StdID int

// Standard (intrinsic) metadata fields. They are architecture neutral; which
// of them a given gress may read or write is decided by each architecture
// backend (for Tofino, by the TNA intrinsic metadata structs).
const (
	StdIngressPort StdID = iota
	StdEgressPort
	StdQid
	StdDrop
	StdDeflectOnDrop
	StdMcastGrp
	StdMirror
	StdMirrorSession
	StdRecirculate
	StdPacketLength
	StdTstamp
	StdEnqQdepth
	StdDeqQdepth
	StdEnqTstamp
	StdDeqTimedelta
	StdDeflected
	StdBypassEgress
	StdTrimDisable
	StdTimerIndex
	StdMirrorCopy
	stdCount
)

// StdInfo describes a standard metadata field.
type StdInfo struct {
	ID   StdID
	Name string
	Bits int
	Doc  string
}

// StdFields lists the standard metadata fields in a fixed order.
var StdFields = [stdCount]StdInfo{
	{StdIngressPort, "ingress_port", 9, "port the packet arrived on"},
	{StdEgressPort, "egress_port", 9, "unicast destination port chosen in ingress"},
	{StdQid, "qid", 5, "egress queue chosen in ingress"},
	{StdDrop, "drop", 1, "drop the packet at the end of this gress"},
	{StdDeflectOnDrop, "deflect_on_drop", 1, "deflect instead of dropping when the queue is full"},
	{StdMcastGrp, "mcast_grp", 16, "multicast group (0 = none)"},
	{StdMirror, "mirror", 1, "mirror a copy of the packet"},
	{StdMirrorSession, "mirror_session", 10, "mirror session id"},
	{StdRecirculate, "recirculate", 1, "send the packet to this pipe's recirculation port"},
	{StdPacketLength, "packet_length", 16, "packet length in bytes"},
	{StdTstamp, "tstamp", 48, "global time in ns when this gress's parser saw the packet"},
	{StdEnqQdepth, "enq_qdepth", 19, "queue depth in cells when the packet was enqueued"},
	{StdDeqQdepth, "deq_qdepth", 19, "queue depth in cells when the packet was dequeued"},
	{StdEnqTstamp, "enq_tstamp", 32, "time in ns when the packet was enqueued"},
	{StdDeqTimedelta, "deq_timedelta", 32, "time in ns the packet spent in the queue"},
	{StdDeflected, "deflected", 1, "the traffic manager deflected this packet (deflect-on-drop)"},
	{StdBypassEgress, "bypass_egress", 1, "skip the egress pipeline"},
	{StdTrimDisable, "trim_disable", 1, "the traffic manager drops this packet instead of trimming it (SAI PACKET_TRIM_DISABLE)"},
	{StdTimerIndex, "timer_index", 16, "which thread of its timer is running (0..threads-1); 0 in packet threads; read-only"},
	{StdMirrorCopy, "mirror_copy", 10, "egress: the mirror session that made this packet (0: not a mirror copy), from the copy's mirror header; read-only"},
}

// MatchKind is a table key's match kind.
type MatchKind int

// Match kinds.
const (
	MatchExact MatchKind = iota
	MatchTernary
	MatchLPM
	MatchRange
)

var matchKindNames = []string{"exact", "ternary", "lpm", "range"}

func (k MatchKind) String() string { return matchKindNames[k] }

// Key is one table key element.
type Key struct {
	Expr  Expr // a field or a slice of a field
	Field *Field
	Kind  MatchKind
	Bits  int
	Pos   Pos
}

// unsigned64 reports whether the key is a bit<64> value: its ranges order
// as unsigned (from 2^63 up the int64 it is stored in is negative).
func (k *Key) unsigned64() bool { return k.Bits == 64 && !k.Expr.Type().Signed }

// Param is an action parameter (action data).
type Param struct {
	Name  string
	Type  Type
	Index int
}

// Action is a straight-line sequence of primitive operations executed when a
// table selects it (or inline from control flow).
type Action struct {
	Name   string
	Params []*Param
	Body   []Stmt
	Pos    Pos
}

// ActionCall is an action with constant arguments (a table entry's or
// default action).
type ActionCall struct {
	Action *Action
	Args   []int64
}

// Entry is one table entry.
type Entry struct {
	Values   []int64 // per key: value (exact, ternary, lpm), low bound (range)
	Masks    []int64 // per key: mask (ternary, lpm), high bound (range)
	Prefix   []int   // per key: prefix length (lpm)
	Priority int     // lower is better; ternary/range: entry order
	Call     ActionCall
	Pos      Pos
}

// Table is a match-action table.
type Table struct {
	Index   int
	Name    string
	Keys    []*Key
	Actions []*Action
	Default ActionCall
	Size    int
	Entries []*Entry
	Const   bool // entries are compile-time constants
	// Aging gives every entry a Recently Referenced (REF) flag, set when
	// the entry is created and by every lookup that hits it, read and
	// cleared by T.aged(I) (Trio's hash records, the Trio paper §5).
	// Exact-match keys only.
	Aging bool
	Pos   Pos
}

// Register is an array of stateful cells, read-modified-written atomically by
// its register actions.
type Register struct {
	Index   int
	Name    string
	Type    Type // element type; for pairs, the type of the whole pair
	Pair    bool // element is a pair of two halves (lo, hi)
	Size    int
	Init    int64
	Actions []*RegisterAction
	Pos     Pos
}

// HalfType is the type of one half of a pair register.
func (r *Register) HalfType() Type { return Type{Bits: r.Type.Bits / 2, Signed: r.Type.Signed} }

// RegisterAction is a bounded atomic read-modify-write program on one
// register cell. Inside its body, `value` (or `lo`/`hi` for pairs) is the
// cell and `out` the value returned to the caller.
type RegisterAction struct {
	Name     string
	Register *Register
	Body     []Stmt
	OutType  Type
	Writes   bool // assigns the cell
	Pos      Pos
}

// MeterUnit tells what a meter counts.
type MeterUnit int

// Meter units.
const (
	MeterBytes MeterUnit = iota
	MeterPackets
)

// Meter is an array of two-rate three-colour meters (RFC 2698).
type Meter struct {
	Index int
	Name  string
	Size  int
	Unit  MeterUnit
	CIR   float64 // bits/s (bytes mode) or packets/s
	PIR   float64
	CBS   int64 // bytes or packets
	PBS   int64
	Pos   Pos
}

// Counter is an array of packet and byte counters.
type Counter struct {
	Index int
	Name  string
	Size  int
	Pos   Pos
}

// PacketBuffer is packets a program keeps: Slots slots, each holding at
// most one packet, written with store(BUF, SLOT), sent again with
// resend(BUF, SLOT) and emptied with release(BUF, SLOT). A run-to-completion
// chip keeps them in its packet memory (Trio); a PISA pipeline keeps none
// (a Tofino program buffers a packet by recirculating its mirror copy).
type PacketBuffer struct {
	Index int
	Name  string
	Slots int
	Pos   Pos
}

// MirrorSession is a mirror destination configured by the control plane.
type MirrorSession struct {
	ID       int
	Port     int
	Truncate int // bytes; 0 = whole packet
	Queue    int // egress queue of the copy
	Pos      Pos
}

// QueueConfig is the control plane's setting of one egress queue (the same
// on every port).
type QueueConfig struct {
	Qid        int
	Priority   int   // strict priority level, higher first
	Weight     int   // DWRR weight among queues of one priority
	LimitCells int64 // admission limit in buffer cells (0: the chip's default)
	Pos        Pos
}

// DropAction is what the traffic manager does with a packet that asked for
// deflect-on-drop (std.deflect_on_drop) when its queue is full.
type DropAction struct {
	Mode     string // "deflect": the whole packet to the pipe's recirculation port; "mirror": a truncated copy there
	Queue    int    // queue on the recirculation port
	Truncate int    // bytes kept by "mirror"
	Signal   DoDSignal
	Pos      Pos
}

// DoDSignal is a congestion signal the traffic manager raises itself when a
// deflected packet leaves the deflect-on-drop queue: LatencyNs later every
// pipe runs the Arm register actions on the cell of the packet's original
// egress port, as if the program's own notification had reached every
// ingress. It models the trimming paper's simulator (Popa et al. 2022 §6.2:
// "When the switch dequeues a packet from the DoD queue for an outgoing
// port, it sends congestion notifications to all pipelines at once ... The
// latency of packet recirculation is set to 1us"), not a Tofino block.
// LatencyNs 0: no signal. ToOrigin sends it to the pipe whose
// deflect-on-drop queue the packet left only (the paper's send-to-one
// ablation, §4, §6.3). MinBacklogCells > 0 raises it only when the DoD
// queue still holds at least that many cells after the dequeue (a queue
// has built; an isolating what-if, not the paper's statement). AtDeflect
// raises it when the packet is deflected into the DoD queue instead of
// when it leaves it (a what-if isolating the signal's wait behind the DoD
// queue it reports, not the paper's statement).
type DoDSignal struct {
	LatencyNs       int64
	ToOrigin        bool
	AtDeflect       bool
	MinBacklogCells int64
	Arm             []*RegisterAction
	Pos             Pos
}

// TMConfig is the traffic-manager configuration the program's control
// plane installs.
type TMConfig struct {
	Queues []QueueConfig // sorted by qid
	OnDrop DropAction
}

// MulticastGroup is a replication list configured by the control plane.
type MulticastGroup struct {
	ID    int
	Ports []int
	Pos   Pos
}

// Transition is a parser select case.
type Transition struct {
	Value   int64
	Mask    int64
	Default bool
	Next    *ParseState // nil = accept
}

// ParseState is one parser state: extract headers, then select the next
// state on a field.
type ParseState struct {
	Name        string
	Extract     []*Header
	Select      *Field
	Transitions []Transition
	Pos         Pos
}

// Parser is the parse graph.
type Parser struct {
	Start  *ParseState
	States []*ParseState
}

// Control is one gress's control flow.
type Control struct {
	Name string // "ingress" or "egress"
	Body []Stmt
	Pos  Pos
}

// Function is a named control-flow subroutine (Trio Microcode's call/return,
// P4's control-local code reuse). It has no parameters and no return value:
// it communicates through fields. Its body is control code, the same
// language as ingress/egress; a CallStmt runs it.
type Function struct {
	Name string
	Body []Stmt
	Pos  Pos
}

// Timer is a periodic thread source (Trio's timer threads): every PeriodNs
// it starts Threads threads, each running Body with std.timer_index set to
// its number (0..Threads-1). A timer thread has no packet: no header is
// valid and nothing is sent, except the packets it creates with emit().
// Its body is control code, the same language as ingress/egress and
// functions.
type Timer struct {
	Name     string
	PeriodNs int64
	Threads  int
	Body     []Stmt
	Pos      Pos
}

// FlowTemplate is a stream of test packets the program expects (used to
// exercise the program when measuring latency).
type FlowTemplate struct {
	Name   string
	Ports  []int
	Sizes  []int
	Weight int
	// IntervalNs, when > 0, makes the flow periodic instead of
	// load-driven. The loader never sets it (programs declare periodic
	// sources as pktgen applications); the latency harness does, when it
	// offers a pktgen application to a chip without a packet generator.
	IntervalNs int64
	Headers    []*Header
	// Values[i] lists the values that field i of the template cycles through.
	Values map[*Field][]int64
	Fields []*Field // fields with values, in declaration order (deterministic)
	Pos    Pos

	// plan is AppendPacket's layout, built on first use (a template is
	// shared by the simulations that run its program, read only).
	plan struct {
		once   sync.Once
		bytes  int
		fields []templateField
	}
}

// templateField is a field of a template's packets: where its bits go and
// the values it cycles through.
type templateField struct {
	off, bits int
	values    []int64
}

// Program is a complete, checked program description.
type Program struct {
	Name         string
	Doc          string
	Source       string
	File         string
	Constants    []Constant
	Headers      []*Header
	Meta         []*Field
	Std          [stdCount]*Field
	Fields       []*Field // every field, by slot
	Parser       *Parser
	EgressParser *Parser // nil: the egress thread uses Parser
	Registers    []*Register
	Meters       []*Meter
	Counters     []*Counter
	Buffers      []*PacketBuffer // packet buffers, in declaration order
	Actions      []*Action
	Tables       []*Table
	Functions    []*Function // in declaration order
	Timers       []*Timer    // in declaration order
	Mirrors      []*MirrorSession
	TM           TMConfig
	Multicast    []*MulticastGroup
	Ingress      *Control
	Egress       *Control
	Traffic      []*FlowTemplate
	Pktgen       []*PktgenApp // packet-generator applications, in declaration order
	Routes       *Routes      // how a control plane installs host routes (nil: none)
	NumSlots     int
	BridgeBits   int
	codec        struct { // Codec(): built once, on first use
		once sync.Once
		c    *Codec
	}
}

// Constant is a named compile-time constant.
type Constant struct {
	Name  string
	Value int64
	Float float64
	Pos   Pos
}

// Table returns the table with the given name, or nil.
func (p *Program) Table(name string) *Table {
	for _, t := range p.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Register returns the register with the given name, or nil.
func (p *Program) Register(name string) *Register {
	for _, r := range p.Registers {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Function returns the function with the given name, or nil.
func (p *Program) Function(name string) *Function {
	for _, f := range p.Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Timer returns the timer with the given name, or nil.
func (p *Program) Timer(name string) *Timer {
	for _, t := range p.Timers {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// CallDepth returns the deepest nesting of function calls reachable from
// ingress, egress and the timers' bodies: 0 when they call no function, 1
// when they call functions that call none, and so on.
func (p *Program) CallDepth() int {
	memo := map[*Function]int{}
	d := 0
	for _, c := range []*Control{p.Ingress, p.Egress} {
		if c != nil {
			d = max(d, callDepth(c.Body, memo))
		}
	}
	for _, t := range p.Timers {
		d = max(d, callDepth(t.Body, memo))
	}
	return d
}

// PayloadReads returns every payload32 call in the program's code
// (ingress, egress, functions, timers, actions and register actions),
// ordered by position in the file.
func (p *Program) PayloadReads() []*CallExpr {
	var out []*CallExpr
	p.walkCalls(func(c *CallExpr) {
		if c.Builtin.Is(OnNothing, "payload32") {
			out = append(out, c)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return posLess(out[i].Pos, out[j].Pos) })
	return out
}

// Emits returns every emit() statement of the program's code (ingress,
// egress, functions and timers; actions and register actions cannot hold
// one), ordered by position in the file.
func (p *Program) Emits() []*BuiltinStmt { return p.builtinStmts("emit") }

// Clears returns every clear() statement of the program's code (ingress,
// egress, functions and timers; actions and register actions cannot hold
// one), ordered by position in the file.
func (p *Program) Clears() []*BuiltinStmt { return p.builtinStmts("clear") }

// builtinStmts returns the statements of the built-in name in control
// code, ordered by position in the file.
func (p *Program) builtinStmts(name string) []*BuiltinStmt {
	var out []*BuiltinStmt
	p.walkControlCode(func(s Stmt) {
		if b, ok := s.(*BuiltinStmt); ok && b.Builtin.Is(OnNothing, name) {
			out = append(out, b)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return posLess(out[i].Pos, out[j].Pos) })
	return out
}

// TableUpdate is one data-plane operation on a table's records in the
// program's code: T.insert, T.remove, T.load or T.aged.
type TableUpdate struct {
	Table *Table
	Op    TableOpKind
	Pos   Pos
}

// TableUpdates returns every data-plane table operation of the program's
// control code (ingress, egress, functions and timers; actions and
// register actions cannot hold one), ordered by position in the file.
func (p *Program) TableUpdates() []TableUpdate {
	var out []TableUpdate
	for _, u := range p.BuiltinUses() {
		if u.Builtin.On == OnTable {
			out = append(out, TableUpdate{u.Table, u.Builtin.tableOp, u.Pos})
		}
	}
	return out
}

// BuiltinUse is one use of a built-in that has a node of its own: its row,
// the register or table it acts on, and where it is.
type BuiltinUse struct {
	Builtin *BuiltinSpec
	Reg     *Register
	Table   *Table
	Pos     Pos
}

// BuiltinUses returns every use of a built-in with a node of its own in
// the program's code (ingress, egress, functions, timers, actions and
// register actions), ordered by position in the file; on one line,
// statements come before the values computed in them.
func (p *Program) BuiltinUses() []BuiltinUse {
	var out []BuiltinUse
	for _, body := range p.allBodies() {
		WalkStmts(body, func(s Stmt) {
			if b, ok := s.(*BuiltinStmt); ok {
				out = append(out, BuiltinUse{b.Builtin, b.Reg, b.Table, b.Pos})
			}
		})
	}
	p.walkCalls(func(c *CallExpr) {
		out = append(out, BuiltinUse{Builtin: c.Builtin, Table: c.Table, Pos: c.Pos})
	})
	sort.SliceStable(out, func(i, j int) bool { return posLess(out[i].Pos, out[j].Pos) })
	return out
}

// walkCalls calls fn once for every value built-in call in the program's
// code, body by body in the order of allBodies.
func (p *Program) walkCalls(fn func(*CallExpr)) {
	seen := map[*CallExpr]bool{}
	for _, body := range p.allBodies() {
		WalkStmtExprs(body, func(e Expr) {
			if c, ok := e.(*CallExpr); ok && !seen[c] {
				seen[c] = true
				fn(c)
			}
		})
	}
}

// allBodies returns the control bodies (controlBodies), then the actions'
// and the register actions' bodies.
func (p *Program) allBodies() [][]Stmt {
	out := p.controlBodies()
	for _, a := range p.Actions {
		out = append(out, a.Body)
	}
	for _, r := range p.Registers {
		for _, ra := range r.Actions {
			out = append(out, ra.Body)
		}
	}
	return out
}

// walkControlCode calls fn for every statement of the program's control
// code (ingress, egress, functions and timers), nested ones included.
func (p *Program) walkControlCode(fn func(Stmt)) {
	for _, body := range p.controlBodies() {
		WalkStmts(body, fn)
	}
}

// controlBodies returns the bodies of ingress, egress, the functions and
// the timers, in that order.
func (p *Program) controlBodies() [][]Stmt {
	var out [][]Stmt
	for _, c := range []*Control{p.Ingress, p.Egress} {
		if c != nil {
			out = append(out, c.Body)
		}
	}
	for _, f := range p.Functions {
		out = append(out, f.Body)
	}
	for _, t := range p.Timers {
		out = append(out, t.Body)
	}
	return out
}

// posLess orders positions by file, then line.
func posLess(a, b Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

// callDepth is the deepest call nesting in stmts. memo holds each
// function's depth (-1 while it is being computed, which guards against a
// recursive program built by hand; the loader rejects recursion).
func callDepth(stmts []Stmt, memo map[*Function]int) int {
	d := 0
	WalkStmts(stmts, func(s Stmt) {
		c, ok := s.(*CallStmt)
		if !ok {
			return
		}
		fd, done := memo[c.Fn]
		if !done {
			memo[c.Fn] = -1
			fd = callDepth(c.Fn.Body, memo)
			memo[c.Fn] = fd
		}
		d = max(d, 1+max(fd, 0))
	})
	return d
}

// Field returns the field with the given full name, or nil.
func (p *Program) Field(name string) *Field {
	for _, f := range p.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}
