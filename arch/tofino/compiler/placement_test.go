package compiler

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"archsim/arch/tofino/spec"
	"archsim/configs"
	"archsim/programs"
)

func chip(t testing.TB, sets ...string) *spec.Config {
	t.Helper()
	l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml"}, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// variant builds a test program from testdata/base.yaml: ingress and egress
// code appended to the base control flow, extra top-level YAML replacing
// sections (it is spliced where #EXTRA stands).
func variant(t testing.TB, ingress, egress, extra string) *programs.Program {
	t.Helper()
	return variantExtra(t, ingress, egress, extra)
}

func indent(code string) string {
	lines := strings.Split(strings.TrimSpace(code), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// TestRules has one program per placement rule that breaks it; the error
// must name the rule.
func TestRules(t *testing.T) {
	cases := []struct {
		name            string
		ingress, egress string
		extra           string
		rule            Rule
		want            string
		sets            []string
	}{
		{name: "stage-local memory", ingress: "meta.b = r.read(0)\nmeta.a = meta.b + 1\nmeta.c = r.add(0)",
			rule: RuleStageLocal, want: "register r is accessed more than once per packet"},
		{name: "register in two threads", ingress: "meta.b = r.read(0)", egress: "meta.c = r.read(0)",
			rule: RuleRegisterGress, want: "register r is used by"},
		{name: "loop", ingress: "for meta.a = 0; meta.a < 4; meta.a = meta.a + 1 {\n  meta.b = meta.b + 1\n}",
			rule: RuleNoLoops, want: "loops are not possible"},
		{name: "multiply", ingress: "meta.a = meta.b * meta.c", rule: RuleALUMultiply, want: "no multiplier"},
		{name: "multiply by 3", ingress: "meta.a = meta.b * 3", rule: RuleALUMultiply},
		{name: "variable shift", ingress: "meta.a = meta.b << meta.c", rule: RuleALUShift},
		{name: "two operations", ingress: "meta.a = meta.b + meta.c + meta.d", rule: RuleALUComplexity},
		{name: "register width", extra: "XREG:\n  wide:\n    width: 48\n    size: 4\n    actions:\n      read: out = value\n",
			ingress: "ip.src = bit32(wide.read(0))", rule: RuleRegisterWidth, want: "at most 32 bits"},
		{name: "five register actions", extra: "XREG:\n  five:\n    width: 8\n    size: 4\n    actions:\n      a1: value = 1\n      a2: value = 2\n      a3: value = 3\n      a4: value = 4\n      a5: value = 5\n",
			rule: RuleRegisterActions},
		{name: "register action complexity", extra: "XREG:\n  cx:\n    width: 32\n    size: 4\n    actions:\n      bad: value = value + meta.a + meta.b\n",
			ingress: "cx.bad(0)", rule: RuleSALUComplexity},
		{name: "register action multiply", extra: "XREG:\n  mx:\n    width: 32\n    size: 4\n    actions:\n      bad: value = value << 2\n",
			ingress: "mx.bad(0)", rule: RuleSALUComplexity, want: "no multiplier or shifter"},
		{name: "three comparisons", extra: "XREG:\n  cm:\n    width: 32\n    size: 4\n    actions:\n      bad: |\n        if value > meta.a && value < meta.b && value != 7 {\n          value = 0\n        }\n",
			ingress: "cm.bad(0)", rule: RuleSALUComparators},
		{name: "three inputs", extra: "XREG:\n  in3:\n    width: 32\n    size: 4\n    actions:\n      bad: |\n        if meta.a > meta.b {\n          value = meta.c\n        }\n",
			ingress: "in3.bad(0)", rule: RuleSALUInputs},
		{name: "wide input", extra: "XREG:\n  w48:\n    width: 32\n    size: 4\n    actions:\n      bad: |\n        if std.tstamp > 5 {\n          value = 1\n        }\n",
			ingress: "w48.bad(0)", rule: RuleSALUInputs, want: "slice it"},
		{name: "five constants", extra: "XREG:\n  k5:\n    width: 32\n    size: 4\n    actions:\n      bad: |\n        if value > 100 {\n          value = 200\n        } else {\n          value = 300\n        }\n        if meta.a == 400 {\n          out = 500\n        }\n",
			ingress: "k5.bad(0)", rule: RuleSALUConstants},
		{name: "assign twice", extra: "XREG:\n  a2:\n    width: 32\n    size: 4\n    actions:\n      bad: |\n        value = value + 1\n        value = value + 2\n",
			ingress: "a2.bad(0)", rule: RuleSALUAssignOnce},
		{name: "queue depth in ingress", ingress: "meta.a = bit32(std.enq_qdepth)", rule: RuleIntrinsic, want: "queue state reaches only egress"},
		{name: "egress sets egress port", egress: "std.egress_port = 3", rule: RuleIntrinsic},
		{name: "two registers in one action", extra: "XACT:\n  both: |\n    meta.b = r.read(0)\n    meta.c = q.read(0)\n",
			ingress: "t3.apply()", rule: RuleOneStateful},
		{name: "table applied twice", ingress: "route.apply()", rule: RuleTableOnce},
		{name: "32-bit range key", extra: "XTAB:\n  wide_range:\n    key: {ip.src: range}\n    actions: [fwd]\n", ingress: "wide_range.apply()",
			rule: RuleRangeKey},
		{name: "too few stages", ingress: "meta.a = ip.src\nt2.apply()", sets: []string{"tofino.mau.stages=1"}, rule: RuleStageBudget},
		{name: "no stateful ALUs", ingress: "meta.b = r.read(0)", sets: []string{"tofino.mau.meter_alus=0"}, rule: RuleStageBudget, want: "stateful/meter ALUs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			extra := c.extra
			prog := variantExtra(t, c.ingress, c.egress, extra)
			_, err := Place(chip(t, c.sets...), prog)
			var pe *PlacementError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a placement error (rule %s)", err, c.rule)
			}
			if pe.Rule != c.rule {
				t.Fatalf("rule %s (%s), want %s", pe.Rule, pe.Msg, c.rule)
			}
			if c.want != "" && !strings.Contains(pe.Error(), c.want) {
				t.Fatalf("%q does not contain %q", pe.Error(), c.want)
			}
			if strings.Contains(pe.Error(), "\n") {
				t.Fatalf("error is not one line: %q", pe.Error())
			}
		})
	}
}

// variantExtra splices extra registers (XREG), actions (XACT) or tables
// (XTAB) into the base program.
func variantExtra(t testing.TB, ingress, egress, extra string) *programs.Program {
	t.Helper()
	data, err := os.ReadFile("testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = strings.Replace(s, "#INGRESS", indent(ingress), 1)
	s = strings.Replace(s, "#EGRESS", indent(egress), 1)
	s = strings.Replace(s, "#EXTRA", "", 1)
	switch {
	case strings.HasPrefix(extra, "XREG:\n"):
		s = strings.Replace(s, "registers:\n", "registers:\n"+strings.TrimPrefix(extra, "XREG:\n"), 1)
	case strings.HasPrefix(extra, "XACT:\n"):
		s = strings.Replace(s, "actions:\n  fwd:", "actions:\n"+strings.TrimPrefix(extra, "XACT:\n")+"  fwd:", 1)
		s = strings.Replace(s, "tables:\n", "tables:\n  t3:\n    key: {ip.src: exact}\n    actions: [both]\n", 1)
	case strings.HasPrefix(extra, "XTAB:\n"):
		s = strings.Replace(s, "tables:\n", "tables:\n"+strings.TrimPrefix(extra, "XTAB:\n"), 1)
	}
	p, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDependencyKinds checks stage distances: a match dependency and an
// action dependency each need the next stage; independent tables share a
// stage; mutually exclusive accesses to one register share its stage.
func TestDependencyKinds(t *testing.T) {
	c := chip(t)
	p, err := Place(c, variant(t, "meta.a = ip.src\nt2.apply()\nmeta.b = meta.a\nmeta.c = ip.dst", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	stage := map[string]int{}
	for _, lt := range p.LTs {
		stage[lt.Name] = lt.Stage
	}
	if stage["route"] != 0 || stage["t2"] != 1 {
		t.Fatalf("route/t2 stages %d/%d, want 0/1 (t2 matches on meta.a written in stage 0)", stage["route"], stage["t2"])
	}
	// meta.b = meta.a is an action dependency on stage 0; meta.c = ip.dst has
	// none and joins the same implicit table (no conflict).
	for name, s := range stage {
		if strings.HasPrefix(name, "ingress.act@") && s > 1 {
			t.Fatalf("%s in stage %d", name, s)
		}
	}
	ex, err := Place(c, variant(t, "if ip.ttl == 1 {\n  meta.b = r.read(0)\n} else {\n  meta.a = ip.src\n  meta.c = r.add(1)\n}", "", ""))
	if err != nil {
		t.Fatalf("exclusive accesses must share the register's stage: %v", err)
	}
	var stages []int
	for _, lt := range ex.LTs {
		if len(lt.Regs) > 0 {
			stages = append(stages, lt.Stage)
		}
	}
	if len(stages) != 2 || stages[0] != stages[1] || stages[0] != 1 {
		t.Fatalf("register accesses in stages %v, want both in stage 1 (after meta.a)", stages)
	}
}

// TestLatencyFollowsPlacement: a longer chain of match dependencies costs
// more cycles; a faster clock makes the same cycles fewer nanoseconds.
func TestLatencyFollowsPlacement(t *testing.T) {
	c := chip(t)
	short, err := Place(c, variant(t, "meta.a = ip.src", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	long, err := Place(c, variant(t, "meta.a = ip.src\nt2.apply()\nif std.egress_port == 1 {\n  meta.b = 1\n}", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if long.MAUCycles[spec.Ingress] <= short.MAUCycles[spec.Ingress] {
		t.Fatalf("ingress MAU cycles: long chain %d, short %d", long.MAUCycles[spec.Ingress], short.MAUCycles[spec.Ingress])
	}
	// All-concurrent pipeline: base + (stages-1) x concurrent + corner turn.
	L := c.Latency
	want := L.StageBase + (c.MAU.Stages-1)*L.Concurrent + L.CornerTurn
	if short.RawMAU[spec.Ingress] != want {
		t.Fatalf("single-stage program: %d cycles, want %d", short.RawMAU[spec.Ingress], want)
	}
	if short.MAUCycles[spec.Egress] != L.MinEgressMAU {
		t.Fatalf("egress is padded to %d cycles, got %d", L.MinEgressMAU, short.MAUCycles[spec.Egress])
	}
}

func TestWhatIfKnobs(t *testing.T) {
	prog := variant(t, "", "", "")
	if _, err := Place(chip(t), prog); err != nil {
		t.Fatal(err)
	}
	q := variant(t, "meta.a = bit32(std.enq_qdepth)", "", "")
	if _, err := Place(chip(t), q); err == nil {
		t.Fatal("Tofino 1 ingress must not see queue depth")
	}
	if _, err := Place(chip(t, "tofino.features.ingress_queue_visibility=true"), q); err != nil {
		t.Fatalf("with ingress_queue_visibility: %v", err)
	}
	rfc, err := programs.Resolve("pie-rfc", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Place(chip(t), rfc); err == nil {
		t.Fatal("pie-rfc must not fit Tofino 1")
	}
	if _, err := Place(chip(t, "tofino.features.early_read_late_write=true"), rfc); err != nil {
		t.Fatalf("pie-rfc with early-read/late-write memory: %v", err)
	}
}

func TestBuiltinsPlace(t *testing.T) {
	c := chip(t)
	for _, name := range programs.Builtins() {
		prog, err := programs.Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Place(c, prog)
		if name == "pie-rfc" {
			if err == nil {
				t.Fatal("pie-rfc placed")
			}
			continue
		}
		if name == "pie-rfc-ingress" {
			// Ingress reads queue depth: only with the what-if knob.
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != RuleIntrinsic {
				t.Fatalf("pie-rfc-ingress on Tofino 1: %v, want rule %s", err, RuleIntrinsic)
			}
			continue
		}
		// The Trio-only programs: trio-ml's straggler detection needs
		// timer threads ([TRIO] §5); Protego on Trio keeps its buffers
		// in packet memory, creates packets and times out with a timer
		// thread. The first rule broken names the error.
		if rule, ok := map[string]Rule{"trio-ml": RuleTimerThreads, "protego-receiver-trio": RuleTimerThreads, "protego-sender-trio": RulePacketCreation}[name]; ok {
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != rule {
				t.Fatalf("%s on Tofino: %v, want rule %s", name, err, rule)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// switchml-256 folds four sections into switchml's 32 processor registers
// by recirculation: it places on Tofino 1 in as many stages, with the
// same stateful ALUs (32 processors, the bitmap and the countdown).
func TestSwitchML256PlacesLikeSwitchML(t *testing.T) {
	c := chip(t)
	var used [2]int
	for i, name := range []string{"switchml", "switchml-256"} {
		p, err := Place(c, builtin(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Totals.MeterALU != 34 {
			t.Errorf("%s: %d stateful ALUs, want 34", name, p.Totals.MeterALU)
		}
		used[i] = p.StagesUsed
	}
	if used[1] != used[0] || used[1] > c.MAU.Stages {
		t.Errorf("switchml-256 in %d stages, switchml in %d", used[1], used[0])
	}
}

func builtin(t *testing.T, name string) *programs.Program {
	t.Helper()
	p, err := programs.Resolve(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExactTableSizing(t *testing.T) {
	c := chip(t)
	ways := waySizes(25, 4)
	sum := 0
	for _, w := range ways {
		sum += w
	}
	if sum != 25 || ways[0] != 4 {
		t.Fatalf("ways for 25 RAMs: %v", ways)
	}
	// A 512-entry exact table on a 32-bit key costs the minimum of 4 ways
	// of one RAM each and 40 hash bits ([BFP4C] options_to_ways).
	key := &programs.Key{Bits: 32, Kind: programs.MatchExact,
		Expr: &programs.FieldExpr{F: &programs.Field{Type: programs.Type{Bits: 32}}}}
	tbl := &programs.Table{Size: 512, Keys: []*programs.Key{key}, Actions: []*programs.Action{{Name: "a"}}}
	var k ltCost
	exactCost(c, tbl, 0, 0, &k)
	if k.res.SRAM != 4 || k.res.HashBits != 40 {
		t.Fatalf("512-entry table: %d SRAM, %d hash bits; want 4 and 40", k.res.SRAM, k.res.HashBits)
	}
	r := registerCost(c, &programs.Register{Type: programs.Type{Bits: 32}, Size: 65536})
	if r.SRAM != 17 || r.MapRAM != 17 || r.MeterALU != 1 {
		t.Fatalf("65536 x 32-bit register: %+v, want 17 SRAM + 17 map RAM + 1 ALU ([BFP4C] RegisterPerWord + spare)", r)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestWhyNamesTheLine: a run of inline statements is one logical table
// named after its first line (as bf-p4c's action synthesis combines
// statements without a dependency between them); a dependency on a field
// written or read on another line of a run says which line.
func TestWhyNamesTheLine(t *testing.T) {
	c := chip(t)
	p, err := Place(c, variant(t, "meta.c = ip.dst\nmeta.a = ip.src\nt2.apply()\nmeta.d = ip.dst\nmeta.b = r.read(meta.a)", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	var first, last *LT
	for _, lt := range p.LTs {
		if strings.HasPrefix(lt.Name, "ingress.act@") {
			if first == nil {
				first = lt
			}
			last = lt
		}
	}
	if first == nil || first == last || len(first.Stmts) != 2 || len(last.Stmts) != 2 {
		t.Fatalf("want two runs of two statements, got %v and %v", first, last)
	}
	l := first.Pos.Line
	if want := fmt.Sprintf("(meta.a, written at line %d, read at line %d)", l+1, l+4); !strings.Contains(last.Why, want) {
		t.Errorf("why %q does not contain %q", last.Why, want)
	}
}
