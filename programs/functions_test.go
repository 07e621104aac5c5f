package programs

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// fnProgram is a program with functions: outer is declared before the
// functions it calls (forward references), inner applies a table and calls
// leaf, which runs a register action; count is called under an if.
const fnProgram = `program: fns
headers:
  eth: {dst: 48, src: 48, etype: 16}
  ip: {ttl: 8, proto: 8, src: 32, dst: 32}
metadata:
  a: 32
  b: 32
  c: 32
parser:
  start: s
  states:
    s:
      extract: eth
      select: eth.etype
      transitions: {0x0800: ip, default: accept}
    ip:
      extract: ip
registers:
  r:
    width: 32
    size: 4
    actions:
      inc: |
        value = value + 1
        out = value
meters:
  m: {size: 8, unit: bytes, cir: 1e9, pir: 2e9, cbs: 3000, pbs: 6000}
counters:
  cnt: {size: 4}
actions:
  fwd:
    params: {port: 9}
    do: |
      std.egress_port = port
      ip.ttl = ip.ttl - 1
tables:
  route:
    key: {ip.dst: exact}
    actions: [fwd]
    entries:
      - {key: 10.0.0.1, action: fwd(5)}
functions:
  outer: |
    meta.a = 7
    inner()
    if meta.b == 8 {
      tally()
    }
  inner: |
    route.apply()
    meta.b = meta.a + 1
    leaf()
  leaf: |
    meta.c = r.inc(0)
  tally: |
    cnt.count(0)
  unused: |
    drop()
ingress: |
  outer()
egress: |
  meta.a = 0
traffic:
  - ports: [0]
    sizes: [64]
    headers:
      eth: {etype: 0x0800}
      ip: {ttl: 64, src: 10.1.2.3, dst: 10.0.0.1}
`

func loadFn(t *testing.T, edit func(string) string) (*Program, error) {
	t.Helper()
	src := fnProgram
	if edit != nil {
		src = edit(src)
	}
	return Load([]byte(src), "fns.yaml", nil)
}

func lineOf(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%q not in the source", text)
	return 0
}

