package programs

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// clProgram resets register ranges with clear(): buf (32 bits, init 0)
// over a range from signed fields, so that it can be negative; the pair
// register pr (init hi 5, lo 7) from a function; the 1-bit flags from a
// timer (one cell per thread) and from egress inside an if.
const clProgram = `program: clear
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  start: i16
  n: i16
  after: 8
registers:
  buf:
    width: 32
    size: 8
    actions:
      rd: out = value
  pr:
    width: 64
    pair: true
    size: 4
    init: 0x500000007
    actions:
      rd: out = lo
  flags:
    width: 1
    size: 4
    actions:
      rd: out = value
parser:
  start: s
  states:
    s:
      extract: eth
functions:
  reset: |
    clear(pr, 1, 2)
timers:
  sweep:
    period_ns: 1000
    threads: 4
    do: clear(flags, std.timer_index, 1)
ingress: |
  clear(buf, meta.start, meta.n)
  reset()
  meta.after = 1
egress: |
  if eth.etype == 1 {
    clear(flags, 0, 4)
  }
`

// clearCall is what a Tracer's Clear saw.
type clearCall struct {
	reg          string
	start, cells int
}

type clearTracer struct {
	emitTracer
	clears []clearCall
}

func (r *clearTracer) Clear(reg *Register, start, cells int) {
	r.clears = append(r.clears, clearCall{reg.Name, start, cells})
}

func loadCl(t *testing.T, src string) *Program {
	t.Helper()
	p, err := Load([]byte(src), "clear.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClearLoad(t *testing.T) {
	p := loadCl(t, clProgram)
	c, ok := stmtOf(p.Ingress.Body[0], "clear")
	if !ok || c.Reg != p.Registers[0] || c.Pos != (Pos{File: "clear.yaml", Line: lineOf(t, clProgram, "clear(buf,")}) {
		t.Fatalf("ingress statement 0: %#v, want clear(buf, ...) at its line", p.Ingress.Body[0])
	}
	if s, ok := c.Args[0].(*FieldExpr); !ok || s.F != p.Field("meta.start") {
		t.Errorf("START %#v, want meta.start", c.Args[0])
	}
	if n, ok := c.Args[1].(*FieldExpr); !ok || n.F != p.Field("meta.n") {
		t.Errorf("CELLS %#v, want meta.n", c.Args[1])
	}
	if c, ok := stmtOf(p.Function("reset").Body[0], "clear"); !ok || c.Reg.Name != "pr" || !c.Reg.Pair {
		t.Errorf("reset's statement %#v, want clear(pr, ...)", p.Function("reset").Body[0])
	}
	// Every clear in file order: the function's, the timer's, ingress's,
	// egress's (inside an if).
	var got []string
	for _, c := range p.Clears() {
		got = append(got, fmt.Sprintf("%s@%d", c.Reg.Name, c.Pos.Line))
	}
	want := []string{
		fmt.Sprintf("pr@%d", lineOf(t, clProgram, "clear(pr,")),
		fmt.Sprintf("flags@%d", lineOf(t, clProgram, "clear(flags, std.timer_index")),
		fmt.Sprintf("buf@%d", lineOf(t, clProgram, "clear(buf,")),
		fmt.Sprintf("flags@%d", lineOf(t, clProgram, "clear(flags, 0, 4)")),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Clears %v, want %v", got, want)
	}
	if len(p.Emits()) != 0 {
		t.Fatal("clear() counted as an emit")
	}
	// The range's expressions are walked (payload32 in START is a payload
	// read; WalkStmtExprs sees CELLS).
	src := strings.Replace(clProgram, "clear(pr, 1, 2)", "clear(pr, payload32(0), meta.n + 1)", 1)
	p2 := loadCl(t, src)
	if r := p2.PayloadReads(); len(r) != 1 || r[0].Pos.Line != lineOf(t, src, "clear(pr, payload32(0)") {
		t.Errorf("payload reads %v, want the one in clear's START", r)
	}
	var fields []string
	WalkStmtExprs(p2.Function("reset").Body, func(x Expr) {
		if f, ok := x.(*FieldExpr); ok {
			fields = append(fields, f.F.Name)
		}
	})
	if fmt.Sprint(fields) != "[meta.n]" {
		t.Errorf("WalkStmtExprs saw fields %v in clear's range, want [meta.n]", fields)
	}
	plain, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Clears()) != 0 {
		t.Fatal("a program without clear() has clears")
	}
}

func TestClearErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("test edit: %q not in the program", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	cases := []struct {
		name string
		edit func(string) string
		want string
		line string
	}{
		{"in an action", rep("parser:\n", "actions:\n  mk:\n    do: |\n      clear(buf, 0, 1)\nparser:\n"),
			"action mk: clear() cannot be used inside an action: resetting a range of register cells is control flow (use it in ingress, egress, a function or a timer)", "      clear(buf, 0, 1)"},
		{"in a register action", rep("      rd: out = lo\n", "      rd: |\n        clear(buf, 0, 1)\n        out = lo\n"),
			"clear() cannot be used inside a register action: resetting a range of register cells is control flow (use it in ingress, egress, a function or a timer)", "        clear(buf, 0, 1)"},
		{"no arguments", rep("  meta.after = 1\n", "  clear()\n"),
			"ingress: clear takes three arguments, clear(REGISTER, START, CELLS), got 0", "  clear()"},
		{"two arguments", rep("  meta.after = 1\n", "  clear(buf, 1)\n"),
			"ingress: clear takes three arguments, clear(REGISTER, START, CELLS), got 2", "  clear(buf, 1)"},
		{"four arguments", rep("  meta.after = 1\n", "  clear(buf, 1, 2, 3)\n"),
			"ingress: clear takes three arguments, clear(REGISTER, START, CELLS), got 4", "  clear(buf, 1, 2, 3)"},
		{"not a name", rep("  meta.after = 1\n", "  clear(meta.n, 1, 2)\n"),
			"ingress: clear(REGISTER, START, CELLS): the first argument must name a register", "  clear(meta.n, 1, 2)"},
		{"a header", rep("  meta.after = 1\n", "  clear(eth, 1, 2)\n"),
			"ingress: clear(REGISTER, START, CELLS): header eth is not a register", "  clear(eth, 1, 2)"},
		{"undefined", rep("  meta.after = 1\n", "  clear(nosuch, 1, 2)\n"),
			"ingress: clear(REGISTER, START, CELLS): undefined register nosuch", "  clear(nosuch, 1, 2)"},
		{"constant start outside", rep("  meta.after = 1\n", "  clear(buf, 8, 1)\n"),
			"ingress: index 8 is outside buf (size 8)", "  clear(buf, 8, 1)"},
		{"negative constant start", rep("clear(pr, 1, 2)", "clear(pr, -1, 2)"),
			"function reset: index -1 is outside pr (size 4)", "    clear(pr, -1, 2)"},
		{"bad cells", rep("  meta.after = 1\n", "  clear(buf, 1, meta.nosuch)\n"),
			"undefined field meta.nosuch", "  clear(buf, 1, meta.nosuch)"},
		{"as a value", rep("  meta.after = 1\n", "  meta.after = clear(buf, 0, 1)\n"),
			"ingress: clear() is a statement, not a value", "  meta.after = clear(buf, 0, 1)"},
		{"function named clear", rep("  reset: |\n", "  clear: |\n    meta.n = 0\n  reset: |\n"),
			`function name "clear" is a built-in statement`, "  clear: |"},
		{"timer named clear", rep("  sweep:\n", "  clear: {period_ns: 5, do: meta.n = 0}\n  sweep:\n"),
			`timer name "clear" is a built-in statement`, "  clear: {period_ns: 5, do: meta.n = 0}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantLoadError(t, "clear.yaml", c.edit(clProgram), c.want, c.line)
		})
	}
}

