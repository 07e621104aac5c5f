package compiler

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"archsim/arch/tofino/spec"
	"archsim/configs"
	"archsim/programs"
)

func chip2(t testing.TB) *spec.Config {
	t.Helper()
	l, err := configs.Load(configs.Source{Base: []string{"tofino.yaml", "tofino2.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// phvProgram is a small program for the packing rules: header h (parsed
// in both threads), metadata m1, m2 (1 bit), m3 (14 bits), b8 (8 bits),
// wide (extra metadata lines) and the given control code.
func phvProgram(t testing.TB, extraHeaders, extraMeta, ingress, egress string) *programs.Program {
	t.Helper()
	src := `program: phvtest
headers:
  h:
    v: 4
    l: 4
    a: 8
    b: 8
    c: 16
    mac: 48
    x: 32
` + extraHeaders + `
metadata:
  m1: 1
  m2: 1
  m3: 14
  b8: 8
` + extraMeta + `
parser:
  start: s
  states:
    s:
      extract: h
ingress: |
` + indent(ingress) + "\n"
	if egress != "" {
		src += "egress: |\n" + indent(egress) + "\n"
	}
	p, err := programs.Load([]byte(src), "phvtest.yaml", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return p
}

func placePHV(t *testing.T, c *spec.Config, p *programs.Program) *PHVUse {
	t.Helper()
	pl, err := Place(c, p)
	if err != nil {
		t.Fatal(err)
	}
	return pl.PHV
}

// containersOf lists the widths of the containers holding any piece of f
// in thread g, and their kinds.
func containersOf(u *PHVUse, g spec.Gress, f *programs.Field) (widths []int, kinds []string) {
	for pool, bins := range u.bins[g] {
		for _, b := range bins {
			for _, x := range b.units {
				for _, y := range x.fields {
					if y == f {
						widths = append(widths, spec.PHVBits[b.size])
						kinds = append(kinds, [...]string{"normal", "tagalong"}[pool])
					}
				}
			}
		}
	}
	return widths, kinds
}

func fld(t *testing.T, p *programs.Program, name string) *programs.Field {
	t.Helper()
	f := p.Field(name)
	if f == nil {
		t.Fatalf("no field %s", name)
	}
	return f
}

// Rule 1: sub-byte header fields form one unit with their neighbours up to
// a byte boundary; rule 7: header fields the MAU never touches ride in
// tagalong containers on Tofino 1, in normal ones on Tofino 2.
func TestPHVByteRunsAndTagalong(t *testing.T) {
	p := phvProgram(t, "", "", "h.a = 1", "")
	u := placePHV(t, chip(t), p)
	v, l := fld(t, p, "h.v"), fld(t, p, "h.l")
	if !u.SharesContainer(spec.Ingress, v, l) {
		t.Error("h.v and h.l (4 bits each) must share a container")
	}
	// Both written: one byte run, so one container despite rule 6.
	pw := phvProgram(t, "", "", "h.v = 1\nh.l = 2", "")
	if uw := placePHV(t, chip(t), pw); !uw.SharesContainer(spec.Ingress, fld(t, pw, "h.v"), fld(t, pw, "h.l")) {
		t.Error("h.v and h.l, both written, must stay one byte run in one container")
	}
	if w, k := u.ContainerOf(spec.Ingress, v); w != 8 || k != "tagalong" {
		t.Errorf("h.v+h.l: %d-bit %s, want an 8-bit tagalong container", w, k)
	}
	if w, k := u.ContainerOf(spec.Ingress, fld(t, p, "h.a")); w != 8 || k != "normal" {
		t.Errorf("h.a (written): %d-bit %s, want 8-bit normal", w, k)
	}
	if w, k := u.ContainerOf(spec.Ingress, fld(t, p, "h.$valid")); w != 8 || k != "normal" {
		t.Errorf("POV bit: %d-bit %s, want 8-bit normal", w, k)
	}
	u2 := placePHV(t, chip2(t), p)
	if w, k := u2.ContainerOf(spec.Ingress, v); w != 8 || k != "normal" {
		t.Errorf("Tofino 2 (no tagalong): h.v in %d-bit %s", w, k)
	}
	if u2.Ingress.Tagalong.Total() != 0 || u.Ingress.Tagalong.Total() == 0 {
		t.Errorf("tagalong use: Tofino 1 %+v, Tofino 2 %+v", u.Ingress.Tagalong, u2.Ingress.Tagalong)
	}
}

// Rule 2: a field wider than the largest container is cut into 32-bit
// pieces, the rest in the smallest container that holds it; narrower
// fields are never split.
func TestPHVWideFieldPieces(t *testing.T) {
	p := phvProgram(t, "", "", "h.mac = 5\nh.x = 6", "")
	u := placePHV(t, chip(t), p)
	if w, _ := containersOf(u, spec.Ingress, fld(t, p, "h.mac")); fmt.Sprint(w) != "[32 16]" {
		t.Errorf("48-bit h.mac in %v, want [32 16]", w)
	}
	if w, _ := containersOf(u, spec.Ingress, fld(t, p, "h.x")); fmt.Sprint(w) != "[32]" {
		t.Errorf("32-bit h.x in %v, want [32]", w)
	}
}

// Rules 3 and 4: decreasing first fit packs metadata into the free bits
// of a container of its group (m3 opens a 16-bit container, m1 and m2 fill
// it), and never mixes groups (a 1-bit metadata field stays out of the
// 16-bit container that std.ingress_port's 9 bits open).
func TestPHVFirstFitGroups(t *testing.T) {
	p := phvProgram(t, "", "", "meta.m3 = h.c[13:0]\nif meta.m1 == 1 && meta.m2 == 1 && std.ingress_port == 3 {\n  h.a = 1\n}", "")
	u := placePHV(t, chip(t), p)
	m1, m2, m3 := fld(t, p, "meta.m1"), fld(t, p, "meta.m2"), fld(t, p, "meta.m3")
	if w, _ := u.ContainerOf(spec.Ingress, m3); w != 16 || !u.SharesContainer(spec.Ingress, m3, m1) || !u.SharesContainer(spec.Ingress, m3, m2) {
		t.Errorf("m3 (%d-bit container) must share it with m1 and m2", w)
	}
	p = phvProgram(t, "", "", "if meta.m1 == 1 && std.ingress_port == 3 {\n  h.a = 1\n}", "")
	u = placePHV(t, chip(t), p)
	port := fld(t, p, "std.ingress_port")
	if w, _ := u.ContainerOf(spec.Ingress, port); w != 16 || u.SharesContainer(spec.Ingress, fld(t, p, "meta.m1"), port) {
		t.Errorf("std.ingress_port (in a %d-bit container) shares it with metadata", w)
	}
	if !u.SharesContainer(spec.Ingress, fld(t, p, "h.$valid"), fld(t, p, "h.$valid")) {
		t.Error("the POV bit is not allocated")
	}
}

// Rule 5: a field an ALU operation writes is alone in its container.
func TestPHVSolitary(t *testing.T) {
	p := phvProgram(t, "", "", "meta.m3 = meta.m3 + 1\nif meta.m1 == 1 && meta.m2 == 1 {\n  h.a = 1\n}", "")
	u := placePHV(t, chip(t), p)
	m1, m2, m3 := fld(t, p, "meta.m1"), fld(t, p, "meta.m2"), fld(t, p, "meta.m3")
	if u.SharesContainer(spec.Ingress, m3, m1) || u.SharesContainer(spec.Ingress, m3, m2) {
		t.Error("m3 (written by an add) shares its container")
	}
	if !u.SharesContainer(spec.Ingress, m1, m2) {
		t.Error("m1 and m2 (read only) must still share a container")
	}
}

// Rule 6: two fields the MAU writes do not share a container (POV bits
// excepted).
func TestPHVOneWriterPerContainer(t *testing.T) {
	p := phvProgram(t, "", "", "meta.m1 = 1\nmeta.m2 = 1\nif meta.m3 == 3 {\n  h.a = 1\n}", "")
	u := placePHV(t, chip(t), p)
	m1, m2, m3 := fld(t, p, "meta.m1"), fld(t, p, "meta.m2"), fld(t, p, "meta.m3")
	if u.SharesContainer(spec.Ingress, m1, m2) {
		t.Error("m1 and m2 are both written and share a container")
	}
	if !u.SharesContainer(spec.Ingress, m3, m1) {
		t.Error("m3 (read only) must take m1 (the first written 1-bit field) into its container")
	}
	p = phvProgram(t, "  g:\n    y: 8\n", "", "h.setInvalid()\ng.setValid()\ng.y = 1", "")
	u = placePHV(t, chip(t), p)
	if !u.SharesContainer(spec.Ingress, fld(t, p, "h.$valid"), fld(t, p, "g.$valid")) {
		t.Error("POV bits written by setValid/setInvalid must share a container")
	}
}

// wideMeta declares n 32-bit metadata fields w0..w(n-1) and code that
// either adds to each (solitary) or moves a constant into each.
func wideMeta(n int, add bool) (meta, code string) {
	var m, c strings.Builder
	for i := range n {
		fmt.Fprintf(&m, "  w%d: 32\n", i)
		if add {
			fmt.Fprintf(&c, "meta.w%d = meta.w%d + 1\n", i, i)
		} else {
			fmt.Fprintf(&c, "meta.w%d = %d\n", i, i+1)
		}
	}
	return m.String(), c.String()
}

// Rule 8 and the error: Tofino 1 gives ingress at most 48 of its 64 32-bit
// containers (group 1 is egress-only) and less when egress takes shared
// groups; a program over the limit is rejected with the rule, the thread,
// the width and the fields; Tofino 2 has no thread-only groups.
func TestPHVThreadLimits(t *testing.T) {
	c := chip(t)
	meta, code := wideMeta(48, true)
	if _, err := Place(c, phvProgram(t, "", meta, code, "")); err != nil {
		t.Fatalf("48 solitary 32-bit fields in ingress: %v", err)
	}
	meta, code = wideMeta(49, true)
	_, err := Place(c, phvProgram(t, "", meta, code, ""))
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RulePHV {
		t.Fatalf("49 solitary 32-bit fields: %v, want rule %s", err, RulePHV)
	}
	for _, want := range []string{"phv: ingress needs 49 32-bit containers, the chip has 64 and ingress can have at most 48", "16 are egress-only", "49 hold a field written by an ALU operation", "meta.w0"} {
		if !strings.Contains(pe.Msg, want) {
			t.Errorf("message %q lacks %q", pe.Msg, want)
		}
	}
	if pe.Pos.Line == 0 || strings.Contains(err.Error(), "\n") {
		t.Errorf("error must be one line with a position: %q", err)
	}
	// Egress needing 20 32-bit containers takes one shared group of 4:
	// ingress keeps 16 + 7*4 = 44.
	var em strings.Builder
	var ec strings.Builder
	for i := range 20 {
		fmt.Fprintf(&em, "  e%d: 32\n", i)
		fmt.Fprintf(&ec, "meta.e%d = meta.e%d + 1\n", i, i)
	}
	meta, code = wideMeta(44, true)
	if _, err := Place(c, phvProgram(t, "", meta+em.String(), code, ec.String())); err != nil {
		t.Fatalf("44 + 20: %v", err)
	}
	meta, code = wideMeta(45, true)
	_, err = Place(c, phvProgram(t, "", meta+em.String(), code, ec.String()))
	if !errors.As(err, &pe) || pe.Rule != RulePHV || !strings.Contains(pe.Msg, "at most 44") || !strings.Contains(pe.Msg, "egress takes 1 of the 8 groups of 4") {
		t.Fatalf("45 + 20: %v", err)
	}
	// Tofino 2: 64 parser-visible 32-bit containers (80 less 16 dark), no
	// thread-only groups.
	meta, code = wideMeta(64, true)
	if _, err := Place(chip2(t), phvProgram(t, "", meta, code, "")); err != nil {
		t.Fatalf("Tofino 2, 64 fields: %v", err)
	}
	meta, code = wideMeta(65, true)
	if _, err := Place(chip2(t), phvProgram(t, "", meta, code, "")); !errors.As(err, &pe) || pe.Rule != RulePHV || !strings.Contains(pe.Msg, "16 are dark") {
		t.Fatalf("Tofino 2, 65 fields: %v", err)
	}
}

// Rule 9: fields that may split (written by moves) overflow into pairs of
// 16-bit containers, the last declared first; 8-bit fields that overflow
// move up to 16-bit containers.
func TestPHVSplitAndPromote(t *testing.T) {
	meta, code := wideMeta(50, false)
	p := phvProgram(t, "", meta, code, "")
	u := placePHV(t, chip(t), p)
	if u.Ingress.Normal.B32 != 48 || u.Ingress.Split != 2 {
		t.Fatalf("50 moved 32-bit fields: %+v, %d split; want 48 32-bit and 2 split", u.Ingress.Normal, u.Ingress.Split)
	}
	if w, _ := containersOf(u, spec.Ingress, fld(t, p, "meta.w49")); fmt.Sprint(w) != "[16 16]" {
		t.Errorf("meta.w49 in %v, want [16 16]", w)
	}
	if w, _ := containersOf(u, spec.Ingress, fld(t, p, "meta.w0")); fmt.Sprint(w) != "[32]" {
		t.Errorf("meta.w0 in %v, want [32]", w)
	}
	var m, c strings.Builder
	for i := range 49 {
		fmt.Fprintf(&m, "  n%d: 8\n", i)
		fmt.Fprintf(&c, "meta.n%d = meta.n%d + 1\n", i, i)
	}
	p = phvProgram(t, "", m.String(), c.String(), "")
	u = placePHV(t, chip(t), p)
	if w, _ := u.ContainerOf(spec.Ingress, fld(t, p, "meta.n48")); w != 16 {
		t.Errorf("the 49th solitary 8-bit field is in a %d-bit container, want 16", w)
	}
	if u.Ingress.Normal.B8 != 48 {
		t.Errorf("8-bit containers: %d, want the 48 ingress may have", u.Ingress.Normal.B8)
	}
}

// Rule 7: a thread's tagalong containers come in collections; when the 8
// collections' 32 32-bit tagalong containers run out, the last carried
// field moves to a normal container.
func TestPHVTagalongCollections(t *testing.T) {
	var h strings.Builder
	h.WriteString("  big:\n")
	for i := range 33 {
		fmt.Fprintf(&h, "    f%d: 32\n", i)
	}
	src := phvProgram(t, h.String(), "", "h.a = 1", "")
	// extract big too
	src.Parser.States[0].Extract = append(src.Parser.States[0].Extract, src.Headers[1])
	u := placePHV(t, chip(t), src)
	if u.Ingress.Tagalong.B32 != 32 {
		t.Errorf("32-bit tagalong containers: %d, want all 32", u.Ingress.Tagalong.B32)
	}
	if w, k := u.ContainerOf(spec.Ingress, fld(t, src, "big.f32")); w != 32 || k != "normal" {
		t.Errorf("big.f32: %d-bit %s, want a normal 32-bit container", w, k)
	}
}

// The egress thread carries nothing without egress code; bridged metadata
// is carried by both threads.
func TestPHVThreadsAndBridging(t *testing.T) {
	p := phvProgram(t, "", "  br: {width: 16, bridged: true}\n", "meta.br = h.c", "")
	u := placePHV(t, chip(t), p)
	if u.Egress.Containers != 0 {
		t.Errorf("no egress code, yet egress uses %d containers", u.Egress.Containers)
	}
	p = phvProgram(t, "", "  br: {width: 16, bridged: true}\n", "meta.br = h.c", "h.a = 2")
	u = placePHV(t, chip(t), p)
	br := fld(t, p, "meta.br")
	if w, k := u.ContainerOf(spec.Ingress, br); w != 16 || k != "normal" {
		t.Errorf("bridged field in ingress: %d-bit %s", w, k)
	}
	if w, k := u.ContainerOf(spec.Egress, br); w != 16 || k != "tagalong" {
		t.Errorf("bridged field in egress (unused there): %d-bit %s", w, k)
	}
}

// Every built-in program that places keeps fitting its PHV on Tofino 1
// and Tofino 2, with a non-empty ingress allocation.
func TestBuiltinsFitPHV(t *testing.T) {
	for _, c := range []*spec.Config{chip(t), chip2(t)} {
		for _, name := range programs.Builtins() {
			p, err := Place(c, builtin(t, name))
			var pe *PlacementError
			if errors.As(err, &pe) && pe.Rule == RulePHV {
				t.Errorf("%s on %s: %v", name, c.Name, err)
				continue
			}
			if err != nil {
				continue // rejected by an earlier rule (TestBuiltinsPlace)
			}
			if p.PHV.Ingress.Containers == 0 || p.PHV.Ingress.Fields == 0 {
				t.Errorf("%s on %s: empty ingress PHV %+v", name, c.Name, p.PHV.Ingress)
			}
		}
	}
}

// The packer is deterministic: two placements give the same allocation.
func TestPHVDeterministic(t *testing.T) {
	a := placePHV(t, chip(t), builtin(t, "switchml"))
	b := placePHV(t, chip(t), builtin(t, "switchml"))
	if fmt.Sprintf("%+v %+v", a.Ingress, a.Egress) != fmt.Sprintf("%+v %+v", b.Ingress, b.Egress) {
		t.Fatal("two allocations differ")
	}
	if a.Ingress.Normal.B32 != 48 || a.Ingress.Split == 0 {
		t.Errorf("switchml on Tofino 1 should fill ingress's 48 32-bit containers by splitting: %+v", a.Ingress)
	}
}
