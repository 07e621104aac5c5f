package programs

import (
	"math/rand"
	"strings"
	"testing"
)

// A bit<64> field's values use all 64 bits: comparisons, min, max and the
// saturating operations read them as unsigned, and a constant compared with
// one is its bit pattern. (The values from 2^63 up compared as negative:
// 0x8000000000000000 < 5 was true and max(that, 1) was 1; sat_add of
// 2^63-1 and 1 gave 0.) Compiled and reference executors agree.
func TestUnsigned64(t *testing.T) {
	p, err := Load([]byte(`program: u64
headers:
  a: {u: 64, v: 64, s: i64}
parser:
  start: s
  states:
    s: {extract: a}
metadata:
  lt5: 1
  gt5: 1
  ltv: 1
  geTop: 1
  eqAll: 1
  mx: 64
  mn: 64
  sadd: 64
  ssub: 64
  iadd: i64
  isub: i64
ingress: |
  if a.u < 5 {
    meta.lt5 = 1
  }
  if a.u > 5 {
    meta.gt5 = 1
  }
  if a.u < a.v {
    meta.ltv = 1
  }
  if a.u >= 0x8000000000000000 {
    meta.geTop = 1
  }
  if a.v == 0xffffffffffffffff {
    meta.eqAll = 1
  }
  meta.mx = max(a.u, 1)
  meta.mn = min(a.u, 1)
  meta.sadd = sat_add(a.u, a.v)
  meta.ssub = sat_sub(1, a.u)
  meta.iadd = sat_add(a.s, 9223372036854775807)
  meta.isub = sat_sub(a.s, 9223372036854775807)
`), "u64.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	const top = -1 << 63 // 0x8000000000000000
	set := func(phv []int64) {
		phv[p.Field("a.u").Slot] = top
		phv[p.Field("a.v").Slot] = -1 // 0xffffffffffffffff
		phv[p.Field("a.s").Slot] = -5
	}
	want := map[string]int64{"meta.lt5": 0, "meta.gt5": 1, "meta.ltv": 1, "meta.geTop": 1, "meta.eqAll": 1,
		"meta.mx": top, "meta.mn": 1, "meta.sadd": -1, "meta.ssub": 0,
		"meta.iadd": 9223372036854775802, "meta.isub": -1 << 63}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	x.PHV = make([]int64, len(p.Fields))
	set(x.PHV)
	x.RunControl(p.Ingress)
	r := &refExec{Exec: NewExec(NewState(p), rand.New(rand.NewSource(1)))}
	r.PHV = make([]int64, len(p.Fields))
	set(r.PHV)
	r.RunControl(p.Ingress)
	for name, w := range want {
		if got := x.PHV[p.Field(name).Slot]; got != w {
			t.Errorf("%s = %#x, want %#x", name, uint64(got), uint64(w))
		}
		if got := r.PHV[p.Field(name).Slot]; got != w {
			t.Errorf("reference: %s = %#x, want %#x", name, uint64(got), uint64(w))
		}
	}
}

// Operands of different signedness are refused, as in P4: 200 as bit<8>
// and 3 as int<8> have no one reading (the model computed 200 / 3 = 66
// but typed the result signed).
func TestMixedSignsRefused(t *testing.T) {
	for _, expr := range []string{"a.u / a.s", "a.u < a.s", "a.s + a.u"} {
		_, err := Load([]byte(`program: mix
headers:
  a: {u: 8, s: i8}
parser:
  start: s
  states:
    s: {extract: a}
metadata:
  r: i8
  c: 1
ingress: |
  if `+expr+` != 0 {
    meta.c = 1
  }
`), "mix.yaml", nil)
		if err == nil || !strings.Contains(err.Error(), "mix signed and unsigned (bit<8> and int<8>)") && !strings.Contains(err.Error(), "mix signed and unsigned (int<8> and bit<8>)") {
			t.Errorf("%s: %v, want the mix refused", expr, err)
		}
	}
}

// sat_add of a 63-bit unsigned field saturates at 2^63 - 1: its sum can
// exceed an int64 (it wrapped negative and clamped to 0).
func TestSatAdd63(t *testing.T) {
	u63 := Type{Bits: 63}
	if got := satAdd(1<<62, 1<<62, u63); got != 1<<63-1 {
		t.Errorf("sat_add(2^62, 2^62) at 63 bits = %d, want 2^63-1", got)
	}
	if got := satAdd(5, 6, Type{Bits: 4}); got != 11 {
		t.Errorf("sat_add(5, 6) at 4 bits = %d, want 11", got)
	}
	if got := satAdd(9, 9, Type{Bits: 4}); got != 15 {
		t.Errorf("sat_add(9, 9) at 4 bits = %d, want 15", got)
	}
	if got := satSub(3, 9, Type{Bits: 8}); got != 0 {
		t.Errorf("sat_sub(3, 9) at 8 bits = %d, want 0", got)
	}
	if got := satAdd(100, 100, Type{Bits: 8, Signed: true}); got != 127 {
		t.Errorf("sat_add(100, 100) at int8 = %d, want 127", got)
	}
	if got := satSub(-100, 100, Type{Bits: 8, Signed: true}); got != -128 {
		t.Errorf("sat_sub(-100, 100) at int8 = %d, want -128", got)
	}
}

// u64RangeTable is a program whose table t matches a bit<64> field by
// range; its entries follow.
const u64RangeTable = `program: u64range
headers:
  a: {u: 64}
parser:
  start: s
  states:
    s: {extract: a}
metadata:
  hit: 8
actions:
  mark: {params: {v: 8}, do: meta.hit = v}
ingress: |
  t.apply()
tables:
  t:
    key: {a.u: range}
    actions: [mark]
    size: 64
    default: mark(0)
    entries:`

// A range key on a bit<64> field compares as unsigned: a range across 2^63
// holds the values on both sides of it (compared signed, its high bound was
// negative and the range empty), and a value at or above 2^63 is above
// every small one. With entries enough for the range index the same holds.
func TestUnsigned64RangeKey(t *testing.T) {
	for _, extra := range []int{0, 20} {
		src := u64RangeTable + `
      - {key: "0x7ffffffffffffff0..0x8000000000000010", action: mark(1)}
      - {key: "0x9000000000000000..0xffffffffffffffff", action: mark(4)}
      - {key: "1..3", action: mark(2)}
`
		if extra > 0 {
			src += "      - {for: {i: \"0..19\"}, key: \"(100 + 10*i)..(105 + 10*i)\", action: mark(3)}\n"
		}
		p, err := Load([]byte(src), "r.yaml", nil)
		if err != nil {
			t.Fatal(err)
		}
		x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
		for _, c := range []struct {
			u    int64
			want int64
		}{{-1<<63 + 5, 1}, {1<<63 - 5, 1}, {-1, 4}, {-1<<63 + 0x20, 0}, {5, 0}, {2, 2}, {102, 3 * int64(min(extra, 1))}} {
			for range 40 { // past the lookups a range table is indexed after
				x.PHV = make([]int64, len(p.Fields))
				x.PHV[p.Field("a.u").Slot] = c.u
				x.RunControl(p.Ingress)
			}
			if got := x.PHV[p.Field("meta.hit").Slot]; got != c.want {
				t.Errorf("%d extra entries: a.u = %#x matched mark(%d), want mark(%d)", extra, uint64(c.u), got, c.want)
			}
		}
	}
}

// "_" on a bit<64> range key is every value, 2^63 and up included (it was
// 0..2^63-1).
func TestUnsigned64RangeWildcard(t *testing.T) {
	p, err := Load([]byte(u64RangeTable+`
      - {key: "_", action: mark(1)}
`), "w.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
	for _, u := range []int64{0, 5, 1<<63 - 1, -1 << 63, -1} {
		x.PHV = make([]int64, len(p.Fields))
		x.PHV[p.Field("a.u").Slot] = u
		x.RunControl(p.Ingress)
		if got := x.PHV[p.Field("meta.hit").Slot]; got != 1 {
			t.Errorf("a.u = %#x: mark(%d), want mark(1)", uint64(u), got)
		}
	}
}