// TestClear: clear() resets the range clipped to the register to the
// register's initial value (0 for buf; both halves of the pair register
// pr to its init), leaves the other cells alone, and the tracer sees each
// non-empty reset with its clipped range.
func TestClear(t *testing.T) {
	p := loadCl(t, clProgram)
	buf, pr, flags := p.Registers[0], p.Registers[1], p.Registers[2]
	if got := NewState(p).Regs[pr.Index].Get(0); got != 0x500000007 {
		t.Fatalf("pr starts at %#x, want its init 0x500000007", got)
	}
	cases := []struct {
		name     string
		start, n int64
		zeroed   []int // buf cells reset
		clears   []clearCall
	}{
		{"inside", 2, 3, []int{2, 3, 4}, []clearCall{{"buf", 2, 3}}},
		{"whole register", 0, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}, []clearCall{{"buf", 0, 8}}},
		{"past the end", 6, 5, []int{6, 7}, []clearCall{{"buf", 6, 2}}},
		{"before the start", -1, 3, []int{0, 1}, []clearCall{{"buf", 0, 2}}},
		{"wholly before the start", -5, 3, nil, nil},
		{"start at the end", 8, 3, nil, nil},
		{"zero cells", 3, 0, nil, nil},
		{"negative cells", 3, -2, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &clearTracer{}
			x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
			x.Tracer = tr
			for i := 0; i < x.State.Regs[buf.Index].Len(); i++ {
				x.State.Regs[buf.Index].Set(i, int64(0xa0b0c000+i))
			}
			for i := 0; i < x.State.Regs[pr.Index].Len(); i++ {
				x.State.Regs[pr.Index].Set(i, int64(0x100000000*(10+i)+20+i)) // hi 10+i, lo 20+i
			}
			x.PHV = make([]int64, len(p.Fields))
			x.PHV[p.Field("meta.start").Slot] = c.start
			x.PHV[p.Field("meta.n").Slot] = c.n
			x.RunControl(p.Ingress)
			if x.PHV[p.Field("meta.after").Slot] != 1 {
				t.Fatal("the statements after clear() did not run")
			}
			for i, v := range x.State.Regs[buf.Index].Values() {
				want := int64(0xa0b0c000 + i)
				for _, z := range c.zeroed {
					if z == i {
						want = 0
					}
				}
				if v != want {
					t.Errorf("buf[%d] = %#x, want %#x", i, v, want)
				}
			}
			// reset() cleared pr cells 1 and 2: both halves back to init
			// (hi 5, lo 7); cells 0 and 3 kept theirs.
			wantPr := []int64{0xa00000014, 0x500000007, 0x500000007, 0xd00000017}
			if got := x.State.Regs[pr.Index].Values(); !reflect.DeepEqual(got, wantPr) {
				t.Errorf("pr %#x, want %#x", got, wantPr)
			}
			want := append(c.clears, clearCall{"pr", 1, 2})
			if !reflect.DeepEqual(tr.clears, want) {
				t.Errorf("tracer saw clears %v, want %v", tr.clears, want)
			}
		})
	}

	// A timer thread clears its own cell of the 1-bit register; egress
	// clears all four inside an if; both without a packet's headers being
	// needed for the range.
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	tr := &clearTracer{}
	x.Tracer = tr
	x.State.Regs[flags.Index].Fill(0, x.State.Regs[flags.Index].Len(), 1)
	x.PHV = make([]int64, len(p.Fields))
	x.RunTimer(p.Timer("sweep"), 2)
	if got := x.State.Regs[flags.Index].Values(); !reflect.DeepEqual(got, []int64{1, 1, 0, 1}) {
		t.Errorf("after timer thread 2: flags %v, want [1 1 0 1]", got)
	}
	x.PHV = make([]int64, len(p.Fields))
	x.PHV[p.Field("eth.etype").Slot] = 1
	x.RunControl(p.Egress)
	if got := x.State.Regs[flags.Index].Values(); !reflect.DeepEqual(got, []int64{0, 0, 0, 0}) {
		t.Errorf("after egress: flags %v, want all 0", got)
	}
	if want := []clearCall{{"flags", 2, 1}, {"flags", 0, 4}}; !reflect.DeepEqual(tr.clears, want) {
		t.Errorf("tracer saw clears %v, want %v", tr.clears, want)
	}
}