func TestFunctionsLoad(t *testing.T) {
	p, err := loadFn(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range p.Functions {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "outer,inner,leaf,tally,unused" {
		t.Fatalf("functions %s, want declaration order", got)
	}
	outer, inner := p.Function("outer"), p.Function("inner")
	if outer.Pos.Line != lineOf(t, fnProgram, "  outer: |") || outer.Pos.File != "fns.yaml" {
		t.Fatalf("outer at %v", outer.Pos)
	}
	// The forward reference resolves to the function object itself.
	call, ok := outer.Body[1].(*CallStmt)
	if !ok || call.Fn != inner {
		t.Fatalf("outer's second statement is %#v, want a call of inner", outer.Body[1])
	}
	if call.Position().Line != lineOf(t, fnProgram, "    inner()") {
		t.Fatalf("call at line %d", call.Position().Line)
	}
	if _, ok := p.Ingress.Body[0].(*CallStmt); !ok || len(p.Ingress.Body) != 1 {
		t.Fatalf("ingress body %#v", p.Ingress.Body)
	}
	// ingress -> outer -> inner -> leaf.
	if d := p.CallDepth(); d != 3 {
		t.Fatalf("CallDepth %d, want 3", d)
	}
}

func TestCallDepth(t *testing.T) {
	cases := []struct {
		ingress, egress string
		want            int
	}{
		{"meta.b = 1", "meta.a = 0", 0},                 // functions declared, none called
		{"leaf()", "meta.a = 0", 1},                     // a call from ingress is depth 1
		{"inner()", "meta.a = 0", 2},                    // inner calls leaf
		{"meta.b = 1", "tally()", 1},                    // egress counts too
		{"if meta.b == 1 {\n  outer()\n}", "leaf()", 3}, // calls under an if
	}
	for _, c := range cases {
		p, err := loadFn(t, func(s string) string {
			s = strings.Replace(s, "ingress: |\n  outer()\n", "ingress: |\n"+indent2(c.ingress)+"\n", 1)
			return strings.Replace(s, "egress: |\n  meta.a = 0\n", "egress: |\n"+indent2(c.egress)+"\n", 1)
		})
		if err != nil {
			t.Fatal(err)
		}
		if d := p.CallDepth(); d != c.want {
			t.Errorf("ingress %q egress %q: CallDepth %d, want %d", c.ingress, c.egress, d, c.want)
		}
	}
	plain, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.CallDepth() != 0 || len(plain.Functions) != 0 {
		t.Fatalf("a program without functions: depth %d, %d functions", plain.CallDepth(), len(plain.Functions))
	}
}

func indent2(code string) string {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// deepChain returns a program whose ingress calls f1, f1 calls f2, ...,
// f(n-1) calls fn, which sets meta.a. The functions are declared in
// reverse order (every call is a forward or backward reference).
func deepChain(n int) string {
	var b strings.Builder
	b.WriteString(strings.Split(fnProgram, "functions:\n")[0])
	b.WriteString("functions:\n")
	for i := n; i >= 1; i-- {
		fmt.Fprintf(&b, "  f%d: |\n", i)
		if i == n {
			b.WriteString("    meta.a = 42\n")
		} else {
			fmt.Fprintf(&b, "    meta.b = meta.b + 1\n    f%d()\n", i+1)
		}
	}
	b.WriteString("ingress: |\n  f1()\n")
	return b.String()
}

func TestDeepCallChain(t *testing.T) {
	p, err := Load([]byte(deepChain(10)), "deep.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Functions) != 10 || p.Functions[0].Name != "f10" {
		t.Fatalf("%d functions, first %s", len(p.Functions), p.Functions[0].Name)
	}
	if d := p.CallDepth(); d != 10 {
		t.Fatalf("CallDepth %d, want 10", d)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x.PHV = make([]int64, len(p.Fields))
	x.RunControl(p.Ingress)
	if a, b := x.PHV[p.Field("meta.a").Slot], x.PHV[p.Field("meta.b").Slot]; a != 42 || b != 9 {
		t.Fatalf("meta.a %d meta.b %d, want 42 and 9 (nine functions increment meta.b)", a, b)
	}
}

type stmtTracer struct{ stmts []Stmt }

func (r *stmtTracer) Stmt(s Stmt)                            { r.stmts = append(r.stmts, s) }
func (r *stmtTracer) Lookup(*Table, []int64, bool, *Action)  {}
func (r *stmtTracer) Register(*RegisterAction, int)          {}
func (r *stmtTracer) Meter(*Meter, int)                      {}
func (r *stmtTracer) Count(*Counter, int)                    {}
func (r *stmtTracer) Payload(int)                            {}
func (r *stmtTracer) Bulk(*Register, int, int)               {}
func (r *stmtTracer) Clear(*Register, int, int)              {}
func (r *stmtTracer) TableOp(*Table, TableOpKind, int, bool) {}

// TestFunctionInterpreter runs a packet through nested functions: fields a
// function sets are visible after the call, a table applied inside one
// runs its action, a register action and a counter inside ones work, and
// the tracer sees each call statement before the callee's statements.
func TestFunctionInterpreter(t *testing.T) {
	p, err := loadFn(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(p)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	tr := &stmtTracer{}
	x.Tracer = tr
	for i := 1; i <= 2; i++ {
		phv := make([]int64, len(p.Fields))
		head := p.Traffic[0].BuildPacket(0, 64)
		p.Parse(head, 64, phv, false, false)
		x.PHV = phv
		x.RunControl(p.Ingress)
		for name, want := range map[string]int64{"std.egress_port": 5, "ip.ttl": 63, "meta.a": 7, "meta.b": 8, "meta.c": int64(i), "std.drop": 0} {
			if got := phv[p.Field(name).Slot]; got != want {
				t.Fatalf("packet %d: %s = %d, want %d", i, name, got, want)
			}
		}
	}
	if c := st.Counters[0].Get(0); c[0] != 2 {
		t.Fatalf("counter cnt[0] counted %d packets, want 2 (tally runs under meta.b == 8)", c[0])
	}
	if st.Tables[0].Hits != 2 {
		t.Fatalf("route hits %d, want 2", st.Tables[0].Hits)
	}
	// First packet: call outer, meta.a = 7, call inner, route.apply, ...
	if len(tr.stmts) < 4 {
		t.Fatalf("traced %d statements", len(tr.stmts))
	}
	if c, ok := tr.stmts[0].(*CallStmt); !ok || c.Fn.Name != "outer" {
		t.Fatalf("first traced statement %#v, want the call of outer", tr.stmts[0])
	}
	if _, ok := tr.stmts[1].(*AssignStmt); !ok {
		t.Fatalf("second traced statement %#v, want outer's first assignment", tr.stmts[1])
	}
	if c, ok := tr.stmts[2].(*CallStmt); !ok || c.Fn.Name != "inner" {
		t.Fatalf("third traced statement %#v, want the call of inner", tr.stmts[2])
	}
	if a, ok := tr.stmts[3].(*ApplyStmt); !ok || a.Table.Name != "route" {
		t.Fatalf("fourth traced statement %#v, want route.apply()", tr.stmts[3])
	}
}

func TestFunctionErrors(t *testing.T) {
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
		line string // the error's line holds this text (if set)
	}{
		{"unknown function in ingress", rep("  outer()\negress", "  outer()\n  nosuch()\negress"),
			"ingress: unknown function nosuch", "  nosuch()"},
		{"unknown function in a function", rep("    leaf()\n", "    leaf()\n    nosuch()\n"),
			"function inner: unknown function nosuch", "    nosuch()"},
		{"direct recursion", rep("    meta.c = r.inc(0)\n", "    meta.c = r.inc(0)\n    leaf() // itself\n"),
			"function leaf: recursion: leaf -> leaf", "leaf() // itself"},
		{"indirect recursion", rep("    cnt.count(0)\n", "    cnt.count(0)\n    if meta.a == 1 {\n      outer()\n    }\n"),
			"function tally: recursion: outer -> tally -> outer", "      outer()"},
		{"three-function cycle", rep("    meta.c = r.inc(0)\n", "    meta.c = r.inc(0)\n    outer()\n"),
			"function leaf: recursion: outer -> inner -> leaf -> outer", ""},
		{"clash with an action", rep("  unused: |", "  fwd: |"), `function "fwd": the name is already used by an action`, "  fwd: |"},
		{"clash with a table", rep("  unused: |", "  route: |"), `function "route": the name is already used by a table`, ""},
		{"clash with a register", rep("  unused: |", "  r: |"), `function "r": the name is already used by a register`, ""},
		{"clash with a meter", rep("  unused: |", "  m: |"), `function "m": the name is already used by a meter`, ""},
		{"clash with a counter", rep("  unused: |", "  cnt: |"), `function "cnt": the name is already used by a counter`, ""},
		{"clash with a header", rep("  unused: |", "  ip: |"), `function "ip": the name is already used by a header`, ""},
		{"built-in statement drop", rep("  unused: |", "  drop: |"), `function name "drop" is a built-in statement`, "  drop: |"},
		{"built-in statement mirror", rep("  unused: |", "  mirror: |"), `function name "mirror" is a built-in statement`, ""},
		{"built-in function", rep("  unused: |", "  hash: |"), `function name "hash" is a built-in function`, ""},
		{"cast name", rep("  unused: |", "  bit16: |"), `function name "bit16" is a built-in function`, ""},
		{"keyword", rep("  unused: |", "  func: |"), "reserved word", ""},
		{"call in an action", rep("      ip.ttl = ip.ttl - 1\n", "      ip.ttl = ip.ttl - 1\n      leaf()\n"),
			"action fwd: function leaf cannot be called inside an action: functions are control flow", "      leaf()"},
		{"call in a register action", rep("        out = value\n", "        out = value\n        tally()\n"),
			"register r action inc: function tally cannot be called inside a register action", "        tally()"},
		{"arguments", rep("    inner()\n", "    inner(1)\n"), "function inner takes no arguments", "    inner(1)"},
		{"used as a value", rep("    meta.c = r.inc(0)\n", "    meta.c = tally()\n"), "function tally returns no value", ""},
		{"body not code", rep("  unused: |\n    drop()\n", "  unused: {do: x}\n"), "a function's body is control code", ""},
		{"duplicate function", rep("  unused: |", "  leaf: |"), `duplicate key "leaf"`, ""},
		{"unknown top key", func(s string) string { return s + "function:\n  x: drop()\n" }, `unknown key "function"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.edit(fnProgram)
			_, err := Load([]byte(src), "fns.yaml", nil)
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Fatalf("error %q does not contain %q", msg, c.want)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "fns.yaml:") {
				t.Fatalf("error does not name file:line: %q", msg)
			}
			if c.line != "" {
				e, ok := err.(*Error)
				if want := lineOf(t, src, c.line); !ok || e.Pos.Line != want {
					t.Fatalf("error %q at line %d, want line %d", msg, e.Pos.Line, want)
				}
			}
		})
	}
}

// TestFunctionsMappingRequired: functions must be a mapping of name to code.
func TestFunctionsMappingRequired(t *testing.T) {
	src := strings.Split(fnProgram, "functions:\n")[0] + "functions: [a]\ningress: |\n  meta.a = 1\n"
	_, err := Load([]byte(src), "fns.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "functions: expected a mapping") || !strings.HasPrefix(err.Error(), "fns.yaml:") {
		t.Fatalf("got %v", err)
	}
}
