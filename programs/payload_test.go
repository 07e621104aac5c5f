package programs

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// plProgram reads the payload from control code (a variable word), an
// action (its parameter is the word index, also called inline from
// control code) and a register action that adds a word to its cell (the
// aggregation step of in-network aggregation).
const plProgram = `program: payload
headers:
  eth: {dst: 48, src: 48, etype: 16}
  agg: {slot: 8, pad: 8}
metadata:
  i: 8
  w: 32
  u: 32
  s: 32
  n: 16
parser:
  start: s
  states:
    s:
      extract: [eth, agg]
registers:
  sum:
    width: 32
    size: 4
    actions:
      add: |
        value = value + payload32(meta.i)
        out = value
actions:
  word:
    params: {k: 8}
    do: meta.u = payload32(k)
tables:
  t:
    key: {agg.slot: exact}
    actions: [word]
    entries:
      - {key: 1, action: word(2)}
ingress: |
  meta.w = payload32(meta.i)
  t.apply()
  word(3)
  meta.s = sum.add(agg.slot)
`

type payloadTracer struct {
	stmts int
	words []int
}

func (r *payloadTracer) Stmt(Stmt)                              { r.stmts++ }
func (r *payloadTracer) Lookup(*Table, []int64, bool, *Action)  {}
func (r *payloadTracer) Register(*RegisterAction, int)          {}
func (r *payloadTracer) Meter(*Meter, int)                      {}
func (r *payloadTracer) Count(*Counter, int)                    {}
func (r *payloadTracer) Payload(word int)                       { r.words = append(r.words, word) }
func (r *payloadTracer) Bulk(*Register, int, int)               {}
func (r *payloadTracer) Clear(*Register, int, int)              {}
func (r *payloadTracer) TableOp(*Table, TableOpKind, int, bool) {}

func TestPayloadLoad(t *testing.T) {
	p, err := Load([]byte(plProgram), "payload.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Ingress.Body[0].(*AssignStmt)
	pe, ok := a.Src.(*CallExpr)
	if !ok || !pe.Builtin.Is(OnNothing, "payload32") || pe.Type() != (Type{Bits: 32}) {
		t.Fatalf("ingress reads %#v, want a 32-bit payload32", a.Src)
	}
	if fe, ok := pe.Args[0].(*FieldExpr); !ok || fe.F.Name != "meta.i" || pe.Pos.Line != lineOf(t, plProgram, "  meta.w = payload32(meta.i)") {
		t.Fatalf("index %#v at %v", pe.Args[0], pe.Pos)
	}
	// Every read, in file order: the register action's, the action's and
	// its copy inlined by word(3) (which keeps the action's line), the
	// ingress one.
	var lines []int
	for _, r := range p.PayloadReads() {
		lines = append(lines, r.Pos.Line)
	}
	reg, act, ing := lineOf(t, plProgram, "value + payload32"), lineOf(t, plProgram, "meta.u = payload32(k)"),
		lineOf(t, plProgram, "  meta.w = payload32")
	if want := []int{reg, act, act, ing}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("PayloadReads at lines %v, want %v", lines, want)
	}
	plain, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.PayloadReads()) != 0 {
		t.Fatal("a program without payload32 has payload reads")
	}
}

func TestPayloadWord(t *testing.T) {
	pl := []byte{0x01, 0x02, 0x03, 0x04, 0xf5, 0x06, 0x07, 0x08, 0x09, 0x0a}
	for _, c := range []struct {
		i    int64
		want int64
	}{
		{0, 0x01020304}, {1, 0xf5060708}, // unsigned: the top bit set stays positive
		{2, 0x090a0000}, // runs past the held bytes: the missing ones read 0
		{3, 0}, {1 << 40, 0}, {-1, 0},
	} {
		if got := payloadWord(pl, c.i); got != c.want {
			t.Errorf("word %d = %#x, want %#x", c.i, got, c.want)
		}
	}
	if payloadWord(nil, 0) != 0 {
		t.Error("nil payload")
	}
}

func TestPayloadBytes(t *testing.T) {
	head := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		length, offset int
		want           []byte
	}{
		{10, 4, []byte{4, 5, 6, 7, 8, 9}},
		{100, 4, []byte{4, 5, 6, 7, 8, 9}}, // the frame is longer than the held bytes
		{6, 4, []byte{4, 5}},               // the head holds bytes beyond the frame
		{4, 4, nil}, {3, 4, nil}, {10, 10, nil}, {10, 12, nil},
	} {
		if got := PayloadBytes(head, c.length, c.offset); !reflect.DeepEqual(got, c.want) {
			t.Errorf("length %d offset %d: %v, want %v", c.length, c.offset, got, c.want)
		}
	}
}

