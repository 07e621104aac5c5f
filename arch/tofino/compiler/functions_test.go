package compiler

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"archsim/arch/tofino/spec"
	"archsim/programs"
)

// withFunctions builds a program from testdata/base.yaml with a functions
// section (name: code) and the given ingress code after route.apply().
func withFunctions(t *testing.T, fns [][2]string, ingress string) (*programs.Program, error) {
	t.Helper()
	s := string(mustReadFile(t, "testdata/base.yaml"))
	var b strings.Builder
	if len(fns) > 0 {
		b.WriteString("functions:\n")
		for _, f := range fns {
			b.WriteString("  " + f[0] + ": |\n")
			for _, l := range strings.Split(strings.TrimSpace(f[1]), "\n") {
				b.WriteString("    " + l + "\n")
			}
		}
	}
	s = strings.Replace(s, "ingress: |\n", b.String()+"ingress: |\n", 1)
	s = strings.Replace(s, "#INGRESS", indent(ingress), 1)
	s = strings.Replace(s, "#EGRESS", "", 1)
	s = strings.Replace(s, "#EXTRA", "", 1)
	return programs.Load([]byte(s), "base.yaml", nil)
}

// ltShape is what placement decided for one logical table, without the
// source lines that name implicit tables.
type ltShape struct {
	Kind    LTKind
	Gress   spec.Gress
	Table   string
	Stmts   int
	Stage   int
	Res     Resources
	Regs    int
	Path    int
	Actions int
}

func shapes(p *Placement) []ltShape {
	var out []ltShape
	for _, lt := range p.LTs {
		s := ltShape{Kind: lt.Kind, Gress: lt.Gress, Stmts: len(lt.Stmts), Stage: lt.Stage, Res: lt.Res,
			Regs: len(lt.Regs), Path: len(lt.Path), Actions: len(lt.Actions)}
		if lt.Table != nil {
			s.Table = lt.Table.Name
		}
		out = append(out, s)
	}
	return out
}

// TestFunctionInlinedPlacement: a program whose ingress calls functions
// (nested, one under an if, one whose statements join the caller's
// implicit table) places exactly as the same program with the bodies
// written inline: same logical tables, stages, per-stage resources,
// totals and latency.
func TestFunctionInlinedPlacement(t *testing.T) {
	fns := [][2]string{
		{"body", "prep()\nt2.apply()\nif ip.ttl == 1 {\n  stamp()\n} else {\n  meta.c = ip.dst\n}"},
		{"prep", "meta.a = ip.src\nmeta.f = 1"},
		{"stamp", "meta.b = r.read(0)\nif meta.f == 1 {\n  meta.d = meta.b\n}"},
	}
	withCalls, err := withFunctions(t, fns, "meta.c = 5\nbody()\nmeta.d = meta.d + 1")
	if err != nil {
		t.Fatal(err)
	}
	if d := withCalls.CallDepth(); d != 2 {
		t.Fatalf("CallDepth %d, want 2", d)
	}
	inline, err := withFunctions(t, nil,
		"meta.c = 5\nmeta.a = ip.src\nmeta.f = 1\nt2.apply()\nif ip.ttl == 1 {\n  meta.b = r.read(0)\n  if meta.f == 1 {\n    meta.d = meta.b\n  }\n} else {\n  meta.c = ip.dst\n}\nmeta.d = meta.d + 1")
	if err != nil {
		t.Fatal(err)
	}
	c := chip(t)
	a, err := Place(c, withCalls)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Place(c, inline)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shapes(a), shapes(b)) {
		t.Fatalf("logical tables differ:\nfunctions %+v\ninline    %+v", shapes(a), shapes(b))
	}
	// The caller's meta.c = 5 and prep's two assignments share one implicit
	// table, as they would written inline.
	if a.LTs[1].Kind != KindKeyless || len(a.LTs[1].Stmts) != 3 {
		t.Fatalf("first implicit table holds %d statements, want 3 (caller + inlined prep)", len(a.LTs[1].Stmts))
	}
	if a.StagesUsed != b.StagesUsed || a.Totals != b.Totals || a.VLIWRows != b.VLIWRows || a.Pct != b.Pct ||
		a.MAUCycles != b.MAUCycles || a.RawMAU != b.RawMAU {
		t.Fatalf("placement differs: functions %d stages %+v %v cycles, inline %d stages %+v %v cycles",
			a.StagesUsed, a.Totals, a.MAUCycles, b.StagesUsed, b.Totals, b.MAUCycles)
	}
	if len(a.Stages) != len(b.Stages) {
		t.Fatalf("%d stages vs %d", len(a.Stages), len(b.Stages))
	}
	for i := range a.Stages {
		sa, sb := a.Stages[i], b.Stages[i]
		if sa.Res != sb.Res || sa.Dep != sb.Dep || sa.PipeLen != sb.PipeLen || !reflect.DeepEqual(sa.Objects, sb.Objects) ||
			len(sa.LTs[spec.Ingress]) != len(sb.LTs[spec.Ingress]) || len(sa.LTs[spec.Egress]) != len(sb.LTs[spec.Egress]) {
			t.Fatalf("stage %d differs: %+v vs %+v", i, sa.Res, sb.Res)
		}
	}
	t.Logf("%d stages, %d logical tables", a.StagesUsed, len(a.LTs))
	if a.StagesUsed < 2 {
		t.Fatalf("test program uses %d stages; it should have a dependency chain", a.StagesUsed)
	}
}

// TestFunctionCalledTwice: a function is lowered at each call site, so a
// table applied in a function called twice is applied twice (rejected),
// while a function of plain statements called twice is fine.
func TestFunctionCalledTwice(t *testing.T) {
	p, err := withFunctions(t, [][2]string{{"lookup", "t2.apply()"}}, "lookup()\nmeta.b = 1\nlookup()")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Place(chip(t), p)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RuleTableOnce {
		t.Fatalf("got %v, want rule %s", err, RuleTableOnce)
	}
	q, err := withFunctions(t, [][2]string{{"bump", "meta.a = meta.a + 1"}}, "bump()\nbump()")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := Place(chip(t), q)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, lt := range pl.LTs {
		for _, s := range lt.Stmts {
			if a, ok := s.(*programs.AssignStmt); ok && a.Dst.Field.Name == "meta.a" {
				n++
			}
		}
	}
	if n != 2 {
		t.Fatalf("bump lowered %d times, want 2", n)
	}
}

// TestFunctionRecursion: the loader rejects recursion; a recursive program
// built by hand is rejected by placement instead of looping forever.
func TestFunctionRecursion(t *testing.T) {
	_, err := withFunctions(t, [][2]string{{"f", "g()"}, {"g", "if meta.f == 1 {\n  f()\n}"}}, "f()")
	if err == nil || !strings.Contains(err.Error(), "recursion: f -> g -> f") {
		t.Fatalf("got %v, want a recursion error", err)
	}
	p, err := withFunctions(t, [][2]string{{"f", "meta.a = 1"}}, "f()")
	if err != nil {
		t.Fatal(err)
	}
	f := p.Functions[0]
	f.Body = append(f.Body, &programs.IfStmt{Cond: &programs.FieldExpr{F: p.Field("meta.f")},
		Then: []programs.Stmt{&programs.CallStmt{Fn: f}}})
	_, err = Place(chip(t), p)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RuleNoLoops || !strings.Contains(pe.Msg, "recursion") {
		t.Fatalf("got %v, want a %s error about recursion", err, RuleNoLoops)
	}
}
