package compiler

import (
	"errors"
	"strings"
	"testing"

	"archsim/programs"
)

// TestEmitRejected: a PISA pipeline cannot create packets; emit() anywhere
// in the control code (ingress, egress, a function) breaks
// packet-creation, reported at the first emit() in the file.
func TestEmitRejected(t *testing.T) {
	cases := []struct {
		name, ingress, egress, sections string
		line                            string
	}{
		{"ingress", "meta.a = 1\nemit()", "", "", "  emit()"},
		{"inside an if", "if meta.a == 1 {\n  ip.ttl = 3\n  emit()\n}", "", "", "    emit()"},
		{"egress", "", "emit()", "", "  emit()"},
		{"function", "beacon()", "", "functions:\n  beacon: |\n    std.packet_length = 100\n    emit()\n", "    emit()"},
		{"uncalled function", "", "", "functions:\n  beacon: emit()\n", "  beacon: emit()"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := string(mustReadFile(t, "testdata/base.yaml"))
			s = strings.Replace(s, "#INGRESS", indent(c.ingress), 1)
			s = strings.Replace(s, "#EGRESS", indent(c.egress), 1)
			s = strings.Replace(s, "#EXTRA", c.sections, 1)
			prog, err := programs.Load([]byte(s), "base.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Place(chip(t), prog)
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != RulePacketCreation {
				t.Fatalf("got %v, want rule %s", err, RulePacketCreation)
			}
			if want := lineIn(t, s, c.line); pe.Pos.Line != want || pe.Pos.File != "base.yaml" {
				t.Fatalf("error at %v, want base.yaml:%d", pe.Pos, want)
			}
			want := "rule packet-creation: emit(): a PISA pipeline cannot create packets in the data plane; it can only copy the packet it processes (mirror, multicast, recirculate)"
			if msg := pe.Error(); !strings.HasPrefix(msg, pe.Pos.String()+": ") || !strings.HasSuffix(msg, want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q, want %q after file:line", msg, want)
			}
		})
	}
	if RulePacketCreation != "packet-creation" {
		t.Fatal("rule name changed")
	}
	// The first emit in the file wins: the function's (declared after
	// ingress here) comes second.
	src, prog := withSections(t, "beacon()\nemit()", "", "functions:\n  beacon: |\n    meta.a = 2\n    emit()\n")
	_, err := Place(chip(t), prog)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RulePacketCreation || pe.Pos.Line != lineIn(t, src, "  emit()") || pe.Pos.Line >= lineIn(t, src, "    emit()") {
		t.Fatalf("first of several: %v", err)
	}
	// A timer that emits is reported as a timer first (a PISA pipeline has
	// no timer threads at all).
	_, prog = withSections(t, "", "", "timers:\n  beacon: {period_ns: 1000, do: emit()}\n")
	if _, err := Place(chip(t), prog); !errors.As(err, &pe) || pe.Rule != RuleTimerThreads {
		t.Fatalf("timer that emits: %v, want rule %s", err, RuleTimerThreads)
	}
}

// TestPacketLengthReadOnly: the language lets code write
// std.packet_length (to size a packet emit() creates), but on Tofino it
// stays read-only intrinsic metadata.
func TestPacketLengthReadOnly(t *testing.T) {
	for _, g := range []struct{ ingress, egress string }{{"std.packet_length = 100", ""}, {"", "std.packet_length = 100"}} {
		prog := variant(t, g.ingress, g.egress, "")
		_, err := Place(chip(t), prog)
		var pe *PlacementError
		if !errors.As(err, &pe) || pe.Rule != RuleIntrinsic || !strings.Contains(pe.Msg, "writes std.packet_length") {
			t.Fatalf("%+v: got %v, want rule %s", g, err, RuleIntrinsic)
		}
	}
}

// TestBuiltinsDoNotEmit: no built-in program written for a PISA chip uses
// emit(), so the rule cannot change how they place (TestBuiltinsPlace
// places them; trio-ml and the *-trio programs are Trio-only and rejected
// there).
func TestBuiltinsDoNotEmit(t *testing.T) {
	for _, name := range programs.Builtins() {
		if name == "trio-ml" || strings.HasSuffix(name, "-trio") {
			continue
		}
		prog, err := programs.Resolve(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if e := prog.Emits(); len(e) != 0 {
			t.Fatalf("%s: emit() at %v", name, e[0].Pos)
		}
		err = checkThreads(prog)
		var pe *PlacementError
		if errors.As(err, &pe) && pe.Rule == RulePacketCreation {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestPacketLengthEgressOnly: TNA's pkt_length is egress intrinsic
// metadata; ingress has none, so reading std.packet_length there is
// refused on Tofino (it was allowed) and allowed in egress.
func TestPacketLengthEgressOnly(t *testing.T) {
	var pe *PlacementError
	if _, err := Place(chip(t), variant(t, "meta.a = bit32(std.packet_length)", "", "")); !errors.As(err, &pe) || pe.Rule != RuleIntrinsic || !strings.Contains(pe.Msg, "reads std.packet_length") {
		t.Errorf("ingress read: %v, want rule %s", err, RuleIntrinsic)
	}
	if _, err := Place(chip(t), variant(t, "", "meta.a = bit32(std.packet_length)", "")); err != nil {
		t.Errorf("egress read: %v", err)
	}
}

// The intrinsic-metadata error names the line that reads (or writes) the
// field, not the first line of the run of inline statements it sits in
// (one keyless table named after that line).
func TestIntrinsicErrorNamesItsLine(t *testing.T) {
	var pe *PlacementError
	prog := variant(t, "meta.b = meta.c\nmeta.a = bit32(std.packet_length)", "", "")
	_, err := Place(chip(t), prog)
	if !errors.As(err, &pe) || pe.Rule != RuleIntrinsic {
		t.Fatalf("got %v, want rule %s", err, RuleIntrinsic)
	}
	first := 0
	for _, s := range prog.Ingress.Body {
		if as, ok := s.(*programs.AssignStmt); ok && as.Dst.Field.Name == "meta.b" {
			first = s.Position().Line
		}
	}
	if first == 0 || pe.Pos.Line != first+1 {
		t.Errorf("error at line %d, want %d (the read; the run starts at %d): %v", pe.Pos.Line, first+1, first, err)
	}
}
