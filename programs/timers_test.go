package programs

import (
	"math/rand"
	"strings"
	"testing"
)

// tmProgram has two timers: scan (four threads, period and thread count
// written as constant expressions) marks register cell timer_index through
// a function; tick (defaults: one thread) counts and reads a table.
// Ingress reads std.timer_index too (0 in a packet thread).
const tmProgram = `program: timers
constants:
  PERIOD: 1000
  N: 2
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  idx: 16
  v: 32
  k: 16
parser:
  start: s
  states:
    s:
      extract: eth
registers:
  seen:
    width: 32
    size: 8
    actions:
      put: |
        value = meta.v
        out = value
counters:
  ticks: {size: 2}
actions:
  note:
    params: {x: 16}
    do: meta.k = x
tables:
  cfg:
    key: {meta.idx: exact}
    actions: [note]
    entries:
      - {key: 0, action: note(7)}
functions:
  mark: |
    meta.v = bit32(std.timer_index) + 100
    seen.put(std.timer_index)
timers:
  scan:
    period_ns: PERIOD * 4
    threads: N * 2
    do: |
      meta.idx = std.timer_index
      mark()
  tick: {period_ns: 250, do: "ticks.count(0)\ncfg.apply()\nstd.egress_port = 3"}
ingress: |
  meta.idx = std.timer_index
  cfg.apply()
`

func loadTm(t *testing.T, edit func(string) string) (*Program, error) {
	t.Helper()
	src := tmProgram
	if edit != nil {
		src = edit(src)
	}
	return Load([]byte(src), "timers.yaml", nil)
}

func TestTimersLoad(t *testing.T) {
	p, err := loadTm(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Timers) != 2 || p.Timers[0].Name != "scan" || p.Timers[1].Name != "tick" {
		t.Fatalf("timers %+v, want scan and tick in declaration order", p.Timers)
	}
	scan, tick := p.Timer("scan"), p.Timer("tick")
	if scan.PeriodNs != 4000 || scan.Threads != 4 {
		t.Fatalf("scan: period %d threads %d, want 4000 and 4 (constant expressions)", scan.PeriodNs, scan.Threads)
	}
	if tick.PeriodNs != 250 || tick.Threads != 1 {
		t.Fatalf("tick: period %d threads %d, want 250 and the default 1", tick.PeriodNs, tick.Threads)
	}
	if scan.Pos.File != "timers.yaml" || scan.Pos.Line != lineOf(t, tmProgram, "  scan:") {
		t.Fatalf("scan at %v, want its name's line", scan.Pos)
	}
	if tick.Pos.Line != lineOf(t, tmProgram, "  tick: {") {
		t.Fatalf("tick at %v", tick.Pos)
	}
	if p.Timer("nosuch") != nil {
		t.Fatal("Timer of an unknown name")
	}
	if len(scan.Body) != 2 || len(tick.Body) != 3 {
		t.Fatalf("bodies: scan %d statements, tick %d", len(scan.Body), len(tick.Body))
	}
	a, ok := scan.Body[0].(*AssignStmt)
	if !ok {
		t.Fatalf("scan's first statement %#v", scan.Body[0])
	}
	if fe, ok := a.Src.(*FieldExpr); !ok || fe.F != p.Std[StdTimerIndex] || fe.F.Name != "std.timer_index" || fe.F.Type != (Type{Bits: 16}) {
		t.Fatalf("scan reads %#v, want std.timer_index (16 bits)", a.Src)
	}
	if a.Pos.Line != lineOf(t, tmProgram, "      meta.idx = std.timer_index") {
		t.Fatalf("statement at line %d", a.Pos.Line)
	}
	if c, ok := scan.Body[1].(*CallStmt); !ok || c.Fn != p.Function("mark") {
		t.Fatalf("scan's second statement %#v, want a call of mark", scan.Body[1])
	}
	// timer -> mark: the timers count for the call depth.
	if d := p.CallDepth(); d != 1 {
		t.Fatalf("CallDepth %d, want 1 (scan calls mark)", d)
	}
	info := StdFields[StdTimerIndex]
	if info.Name != "timer_index" || info.Bits != 16 || info.Doc == "" || StdFields[StdTrimDisable].Name != "trim_disable" {
		t.Fatalf("StdFields entry %+v", info)
	}
	// A program without timers has none.
	plain, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Timers) != 0 || plain.Field("std.timer_index") == nil {
		t.Fatalf("plain program: %d timers, std.timer_index %v", len(plain.Timers), plain.Field("std.timer_index"))
	}
}

