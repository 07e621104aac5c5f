package programs

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// emProgram creates packets with emit(): from ingress (directly and
// through the function send), after changing headers, the destination and
// std.packet_length between two emits; and from a timer (no packet: it
// makes eth valid itself). tag has sub-byte fields.
const emProgram = `program: emit
headers:
  eth: {dst: 48, src: 48, etype: 16}
  tag: {hi: 4, lo: 4}
  probe: {seq: 16, val: 32}
metadata:
  n: 16
  after: 8
parser:
  start: s
  states:
    s:
      extract: eth
functions:
  send: |
    probe.setValid()
    probe.seq = meta.n
    emit()
timers:
  beacon:
    period_ns: 1000
    threads: 2
    do: |
      eth.setValid()
      eth.etype = 0x88b5
      std.egress_port = 5
      meta.n = std.timer_index
      send()
ingress: |
  meta.n = 1
  std.egress_port = 2
  send()
  probe.seq = 2
  probe.val = 0xdeadbeef
  tag.setValid()
  tag.hi = 0xa
  tag.lo = 5
  std.egress_port = 3
  std.qid = 4
  std.packet_length = 200
  emit()
  probe.setInvalid()
  tag.setInvalid()
  std.packet_length = 4
  std.mcast_grp = 9
  if eth.etype == 0x0800 {
    emit()
  }
  meta.after = 1
`

// emitted is what an Exec.Emit callback saw.
type emitted struct {
	head           []byte
	length         int
	port, qid, grp int64
	after          int64
}

// exactLine returns the line number of the n-th line (from 1) of src equal
// to text.
func exactLine(t *testing.T, src, text string, n int) int {
	t.Helper()
	k := n
	for i, l := range strings.Split(src, "\n") {
		if l == text {
			if k--; k == 0 {
				return i + 1
			}
		}
	}
	t.Fatalf("line %q (#%d) not in the source", text, n)
	return 0
}

// wantLoadError loads src as file and requires a one-line error naming
// file:line, containing want, at the (first) line whose text is line.
func wantLoadError(t *testing.T, file, src, want, line string) {
	t.Helper()
	_, err := Load([]byte(src), file, nil)
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	if !strings.Contains(msg, want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, file+":") {
		t.Fatalf("error %q, want one line naming %s:line and containing %q", msg, file, want)
	}
	e, ok := err.(*Error)
	if wantLine := exactLine(t, src, line, 1); !ok || e.Pos.Line != wantLine {
		t.Fatalf("error %q at line %d, want line %d", msg, e.Pos.Line, wantLine)
	}
}

