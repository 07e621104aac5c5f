package compiler

import (
	"errors"
	"strings"
	"testing"

	"archsim/programs"
)

// withSections builds a program from testdata/base.yaml with ingress code
// after route.apply(), extra registers (YAML lines under registers:) and
// extra top-level sections (at the end of the file).
func withSections(t *testing.T, ingress, registers, sections string) (string, *programs.Program) {
	t.Helper()
	s := string(mustReadFile(t, "testdata/base.yaml"))
	s = strings.Replace(s, "#INGRESS", indent(ingress), 1)
	s = strings.Replace(s, "#EGRESS", "", 1)
	s = strings.Replace(s, "registers:\n", "registers:\n"+registers, 1)
	s = strings.Replace(s, "#EXTRA", sections, 1)
	p, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func lineIn(t *testing.T, src, text string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%q not in the source", text)
	return 0
}

// TestTimersRejected: a PISA pipeline has no timer threads; the error
// names the rule, the first timer and its line.
func TestTimersRejected(t *testing.T) {
	src, prog := withSections(t, "", "",
		"timers:\n  scan:\n    period_ns: 1000\n    threads: 4\n    do: |\n      meta.a = bit32(std.timer_index)\n  other: {period_ns: 5, do: meta.b = 1}\n")
	_, err := Place(chip(t), prog)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RuleTimerThreads {
		t.Fatalf("got %v, want rule %s", err, RuleTimerThreads)
	}
	if pe.Pos.File != "base.yaml" || pe.Pos.Line != lineIn(t, src, "  scan:") {
		t.Fatalf("error at %v, want the line of timer scan", pe.Pos)
	}
	want := "rule timer-threads: timer scan: a PISA pipeline has no timer threads: periodic work needs packets from the packet generator, and a timeout over a table needs the control plane to scan it (the Trio paper §5)"
	if !strings.Contains(pe.Error(), want) || !strings.HasPrefix(pe.Error(), "base.yaml:") || strings.Contains(pe.Error(), "\n") {
		t.Fatalf("error %q, want %q", pe.Error(), want)
	}
	if RuleTimerThreads != "timer-threads" || RulePayloadAccess != "payload-access" {
		t.Fatal("rule names changed")
	}
}

// TestPayloadRejected: payload32 anywhere (control code, an action, a
// register action, a function) breaks payload-access, reported at the
// first read in the file.
func TestPayloadRejected(t *testing.T) {
	reg := "  agg:\n    width: 32\n    size: 16\n    actions:\n      add: |\n        value = value + payload32(meta.f)\n"
	cases := []struct {
		name, ingress, registers, sections string
		line                               string
	}{
		{"control", "meta.a = 1\nmeta.b = payload32(2)", "", "", "  meta.b = payload32(2)"},
		{"register action", "meta.c = agg.add(1)", reg, "", "value = value + payload32"},
		{"unused register action", "", reg, "", "value = value + payload32"},
		{"function", "grab()", "", "functions:\n  grab: |\n    meta.d = payload32(meta.a)\n", "    meta.d = payload32(meta.a)"},
		{"first of several", "meta.b = payload32(0)", reg, "", "value = value + payload32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, prog := withSections(t, c.ingress, c.registers, c.sections)
			_, err := Place(chip(t), prog)
			var pe *PlacementError
			if !errors.As(err, &pe) || pe.Rule != RulePayloadAccess {
				t.Fatalf("got %v, want rule %s", err, RulePayloadAccess)
			}
			if want := lineIn(t, src, c.line); pe.Pos.Line != want || pe.Pos.File != "base.yaml" {
				t.Fatalf("error at %v, want base.yaml:%d", pe.Pos, want)
			}
			for _, w := range []string{"rule payload-access", "a PISA parser extracts headers only", "not visible to the match-action stages", "parse them as header fields instead, as SwitchML does"} {
				if !strings.Contains(pe.Error(), w) {
					t.Fatalf("error %q does not contain %q", pe.Error(), w)
				}
			}
		})
	}
	// In an action: the table's action reads the payload.
	s := string(mustReadFile(t, "testdata/base.yaml"))
	s = strings.Replace(s, "  NoAction: \"\"\n", "  NoAction: \"\"\n  tail:\n    do: meta.c = payload32(1)\n", 1)
	s = strings.Replace(s, "    actions: [fwd, NoAction]\n", "    actions: [fwd, NoAction, tail]\n", 1)
	for _, m := range []string{"#INGRESS", "#EGRESS", "#EXTRA"} {
		s = strings.Replace(s, m, "", 1)
	}
	prog, err := programs.Load([]byte(s), "base.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Place(chip(t), prog)
	var pe *PlacementError
	if !errors.As(err, &pe) || pe.Rule != RulePayloadAccess || pe.Pos.Line != lineIn(t, s, "do: meta.c = payload32(1)") {
		t.Fatalf("action: got %v, want rule payload-access at the action's line", err)
	}
}

// TestTimerIndexInPacketThread: reading std.timer_index outside a timer is
// allowed on Tofino (it is 0), and adding the field changed nothing else.
func TestTimerIndexInPacketThread(t *testing.T) {
	_, prog := withSections(t, "meta.a = bit32(std.timer_index)\nif std.timer_index == 0 {\n  meta.b = 1\n}", "", "")
	if _, err := Place(chip(t), prog); err != nil {
		t.Fatal(err)
	}
	_, plain := withSections(t, "", "", "")
	if _, err := Place(chip(t), plain); err != nil {
		t.Fatal(err)
	}
}