// TestPayloadInterpreter runs packets through plProgram: payload32 in
// control code, an action (from a table and called inline) and a register
// action that accumulates a word of each packet into a cell.
func TestPayloadInterpreter(t *testing.T) {
	p, err := Load([]byte(plProgram), "payload.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(p)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	tr := &payloadTracer{}
	x.Tracer = tr
	slot := func(name string) int { return p.Field(name).Slot }
	// A frame: 14 bytes of eth, 2 of agg (slot 1), then four payload words
	// 10, 20, 30, 40, of which the packet model holds the first three (and
	// one byte of the fourth) plus two bytes past the frame's end.
	run := func(length int, held []byte, i int64) []int64 {
		head := make([]byte, 16)
		head[12], head[13] = 0x08, 0x00
		head[14] = 1 // agg.slot
		head = append(head, held...)
		phv := make([]int64, len(p.Fields))
		res := p.Parse(head, length, phv, false, false)
		if res.Rejected || res.Offset != 16 {
			t.Fatalf("parse: %+v", res)
		}
		phv[slot("meta.i")] = i
		phv[p.Std[StdPacketLength].Slot] = int64(length)
		x.PHV = phv
		x.Payload = PayloadBytes(head, length, res.Offset)
		x.RunControl(p.Ingress)
		return phv
	}
	held := []byte{0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0}
	// In range: word 1 is 20; the table's action reads word 2, the inline
	// call word 3 (whose only held byte is 0: the rest reads 0).
	phv := run(16+16, held, 1)
	if phv[slot("meta.w")] != 20 || phv[slot("meta.u")] != 0 {
		t.Fatalf("meta.w %d meta.u %d, want 20 and 0", phv[slot("meta.w")], phv[slot("meta.u")])
	}
	if st.Regs[0].Get(1) != 20 || phv[slot("meta.s")] != 20 {
		t.Fatalf("sum[1] = %d (out %d), want 20", st.Regs[0].Get(1), phv[slot("meta.s")])
	}
	// The tracer sees every read with its word index: ingress (1), the
	// table's action (2), the inline action (3), the register action (1).
	if want := []int{1, 2, 3, 1}; !reflect.DeepEqual(tr.words, want) {
		t.Fatalf("traced words %v, want %v", tr.words, want)
	}
	// A second packet adds its word 0 to the same cell.
	phv = run(16+16, held, 0)
	if phv[slot("meta.w")] != 10 || st.Regs[0].Get(1) != 30 {
		t.Fatalf("meta.w %d sum[1] %d, want 10 and 30", phv[slot("meta.w")], st.Regs[0].Get(1))
	}
	// The table's action reads word 2 (30) when the inline call does not
	// overwrite it: check through a frame where word 3 is beyond the frame.
	// The frame ends after two words: word 2 (held, but past the frame's
	// length) reads 0, and so does the register action's addition.
	phv = run(16+8, held, 2)
	if phv[slot("meta.w")] != 0 || st.Regs[0].Get(1) != 30 {
		t.Fatalf("beyond the frame: meta.w %d sum[1] %d, want 0 and 30", phv[slot("meta.w")], st.Regs[0].Get(1))
	}
	// Beyond the held bytes (the frame is 64 words long, the model holds
	// three and a bit): word 10 reads 0.
	phv = run(16+256, held, 10)
	if phv[slot("meta.w")] != 0 {
		t.Fatalf("beyond the held bytes: meta.w %d", phv[slot("meta.w")])
	}
	// No payload at all (nil): every word reads 0.
	x.Payload = nil
	x.PHV = make([]int64, len(p.Fields))
	x.RunControl(p.Ingress)
	if x.PHV[slot("meta.w")] != 0 || x.PHV[slot("meta.u")] != 0 {
		t.Fatal("nil payload reads non-zero")
	}
}

// TestPayloadActionWord: the table's action reads word 2 when nothing else
// overwrites its result.
func TestPayloadActionWord(t *testing.T) {
	src := strings.Replace(plProgram, "  word(3)\n", "", 1)
	p, err := Load([]byte(src), "payload.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x.PHV = make([]int64, len(p.Fields))
	x.PHV[p.Field("agg.slot").Slot] = 1
	x.Payload = []byte{0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30}
	x.RunControl(p.Ingress)
	if got := x.PHV[p.Field("meta.u").Slot]; got != 30 {
		t.Fatalf("meta.u %d, want word 2 = 30", got)
	}
}

func TestPayloadErrors(t *testing.T) {
	cases := []struct {
		old, new string
		want     string
	}{
		{"  meta.w = payload32(meta.i)\n", "  meta.w = payload32()\n", "ingress: expected 1 arguments, got 0"},
		{"  meta.w = payload32(meta.i)\n", "  meta.w = payload32(1, 2)\n", "expected 1 arguments, got 2"},
		{"  meta.w = payload32(meta.i)\n", "  meta.w = payload32(-1)\n", "payload32(i): the word index must be >= 0, got -1"},
		{"  meta.w = payload32(meta.i)\n", "  meta.n = payload32(meta.i)\n", "cannot assign a bit<32> value to meta.n (bit<16>)"},
		{"  meta.w = payload32(meta.i)\n", "  payload32(meta.i)\n", "payload32(...) computes a value; assign it to a field"},
		{"  meta.w = payload32(meta.i)\n", "  meta.w = payload32[0]\n", "undefined name payload32"},
		{"metadata:\n", "functions:\n  payload32: drop()\nmetadata:\n", `function name "payload32" is a built-in function`},
		{"  agg: {slot", "  payload32: {x: 8}\n  agg: {slot", `header name "payload32" is reserved`},
	}
	for _, c := range cases {
		if !strings.Contains(plProgram, c.old) {
			t.Fatalf("test edit: %q not in the program", c.old)
		}
		src := strings.Replace(plProgram, c.old, c.new, 1)
		_, err := Load([]byte(src), "payload.yaml", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "payload.yaml:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want a one-line error containing %q", c.new, err, c.want)
		}
	}
}