func loadEm(t *testing.T) *Program {
	t.Helper()
	p, err := Load([]byte(emProgram), "emit.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEmitLoad(t *testing.T) {
	p := loadEm(t)
	send := p.Function("send")
	if e, ok := stmtOf(send.Body[2], "emit"); !ok || e.Pos != (Pos{File: "emit.yaml", Line: exactLine(t, emProgram, "    emit()", 1)}) {
		t.Fatalf("send's third statement %#v, want emit() at its line", send.Body[2])
	}
	if c, ok := p.Timer("beacon").Body[4].(*CallStmt); !ok || c.Fn != send {
		t.Fatalf("beacon's last statement %#v, want a call of send", p.Timer("beacon").Body[4])
	}
	ing := p.Ingress.Body
	if e, ok := stmtOf(ing[11], "emit"); !ok || e.Position().Line != exactLine(t, emProgram, "  emit()", 1) {
		t.Fatalf("ingress statement 11: %#v, want emit()", ing[11])
	}
	// Every emit in file order: the function's, then ingress's two (one
	// inside an if). The timer reaches one only through send.
	var lines []int
	for _, e := range p.Emits() {
		lines = append(lines, e.Pos.Line)
	}
	want := []int{exactLine(t, emProgram, "    emit()", 1), exactLine(t, emProgram, "  emit()", 1), exactLine(t, emProgram, "    emit()", 2)}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("Emits at lines %v, want %v", lines, want)
	}
	// emit() directly in a timer, and the timer's emits are listed.
	src := strings.Replace(emProgram, "      send()\n", "      send()\n      emit()\n", 1)
	p2, err := Load([]byte(src), "emit.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	body := p2.Timer("beacon").Body
	if _, ok := stmtOf(body[len(body)-1], "emit"); !ok || len(p2.Emits()) != 4 {
		t.Fatalf("timer body %#v, %d emits, want emit() last and 4 emits", body, len(p2.Emits()))
	}
	// In egress too.
	src = emProgram + "egress: |\n  if probe.isValid() {\n    emit()\n  }\n"
	p3, err := Load([]byte(src), "emit.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p3.Emits()); n != 4 || p3.Emits()[3].Pos.Line != lineOf(t, src, "if probe.isValid()")+1 {
		t.Fatalf("egress: %d emits", n)
	}
	plain, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Emits()) != 0 {
		t.Fatal("a program without emit() has emits")
	}
	for _, n := range Builtins() {
		b, err := Resolve(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Only the Trio programs create packets: trio-ml its Result
		// packets ([TRIO] §4), Protego on Trio its notifications, ACKs
		// and dummies.
		if got := len(b.Emits()) != 0; got != (n == "trio-ml" || strings.HasSuffix(n, "-trio")) {
			t.Fatalf("built-in %s: uses emit() = %v", n, got)
		}
	}
}

func TestEmitErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("test edit: %q not in the program", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	withAction := func(do string) func(string) string {
		return rep("functions:\n", "actions:\n  mk:\n    params: {x: 16}\n    do: |\n      meta.n = x\n      "+do+"\nfunctions:\n")
	}
	withRegister := func(body string) func(string) string {
		return rep("functions:\n", "registers:\n  r:\n    width: 32\n    size: 4\n    actions:\n      rd: |\n        "+body+"\n        out = value\nfunctions:\n")
	}
	cases := []struct {
		name string
		edit func(string) string
		want string
		line string
	}{
		{"in an action", withAction("emit()"),
			"action mk: emit() cannot be used inside an action: creating a packet is control flow (use it in ingress, egress, a function or a timer)", "      emit()"},
		{"in a register action", withRegister("emit()"),
			"emit() cannot be used inside a register action: creating a packet is control flow (use it in ingress, egress, a function or a timer)", "        emit()"},
		{"arguments", rep("  std.packet_length = 200\n  emit()\n", "  std.packet_length = 200\n  emit(3)\n"),
			"ingress: emit takes no arguments or three, emit(REGISTER, START, CELLS), got 1", "  emit(3)"},
		{"as a value", rep("  meta.after = 1\n", "  meta.after = emit()\n"), "ingress: emit() is a statement, not a value", "  meta.after = emit()"},
		{"function named emit", rep("  send: |\n", "  emit: |\n    meta.n = 0\n  send: |\n"), `function name "emit" is a built-in statement`, "  emit: |"},
		{"timer named emit", rep("  beacon:\n", "  emit: {period_ns: 5, do: meta.n = 0}\n  beacon:\n"), `timer name "emit" is a built-in statement`, "  emit: {period_ns: 5, do: meta.n = 0}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantLoadError(t, "emit.yaml", c.edit(emProgram), c.want, c.line)
		})
	}
}

type emitTracer struct{ emits int }

func (r *emitTracer) Stmt(s Stmt) {
	if _, ok := stmtOf(s, "emit"); ok {
		r.emits++
	}
}
func (r *emitTracer) Lookup(*Table, []int64, bool, *Action)  {}
func (r *emitTracer) Register(*RegisterAction, int)          {}
func (r *emitTracer) Meter(*Meter, int)                      {}
func (r *emitTracer) Count(*Counter, int)                    {}
func (r *emitTracer) Payload(int)                            {}
func (r *emitTracer) Bulk(*Register, int, int)               {}
func (r *emitTracer) Clear(*Register, int, int)              {}
func (r *emitTracer) TableOp(*Table, TableOpKind, int, bool) {}

