package programs

import (
	"math/rand"
	"strings"
	"testing"
)

// A negative value written for a signed field matches the field's bits:
// a parser select on -1 and a ternary entry -1 catch the packet whose
// 8-bit field is 0xff (both fell through: the value was kept
// sign-extended against a mask of the field's width).
func TestNegativeValuesMatchSignedFields(t *testing.T) {
	p, err := Load([]byte(`program: neg
headers:
  a: {k: i8, pad: 8}
  b: {x: 8}
parser:
  start: s
  states:
    s:
      extract: a
      select: a.k
      transitions: {-1: sb, 5: accept, default: accept}
    sb: {extract: b}
metadata:
  hit: 8
actions:
  mark: {params: {v: 8}, do: "meta.hit = v"}
tables:
  t:
    key: {a.k: ternary}
    actions: [mark]
    default: mark(99)
    entries:
      - {key: -1, action: mark(1)}
      - {key: "-2 &&& 0xff", action: mark(2)}
ingress: t.apply()
`), "neg.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k        byte
		parsedB  bool
		wantMark int64
	}{{0xff, true, 1}, {0xfe, false, 2}, {5, false, 99}} {
		phv := make([]int64, len(p.Fields))
		res := p.Codec().Parse([]byte{c.k, 0, 0x42}, 3, phv, false, false)
		if res.Rejected {
			t.Fatalf("k %#x: rejected", c.k)
		}
		if got := phv[p.Field("b.$valid").Slot] != 0; got != c.parsedB {
			t.Errorf("k %#x: b extracted %v, want %v", c.k, got, c.parsedB)
		}
		x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
		x.PHV = phv
		x.RunControl(p.Ingress)
		if got := phv[p.Field("meta.hit").Slot]; got != c.wantMark {
			t.Errorf("k %#x: table ran mark(%d), want mark(%d)", c.k, got, c.wantMark)
		}
	}
}

// true/false settings take YAML's spellings and refuse anything else
// (bridged: True, 1 or flase silently meant not bridged).
func TestBooleanSettings(t *testing.T) {
	src := `program: b
headers:
  h: {x: 8}
parser:
  start: s
  states:
    s: {extract: h}
metadata:
  m: {width: 8, bridged: BRIDGED}
ingress: meta.m = h.x
egress: h.x = meta.m
`
	for _, c := range []struct {
		v       string
		bridged bool
		err     string
	}{{"true", true, ""}, {"True", true, ""}, {"false", false, ""}, {"1", false, `bridged is true or false, got "1"`}, {"flase", false, `bridged is true or false, got "flase"`}} {
		p, err := Load([]byte(strings.Replace(src, "BRIDGED", c.v, 1)), "b.yaml", nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("bridged: %s: %v, want %q", c.v, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("bridged: %s: %v", c.v, err)
		}
		if got := p.Field("meta.m").Bridged; got != c.bridged {
			t.Errorf("bridged: %s read as %v", c.v, got)
		}
	}
}

// A register's init must fit its width (300 in an 8-bit register started
// as 44).
func TestRegisterInitFits(t *testing.T) {
	src := `program: r
headers:
  h: {x: 8}
parser:
  start: s
  states:
    s: {extract: h}
registers:
  r: {width: 8, size: 4, init: INIT, actions: {get: {out: 8, do: "out = value"}}}
ingress: h.x = r.get(0)
`
	if _, err := Load([]byte(strings.Replace(src, "INIT", "255", 1)), "r.yaml", nil); err != nil {
		t.Fatalf("init 255: %v", err)
	}
	_, err := Load([]byte(strings.Replace(src, "INIT", "300", 1)), "r.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "init 300 does not fit the register's bit<8> (it would start as 44)") {
		t.Errorf("init 300: %v", err)
	}
}

// Nested for loops multiply: an entry list of 4096 x 1024 items is refused
// before it is made (its million-entry loops are each within bounds; the
// loader made them all, gigabytes, and no limit saw it).
func TestNestedLoopsBounded(t *testing.T) {
	src := `program: big
headers:
  h: {x: 32}
parser:
  start: s
  states:
    s: {extract: h}
actions:
  set: {params: {v: 8}, do: ""}
tables:
  t:
    key: {h.x: exact}
    actions: [set]
    default: set(0)
    size: 16777216
    entries:
      - {for: {i: "0..LOOP", j: "0..1023"}, key: "i*1024+j", action: set(1)}
ingress: t.apply()
`
	_, err := Load([]byte(strings.Replace(src, "LOOP", "4095", 1)), "big.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "the loops of this item make 4194304 items, more than 1048576") {
		t.Errorf("4096 x 1024 items: %v", err)
	}
	if _, err := Load([]byte(strings.Replace(src, "LOOP", "3", 1)), "big.yaml", nil); err != nil {
		t.Errorf("4 x 1024 items: %v", err)
	}
}

// A parser's transitions are tried in the order written, so a value after
// default is refused (it never matched); a const table refuses the data
// plane's insert and remove.
func TestShadowedTransitionAndConstInsert(t *testing.T) {
	_, err := Load([]byte(`program: p
headers:
  a: {k: 8}
  b: {x: 8}
parser:
  start: s
  states:
    s:
      extract: a
      select: a.k
      transitions: {default: accept, 5: sb}
    sb: {extract: b}
`), "p.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), `transition "5" comes after default`) {
		t.Errorf("value after default: %v", err)
	}
	_, err = Load([]byte(`program: c
headers:
  h: {a: 8, b: 8}
parser:
  start: s
  states:
    s: {extract: h}
actions:
  set: {params: {v: 8}, do: "h.b = v"}
tables:
  t:
    key: {h.a: exact}
    actions: [set]
    const: true
    entries:
      - {key: 1, action: set(11)}
ingress: |
  if !t.apply().hit {
    t.insert(set(h.a))
  }
`), "c.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "t.insert(): table t is const") {
		t.Errorf("insert into a const table: %v", err)
	}
}
