package programs

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// deadNames lists a program's dead stores as "field@line" in order.
func deadNames(p *Program) []string {
	var out []string
	for s := range p.deadStores() {
		out = append(out, fmt.Sprintf("%s@%d", s.Dst.Field.Name, s.Pos.Line))
	}
	sort.Strings(out)
	return out
}

// TestDeadStoresOfNDP: ndp.p4's flow hash and the five lookup fields it
// hashes are read by nothing (its next hop is resolved by index), and they
// are the only dead stores; every field a live statement, a table key or
// a parser reads stays.
func TestDeadStoresOfNDP(t *testing.T) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]int{}
	for _, n := range deadNames(p) {
		fields[strings.Split(n, "@")[0]]++
	}
	want := map[string]int{"meta.hash": 1, "meta.lkp_src": 4, "meta.lkp_dst": 4, "meta.lkp_proto": 4,
		"meta.lkp_sport": 3, "meta.lkp_dport": 3}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("dead stores %v, want %v", fields, want)
	}
}

// TestDeadStoresKeepWhatIsRead: a field read by a table key, a condition,
// a live store or a counter index is not dead; a field read only by a
// dead store is; a store from a register, meter or random draw stays.
func TestDeadStoresKeepWhatIsRead(t *testing.T) {
	src := `
program: dse
headers:
  h: {a: 16, b: 16}
metadata: {k: 16, c: 16, i: 16, x: 16, y: 16, r: 16, z: 16}
parser:
  start: s
  states:
    s: {extract: h}
registers:
  reg:
    width: 16
    size: 4
    actions:
      get: {out: 16, do: out = value}
counters:
  cnt: {size: 16}
actions:
  nop: ""
tables:
  t:
    key: {meta.k: exact}
    actions: [nop]
    default: nop
ingress: |
  meta.k = h.a
  meta.c = h.b
  meta.i = h.a + 1
  meta.y = h.a ^ h.b
  meta.x = meta.y + 1
  meta.r = reg.get(0)
  meta.z = bit16(random())
  t.apply()
  if meta.c == 1 {
    h.b = 2
  }
  cnt.count(meta.i)
`
	p, err := Load([]byte(src), "dse.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := deadNames(p)
	want := []string{"meta.x@30", "meta.y@29"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dead stores %v, want %v", got, want)
	}
}

// TestElideDeadStoresSameOutcome runs random packets through every
// program with and without ElideDeadStores: the header vectors agree on
// every field but the dead stores' destinations, and the states, the
// random draws and the Steps agree.
func TestElideDeadStoresSameOutcome(t *testing.T) {
	packets := 300
	if testing.Short() {
		packets = 60
	}
	elided := 0
	for name, p := range diffPrograms(t) {
		deadSlot := make([]bool, len(p.Fields))
		for s := range p.deadStores() {
			deadSlot[s.Dst.Field.Slot] = true
			elided++
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(len(name))))
			a := NewExec(NewState(p), rand.New(rand.NewSource(3)))
			b := NewExec(NewState(p), rand.New(rand.NewSource(3)))
			b.ElideDeadStores = true
			for _, x := range []*Exec{a, b} {
				x.Emit = func([]byte) {}
			}
			now := int64(0)
			for i := 0; i < packets; i++ {
				now = nextPacket(rng, p, now, a, b)
				for _, c := range []*Control{p.Ingress, p.Egress} {
					a.RunControl(c)
					b.RunControl(c)
					for s := range a.PHV {
						if !deadSlot[s] && a.PHV[s] != b.PHV[s] {
							t.Fatalf("packet %d: field %s differs: %d with every store, %d without the dead ones",
								i, p.Fields[s].Name, a.PHV[s], b.PHV[s])
						}
					}
					if a.Steps != b.Steps {
						t.Fatalf("packet %d: %d steps, %d without the dead stores", i, a.Steps, b.Steps)
					}
				}
			}
			sameState(t, name, a.State, b.State)
			if a.Rng.Int63() != b.Rng.Int63() {
				t.Fatalf("random draws differ")
			}
		})
	}
	if elided == 0 {
		t.Fatalf("no program has a dead store: the test compared nothing")
	}
}

// TestElideDeadStoresNotWithTracer: a tracer sees every statement, dead
// or not (a timing model charges them).
func TestElideDeadStoresNotWithTracer(t *testing.T) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs [2]*callLog
	for i, elide := range []bool{false, true} {
		x := NewExec(NewState(p), rand.New(rand.NewSource(1)))
		x.ElideDeadStores = elide
		logs[i] = &callLog{}
		x.Tracer = logs[i]
		x.PHV = randomPHV(rand.New(rand.NewSource(2)), p)
		x.RunControl(p.Ingress)
	}
	if len(logs[0].calls) == 0 || !reflect.DeepEqual(logs[0].calls, logs[1].calls) {
		t.Fatalf("traced runs differ: %d and %d calls", len(logs[0].calls), len(logs[1].calls))
	}
}

// TestDeadStoresNotWithRegisteredBuiltin: a program that calls a built-in
// added with RegisterBuiltin keeps every store (the row's Eval sees the
// whole Exec, so what it reads is not known); the same program without
// the call has its dead store.
func TestDeadStoresNotWithRegisteredBuiltin(t *testing.T) {
	plain := strings.Replace(avgProgram, "  meta.m = avg(meta.a, meta.b)\n  half()\n", "  meta.w = bit16(meta.a)\n", 1)
	plain = strings.Replace(plain, "  half: meta.n = avg(meta.a, meta.b)", "  half: meta.n = meta.a", 1)
	p, err := Load([]byte(plain), "plain.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := deadNames(p); len(got) != 2 || !strings.HasPrefix(got[0], "meta.n@") || !strings.HasPrefix(got[1], "meta.w@") {
		t.Fatalf("without the built-in: dead stores %v, want meta.n's and meta.w's", got)
	}
	remove, err := RegisterBuiltin(avgRow())
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	p, err = Load([]byte(strings.Replace(avgProgram, "  half()\n", "  half()\n  meta.w = bit16(meta.a)\n", 1)), "avg.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := deadNames(p); got != nil {
		t.Fatalf("with a registered built-in: dead stores %v, want none", got)
	}
}