// TestRunTimer runs every thread of scan: thread i writes 100+i into cell i
// through the function it calls; tick runs a counter, a table and writes
// egress_port with no packet.
func TestRunTimer(t *testing.T) {
	p, err := loadTm(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(p)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	tr := &payloadTracer{}
	x.Tracer = tr
	scan := p.Timer("scan")
	slot := p.Std[StdTimerIndex].Slot
	for i := 0; i < scan.Threads; i++ {
		x.PHV = make([]int64, len(p.Fields))
		x.RunTimer(scan, i)
		if got := x.PHV[slot]; got != int64(i) {
			t.Fatalf("thread %d: std.timer_index %d", i, got)
		}
		if got := x.PHV[p.Field("meta.idx").Slot]; got != int64(i) {
			t.Fatalf("thread %d: meta.idx %d", i, got)
		}
	}
	want := []int64{100, 101, 102, 103, 0, 0, 0, 0}
	for i, w := range want {
		if st.Regs[0].Get(i) != w {
			t.Fatalf("register seen = %v, want %v", st.Regs[0].Values(), want)
		}
	}
	if tr.stmts == 0 {
		t.Fatal("the tracer saw no statement of the timer threads")
	}
	x.PHV = make([]int64, len(p.Fields))
	x.RunTimer(p.Timer("tick"), 0)
	if st.Counters[0].Get(0)[0] != 1 || st.Tables[0].Hits != 1 {
		t.Fatalf("tick: counter %v, cfg hits %d", st.Counters[0].Get(0), st.Tables[0].Hits)
	}
	if x.PHV[p.Field("meta.k").Slot] != 7 || x.PHV[p.Std[StdEgressPort].Slot] != 3 {
		t.Fatal("tick's table action or its egress_port write did not run")
	}
	// A packet thread reads 0.
	x.PHV = make([]int64, len(p.Fields))
	x.PHV[p.Field("meta.idx").Slot] = 9
	x.RunControl(p.Ingress)
	if x.PHV[p.Field("meta.idx").Slot] != 0 || x.PHV[p.Field("meta.k").Slot] != 7 {
		t.Fatal("ingress: std.timer_index should read 0")
	}
}

func TestTimerErrors(t *testing.T) {
	rep := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				t.Fatalf("test edit: %q not in the program", old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	tick := `  tick: {period_ns: 250, do: "ticks.count(0)\ncfg.apply()\nstd.egress_port = 3"}`
	cases := []struct {
		name string
		edit func(string) string
		want string
		line string // the error's line holds this text (if set)
	}{
		{"missing do", rep(tick, "  tick: {period_ns: 250}"), "timers tick: missing do (the timer's control code)", "  tick: {"},
		{"missing period", rep(tick, "  tick: {do: drop()}"), "timers tick: missing period_ns", "  tick: {"},
		{"zero period", rep("period_ns: 250", "period_ns: 0"), "timers tick period_ns: must be 1..1000000000000 ns (1000 s), got 0", "  tick: {"},
		{"period past the clock", rep("period_ns: 250", "period_ns: 10000000000000000"), "timers tick period_ns: must be 1..1000000000000 ns (1000 s), got 10000000000000000", "  tick: {"},
		{"negative period", rep("    period_ns: PERIOD * 4", "    period_ns: -PERIOD"), "period_ns: must be 1..1000000000000 ns (1000 s), got -1000", "    period_ns: -PERIOD"},
		{"fractional period", rep("period_ns: 250", "period_ns: 2.5"), "expected an integer", ""},
		{"bad period", rep("period_ns: 250", "period_ns: soon"), "timers tick period_ns", ""},
		{"zero threads", rep("    threads: N * 2", "    threads: N - 2"), "threads must be 1..65536 (std.timer_index is 16 bits), got 0", "    threads: N - 2"},
		{"too many threads", rep("    threads: N * 2", "    threads: 65537"), "threads must be 1..65536", ""},
		{"unknown key", rep("    threads: N * 2", "    thread: 2"), `timers scan: unknown key "thread" (allowed: period_ns, threads, do)`, "    thread: 2"},
		{"not a mapping", rep(tick, "  tick: |\n    drop()"), "a timer is a mapping {period_ns: N, threads: K, do: code}", "  tick: |"},
		{"do not code", rep(tick, "  tick: {period_ns: 250, do: [a]}"), "a timer's do is control code", ""},
		{"timers not a mapping", func(s string) string {
			return strings.Split(s, "timers:\n")[0] + "timers: [a]\ningress: |\n  meta.idx = 0\n"
		}, "timers: expected a mapping", "timers: [a]"},
		{"syntax error", rep("      mark()\n", "      mark()\n      meta.v = = 1\n"), "timer scan: syntax error", "      meta.v = = 1"},
		{"unknown field", rep("      mark()\n", "      mark()\n      meta.nosuch = 1\n"), "timer scan: undefined field meta.nosuch", "      meta.nosuch = 1"},
		{"clash with a function", rep("  tick: {", "  mark: {"), `timer "mark": the name is already used by a function`, "  mark: {"},
		{"clash with an action", rep("  tick: {", "  note: {"), `timer "note": the name is already used by an action`, "  note: {"},
		{"clash with a table", rep("  tick: {", "  cfg: {"), `timer "cfg": the name is already used by a table`, ""},
		{"clash with a register", rep("  tick: {", "  seen: {"), `timer "seen": the name is already used by a register`, ""},
		{"clash with a counter", rep("  tick: {", "  ticks: {"), `timer "ticks": the name is already used by a counter`, ""},
		{"clash with a meter", func(s string) string {
			return rep("counters:\n", "meters:\n  mtr: {size: 8, unit: bytes, cir: 1e9, pir: 2e9, cbs: 3000, pbs: 6000}\ncounters:\n")(rep("  tick: {", "  mtr: {")(s))
		}, `timer "mtr": the name is already used by a meter`, ""},
		{"clash with a header", rep("  tick: {", "  eth: {"), `timer "eth": the name is already used by a header`, ""},
		{"clash with a constant", rep("  tick: {", "  PERIOD: {"), `timer "PERIOD": the name is already used by a constant`, ""},
		{"built-in statement", rep("  tick: {", "  drop: {"), `timer name "drop" is a built-in statement`, ""},
		{"built-in function", rep("  tick: {", "  payload32: {"), `timer name "payload32" is a built-in function`, ""},
		{"reserved", rep("  tick: {", "  meta: {"), `timer name "meta" is reserved`, ""},
		{"keyword", rep("  tick: {", "  for: {"), "reserved word", ""},
		{"duplicate timer", rep("  tick: {", "  scan: {"), `duplicate key "scan"`, ""},
		{"called from ingress", rep("  cfg.apply()\n", "  cfg.apply()\n  scan()\n"),
			"ingress: scan is a timer, not a function: its threads start every period_ns and cannot be called", "  scan()"},
		{"called from a function", rep("    seen.put(std.timer_index)\n", "    seen.put(std.timer_index)\n    tick()\n"),
			"function mark: tick is a timer, not a function", "    tick()"},
		{"called from a timer", rep("      mark()\n", "      mark()\n      tick()\n"), "timer scan: tick is a timer, not a function", "      tick()"},
		{"called from an action", rep("    do: meta.k = x", "    do: tick()"), "action note: tick is a timer, not a function", ""},
		{"used as a value", rep("  cfg.apply()\n", "  cfg.apply()\n  meta.v = scan()\n"), "ingress: scan is a timer, not a function", "  meta.v = scan()"},
		{"timer_index written", rep("  cfg.apply()\n", "  cfg.apply()\n  std.timer_index = 1\n"),
			"ingress: std.timer_index is read-only", "  std.timer_index = 1"},
		{"timer_index written by a timer", rep("      mark()\n", "      mark()\n      std.timer_index += 1\n"),
			"timer scan: std.timer_index is read-only", ""},
		{"unknown top key", func(s string) string { return s + "timer:\n  x: {period_ns: 1, do: drop()}\n" }, `unknown key "timer"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.edit(tmProgram)
			_, err := Load([]byte(src), "timers.yaml", nil)
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
			if !strings.HasPrefix(msg, "timers.yaml:") {
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

// TestEmptyTimer: `do:` with no code is a timer that does nothing.
func TestEmptyTimer(t *testing.T) {
	p, err := loadTm(t, func(s string) string {
		return strings.Replace(s, `  tick: {period_ns: 250, do: "ticks.count(0)\ncfg.apply()\nstd.egress_port = 3"}`, "  tick:\n    period_ns: 250\n    do:", 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if tk := p.Timer("tick"); tk == nil || len(tk.Body) != 0 {
		t.Fatalf("tick %+v", tk)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x.PHV = make([]int64, len(p.Fields))
	x.RunTimer(p.Timer("tick"), 0)
}