// TestEmitInterpreter: each emit() calls Exec.Emit with the header vector
// as it stands at that point; BuildEmitted turns it into distinct packets
// with the right bytes and lengths.
func TestEmitInterpreter(t *testing.T) {
	p := loadEm(t)
	f := func(name string) int { return p.Field(name).Slot }
	// A 64-byte IPv4 packet: eth dst 02:..:01, src 02:..:02, etype 0x0800.
	in := []byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00}
	in = append(in, bytes.Repeat([]byte{0xee}, 50)...)
	run := func(emit bool) (*Exec, []emitted, []int64) {
		x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
		x.PHV = make([]int64, len(p.Fields))
		x.PHV[p.Std[StdPacketLength].Slot] = int64(len(in))
		res := p.Parse(in, len(in), x.PHV, false, false)
		if res.Rejected || res.Offset != 14 {
			t.Fatalf("parse %+v", res)
		}
		var got []emitted
		if emit {
			x.Emit = func(payload []byte) {
				if payload != nil {
					t.Errorf("emit() gave a payload %x", payload)
				}
				head, length := p.BuildEmitted(x.PHV, payload)
				got = append(got, emitted{head: head, length: length, port: x.PHV[f("std.egress_port")],
					qid: x.PHV[f("std.qid")], grp: x.PHV[f("std.mcast_grp")], after: x.PHV[f("meta.after")]})
			}
		}
		x.RunControl(p.Ingress)
		return x, got, append([]int64(nil), x.PHV...)
	}
	x, got, phv := run(true)
	eth := in[:14]
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	want := []emitted{
		// send(): eth as parsed + probe{seq 1, val 0}; the frame's 64 bytes.
		{head: cat(eth, []byte{0, 1, 0, 0, 0, 0}), length: 64, port: 2},
		// eth + tag{a, 5} + probe{2, deadbeef} in declaration order;
		// std.packet_length 200 > 21 header bytes.
		{head: cat(eth, []byte{0xa5}, []byte{0, 2, 0xde, 0xad, 0xbe, 0xef}), length: 200, port: 3, qid: 4},
		// Only eth is valid; std.packet_length 4 < 14: the headers' size.
		{head: eth, length: 14, port: 3, qid: 4, grp: 9},
	}
	if len(got) != len(want) {
		t.Fatalf("%d packets emitted, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].head, want[i].head) || got[i].length != want[i].length || got[i].port != want[i].port ||
			got[i].qid != want[i].qid || got[i].grp != want[i].grp || got[i].after != 0 {
			t.Errorf("packet %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Processing went on after the last emit; the thread's own packet is
	// what its header vector deparses to, unaffected by the emits.
	if phv[f("meta.after")] != 1 {
		t.Fatal("the statement after emit() did not run")
	}
	head, length := p.Deparse(phv, in, len(in), 14, false)
	if !bytes.Equal(head, in) || length != 64 {
		t.Fatalf("own packet %x (%d bytes), want the input unchanged", head, length)
	}
	// Without a callback emit() does nothing but counts as a step; the
	// tracer sees it.
	x2, none, phv2 := run(false)
	if len(none) != 0 || x2.Steps != x.Steps || !reflect.DeepEqual(phv, phv2) {
		t.Fatalf("nil Emit: %d packets, steps %d vs %d", len(none), x2.Steps, x.Steps)
	}
	tr := &emitTracer{}
	x3 := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x3.Tracer = tr
	x3.PHV = make([]int64, len(p.Fields))
	x3.RunControl(p.Ingress) // no packet parsed: eth is invalid, the last emit is skipped
	if tr.emits != 2 {
		t.Fatalf("tracer saw %d emits, want 2", tr.emits)
	}

	// A timer thread builds a packet from nothing.
	var tm []emitted
	x4 := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x4.Emit = func(payload []byte) {
		head, length := p.BuildEmitted(x4.PHV, payload)
		tm = append(tm, emitted{head: head, length: length, port: x4.PHV[f("std.egress_port")]})
	}
	for i := 0; i < 2; i++ {
		x4.PHV = make([]int64, len(p.Fields))
		x4.RunTimer(p.Timer("beacon"), i)
	}
	for i, e := range tm {
		wantHead := cat(make([]byte, 12), []byte{0x88, 0xb5}, []byte{0, byte(i), 0, 0, 0, 0})
		if !bytes.Equal(e.head, wantHead) || e.length != 20 || e.port != 5 {
			t.Errorf("timer thread %d: %+v, want head %x, 20 bytes, port 5", i, e, wantHead)
		}
	}
	if len(tm) != 2 {
		t.Fatalf("timer threads emitted %d packets, want 2", len(tm))
	}
}

// TestBuildEmitted: bridged metadata is never prepended, nothing follows
// the headers, and a vector with no valid header is an empty packet unless
// std.packet_length gives it a length.
func TestBuildEmitted(t *testing.T) {
	p := loadEm(t)
	phv := make([]int64, len(p.Fields))
	head, length := p.BuildEmitted(phv, nil)
	if len(head) != 0 || length != 0 {
		t.Fatalf("empty vector: %x, %d", head, length)
	}
	phv[p.Std[StdPacketLength].Slot] = 1500
	if head, length = p.BuildEmitted(phv, nil); len(head) != 0 || length != 1500 {
		t.Fatalf("payload only: %x, %d", head, length)
	}
	phv[p.Field("tag.hi").Slot], phv[p.Field("tag.lo").Slot] = 0x3, 0xc
	phv[p.Field("tag.$valid").Slot] = 1
	if head, length = p.BuildEmitted(phv, nil); !bytes.Equal(head, []byte{0x3c}) || length != 1500 {
		t.Fatalf("tag only: %x, %d", head, length)
	}
}

// bkProgram creates packets whose payload is register cells: buf is 32
// bits wide, s16 16 bits and signed; the range comes from signed fields so
// that it can be negative.
const bkProgram = `program: bulk
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  start: i16
  n: i16
registers:
  buf:
    width: 32
    size: 8
    actions:
      rd: out = value
  s16:
    width: i16
    size: 4
    actions:
      rd: out = value
parser:
  start: s
  states:
    s:
      extract: eth
ingress: |
  eth.setValid()
  emit(buf, meta.start, meta.n)
  emit(s16, 1, 2)
  emit()
`

// bulkCall is what a Tracer's Bulk saw.
type bulkCall struct {
	reg          string
	start, cells int
}

type bulkTracer struct {
	emitTracer
	bulks []bulkCall
}

func (r *bulkTracer) Bulk(reg *Register, start, cells int) {
	r.bulks = append(r.bulks, bulkCall{reg.Name, start, cells})
}

func TestEmitPayloadLoad(t *testing.T) {
	p, err := Load([]byte(bkProgram), "bulk.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	ing := p.Ingress.Body
	e, ok := stmtOf(ing[1], "emit")
	if !ok || e.Reg != p.Registers[0] {
		t.Fatalf("ingress statement 1: %#v, want emit(buf, ...)", ing[1])
	}
	if s, ok := e.Args[0].(*FieldExpr); !ok || s.F != p.Field("meta.start") {
		t.Errorf("START %#v, want meta.start", e.Args[0])
	}
	if c, ok := e.Args[1].(*FieldExpr); !ok || c.F != p.Field("meta.n") {
		t.Errorf("CELLS %#v, want meta.n", e.Args[1])
	}
	if e, ok := stmtOf(ing[3], "emit"); !ok || e.Reg != nil || len(e.Args) != 0 {
		t.Errorf("ingress statement 3: %#v, want a plain emit()", ing[3])
	}
	if n := len(p.Emits()); n != 3 {
		t.Errorf("%d emits, want 3", n)
	}
	// The range's expressions are walked (payload32 in START is a payload
	// read).
	src := strings.Replace(bkProgram, "emit(s16, 1, 2)", "emit(s16, payload32(0), meta.n + 1)", 1)
	p2, err := Load([]byte(src), "bulk.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := p2.PayloadReads(); len(r) != 1 || r[0].Pos.Line != lineOf(t, src, "emit(s16, payload32(0)") {
		t.Errorf("payload reads %v, want the one in emit's START", r)
	}
	var fields []string
	WalkStmtExprs(p2.Ingress.Body[2:3], func(x Expr) {
		if f, ok := x.(*FieldExpr); ok {
			fields = append(fields, f.F.Name)
		}
	})
	if fmt.Sprint(fields) != "[meta.n]" {
		t.Errorf("WalkStmtExprs saw fields %v in emit's range, want [meta.n]", fields)
	}
}

// TestEmitPayload: the payload is the cells big-endian in the register's
// width, clipped to the register; BuildEmitted puts it after the headers;
// the tracer sees each non-empty copy with its clipped range.
func TestEmitPayload(t *testing.T) {
	p, err := Load([]byte(bkProgram), "bulk.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	eth := make([]byte, 14)
	cells := func(vals ...uint32) []byte {
		var b []byte
		for _, v := range vals {
			b = append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		}
		return b
	}
	s16 := []byte{0xff, 0xfe, 0x12, 0x34} // cells 1 and 2: -2, 0x1234
	cases := []struct {
		name     string
		start, n int64
		pktLen   int64
		want     []byte // buf's payload
		bulks    []bulkCall
	}{
		{"inside", 2, 3, 0, cells(0xa0b0c002, 0xa0b0c003, 0xa0b0c004), []bulkCall{{"buf", 2, 3}}},
		{"whole register", 0, 8, 0, cells(0xa0b0c000, 0xa0b0c001, 0xa0b0c002, 0xa0b0c003, 0xa0b0c004, 0xa0b0c005, 0xa0b0c006, 0xa0b0c007), []bulkCall{{"buf", 0, 8}}},
		{"past the end", 6, 5, 0, cells(0xa0b0c006, 0xa0b0c007), []bulkCall{{"buf", 6, 2}}},
		{"before the start", -1, 3, 0, cells(0xa0b0c000, 0xa0b0c001), []bulkCall{{"buf", 0, 2}}},
		{"longer packet", 7, 1, 1500, cells(0xa0b0c007), []bulkCall{{"buf", 7, 1}}},
		{"start at the end", 8, 3, 0, nil, nil},
		{"zero cells", 3, 0, 0, nil, nil},
		{"negative cells", 3, -2, 0, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &bulkTracer{}
			x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
			x.Tracer = tr
			for i := 0; i < x.State.Regs[0].Len(); i++ {
				x.State.Regs[0].Set(i, int64(0xa0b0c000+i))
			}
			x.State.Regs[1].Set(1, -2)
			x.State.Regs[1].Set(2, 0x1234)
			x.PHV = make([]int64, len(p.Fields))
			x.PHV[p.Field("meta.start").Slot] = c.start
			x.PHV[p.Field("meta.n").Slot] = c.n
			x.PHV[p.Std[StdPacketLength].Slot] = c.pktLen
			var payloads [][]byte
			var heads [][]byte
			var lengths []int
			x.Emit = func(payload []byte) {
				payloads = append(payloads, payload)
				head, length := p.BuildEmitted(x.PHV, payload)
				heads = append(heads, head)
				lengths = append(lengths, length)
			}
			x.RunControl(p.Ingress)
			if len(payloads) != 3 {
				t.Fatalf("%d packets, want 3", len(payloads))
			}
			if !bytes.Equal(payloads[0], c.want) || (c.want == nil) != (payloads[0] == nil) {
				t.Errorf("buf payload %x, want %x", payloads[0], c.want)
			}
			if !bytes.Equal(payloads[1], s16) || payloads[2] != nil {
				t.Errorf("s16 payload %x, want %x; plain emit() payload %x, want none", payloads[1], s16, payloads[2])
			}
			wantHead := append(append([]byte(nil), eth...), c.want...)
			if !bytes.Equal(heads[0], wantHead) || lengths[0] != max(len(wantHead), int(c.pktLen)) {
				t.Errorf("packet %x (%d bytes), want %x (%d bytes)", heads[0], lengths[0], wantHead, max(len(wantHead), int(c.pktLen)))
			}
			if !bytes.Equal(heads[2], eth) || lengths[2] != max(14, int(c.pktLen)) {
				t.Errorf("plain emit() packet %x (%d bytes)", heads[2], lengths[2])
			}
			want := append(c.bulks, bulkCall{"s16", 1, 2})
			if !reflect.DeepEqual(tr.bulks, want) {
				t.Errorf("tracer saw copies %v, want %v", tr.bulks, want)
			}
		})
	}
}

func TestEmitPayloadErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("test edit: %q not in the program", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	reg := func(decl string) func(string) string {
		return rep("parser:\n", decl+"\nparser:\n")
	}
	cases := []struct {
		name string
		edit func(string) string
		want string
		line string
	}{
		{"pair register", func(s string) string {
			s = reg("  pr:\n    width: 64\n    pair: true\n    size: 4\n    actions:\n      rd: out = lo")(s)
			return rep("emit(s16, 1, 2)", "emit(pr, 0, 1)")(s)
		}, "ingress: emit(REGISTER, START, CELLS): register pr is a pair register; the payload is whole cells of a plain register", "  emit(pr, 0, 1)"},
		{"width", func(s string) string {
			s = reg("  r12:\n    width: 12\n    size: 4\n    actions:\n      rd: out = value")(s)
			return rep("emit(s16, 1, 2)", "emit(r12, 0, 1)")(s)
		}, "ingress: emit(REGISTER, START, CELLS): register r12 is 12 bits wide; payload cells are whole bytes, so its width must be a multiple of 8", "  emit(r12, 0, 1)"},
		{"two arguments", rep("emit(s16, 1, 2)", "emit(s16, 1)"),
			"ingress: emit takes no arguments or three, emit(REGISTER, START, CELLS), got 2", "  emit(s16, 1)"},
		{"four arguments", rep("emit(s16, 1, 2)", "emit(s16, 1, 2, 3)"),
			"ingress: emit takes no arguments or three, emit(REGISTER, START, CELLS), got 4", "  emit(s16, 1, 2, 3)"},
		{"not a name", rep("emit(s16, 1, 2)", "emit(meta.n, 1, 2)"),
			"ingress: emit(REGISTER, START, CELLS): the first argument must name a register", "  emit(meta.n, 1, 2)"},
		{"a header", rep("emit(s16, 1, 2)", "emit(eth, 1, 2)"),
			"ingress: emit(REGISTER, START, CELLS): header eth is not a register", "  emit(eth, 1, 2)"},
		{"undefined", rep("emit(s16, 1, 2)", "emit(nosuch, 1, 2)"),
			"ingress: emit(REGISTER, START, CELLS): undefined register nosuch", "  emit(nosuch, 1, 2)"},
		{"constant start outside", rep("emit(s16, 1, 2)", "emit(s16, 4, 2)"),
			"ingress: index 4 is outside s16 (size 4)", "  emit(s16, 4, 2)"},
		{"bad cells", rep("emit(s16, 1, 2)", "emit(s16, 1, meta.nosuch)"),
			"undefined field meta.nosuch", "  emit(s16, 1, meta.nosuch)"},
		{"in an action", rep("parser:\n", "actions:\n  mk:\n    do: |\n      emit(buf, 0, 1)\nparser:\n"),
			"action mk: emit() cannot be used inside an action", "      emit(buf, 0, 1)"},
		{"in a register action", rep("      rd: out = value\n  s16:", "      rd: |\n        emit(buf, 0, 1)\n        out = value\n  s16:"),
			"emit() cannot be used inside a register action", "        emit(buf, 0, 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantLoadError(t, "bulk.yaml", c.edit(bkProgram), c.want, c.line)
		})
	}
}
