package programs

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// tuProgram writes tables from the data plane: meta.op picks what ingress
// does. flows (size 4, aging, one control-plane entry) takes insert,
// remove, aged, load and apply; plain (size 4, no aging) insert, remove
// and apply.
const tuProgram = `program: tableupdate
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata:
  op: 8
  k: 16
  v: 8
  i: 16
  got: 8
  old: 8
actions:
  set:
    params: {x: 8}
    do: meta.got = x
  none: meta.got = 0xff
tables:
  flows:
    key: {meta.k: exact}
    actions: [set, none]
    default: none
    size: 4
    aging: true
    entries:
      - {key: 7, action: set(70)}
  plain:
    key: {meta.k: exact}
    actions: [set, none]
    default: none
    size: 4
parser:
  start: s
  states:
    s:
      extract: eth
ingress: |
  if meta.op == 1 {
    flows.insert(set(meta.v))
  }
  if meta.op == 2 {
    flows.remove()
  }
  if meta.op == 3 {
    meta.old = bit8(flows.aged(meta.i))
  }
  if meta.op == 4 {
    flows.load(meta.i)
  }
  if meta.op == 5 {
    flows.apply()
  }
  if meta.op == 6 {
    plain.insert(set(meta.v))
  }
  if meta.op == 7 {
    plain.remove()
  }
  if meta.op == 8 {
    plain.apply()
  }
`

// tableOp is what a Tracer's TableOp saw.
type tableOp struct {
	table string
	op    string
	slot  int
	done  bool
}

type tableOpTracer struct {
	emitTracer
	ops []tableOp
}

func (r *tableOpTracer) TableOp(t *Table, op TableOpKind, slot int, done bool) {
	r.ops = append(r.ops, tableOp{t.Name, op.String(), slot, done})
}

// tuRig runs tuProgram's ingress on one state.
type tuRig struct {
	t  *testing.T
	p  *Program
	st *State
	x  *Exec
	tr *tableOpTracer
}

func newTURig(t *testing.T) *tuRig {
	p := loadCl(t, tuProgram)
	st := NewState(p)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	tr := &tableOpTracer{}
	x.Tracer = tr
	return &tuRig{t: t, p: p, st: st, x: x, tr: tr}
}

// run runs ingress with the given op, key, value and index (meta.got and
// meta.old start at 0) and returns meta.got, meta.old and meta.k after.
func (r *tuRig) run(op, k, v, i int64) (got, old, key int64) {
	p := r.p
	r.x.PHV = make([]int64, len(p.Fields))
	for f, val := range map[string]int64{"meta.op": op, "meta.k": k, "meta.v": v, "meta.i": i} {
		r.x.PHV[p.Field(f).Slot] = val
	}
	r.x.RunControl(p.Ingress)
	return r.x.PHV[p.Field("meta.got").Slot], r.x.PHV[p.Field("meta.old").Slot], r.x.PHV[p.Field("meta.k").Slot]
}

func TestTableUpdateLoad(t *testing.T) {
	p := loadCl(t, tuProgram)
	if !p.Table("flows").Aging || p.Table("plain").Aging {
		t.Fatal("aging: flows should age, plain not")
	}
	var got []string
	for _, u := range p.TableUpdates() {
		got = append(got, u.Table.Name+"."+u.Op.String())
		if u.Pos.File != "clear.yaml" || u.Pos.Line == 0 {
			t.Fatalf("%v: no position", u)
		}
	}
	want := []string{"flows.insert", "flows.remove", "flows.aged", "flows.load", "plain.insert", "plain.remove"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TableUpdates %v, want %v", got, want)
	}
	if u := p.TableUpdates()[2]; u.Pos.Line != lineOf(t, tuProgram, "flows.aged(") {
		t.Fatalf("aged at %v, want its line", u.Pos)
	}
	ins, ok := stmtOf(p.Ingress.Body[0].(*IfStmt).Then[0], "insert")
	if !ok || ins.Action.Name != "set" || len(ins.Args) != 1 || ins.Table != p.Table("flows") {
		t.Fatalf("insert %#v", ins)
	}
}

// TestTableUpdateErrors: what the loader rejects, at the line of the
// offending code.
func TestTableUpdateErrors(t *testing.T) {
	cases := []struct {
		name, from, to, line, msg string
	}{
		{"aging on a ternary table", "    key: {meta.k: exact}\n    actions: [set, none]\n    default: none\n    size: 4\n    aging: true",
			"    key: {meta.k: ternary}\n    actions: [set, none]\n    default: none\n    size: 4\n    aging: true", "    aging: true", "aging needs 1..8 exact keys"},
		{"aging not a bool", "    aging: true", "    aging: 3", "    aging: 3", "aging is true or false"},
		{"aged without aging", "flows.aged(meta.i)", "plain.aged(meta.i)", "plain.aged(", "declare it with aging: true"},
		{"aged index outside", "flows.aged(meta.i)", "flows.aged(4)", "flows.aged(4)", "index 4 is outside flows"},
		{"aged as a statement", "    flows.load(meta.i)", "    flows.aged(meta.i)", "    flows.aged(meta.i)", "is a value"},
		{"insert as a value", "bit8(flows.aged(meta.i))", "bit8(flows.insert(set(1)))", "flows.insert(set(1))", "is a statement"},
		{"insert in an action", "  none: meta.got = 0xff", "  none: flows.insert(set(1))", "  none: flows.insert", "cannot be used inside an action"},
		{"remove in a register action", "actions:\n  set:", "registers:\n  r:\n    width: 8\n    size: 2\n    actions:\n      rd: |\n        flows.remove()\n        out = value\nactions:\n  set:",
			"        flows.remove()", "cannot be used inside a register action"},
		{"action not of the table", "flows.insert(set(meta.v))", "flows.insert(other(meta.v))", "flows.insert(other", "not one of table flows's actions"},
		{"argument count", "flows.insert(set(meta.v))", "flows.insert(set)", "flows.insert(set)", "takes 1 arguments, got 0"},
		{"argument width", "flows.insert(set(meta.v))", "flows.insert(set(meta.k))", "flows.insert(set(meta.k))", "bit<16> value for parameter x (bit<8>)"},
		{"constant argument", "flows.insert(set(meta.v))", "flows.insert(set(300))", "flows.insert(set(300))", "constant 300 does not fit"},
		{"insert on a ternary table", "    key: {meta.k: exact}\n    actions: [set, none]\n    default: none\n    size: 4\nparser:",
			"    key: {meta.k: ternary}\n    actions: [set, none]\n    default: none\n    size: 4\nparser:", "plain.insert(", "has a ternary key (meta.k)"},
		{"load with a slice key", "  plain:\n    key: {meta.k: exact}", "  plain:\n    key: {\"meta.k[7:0]\": exact}", "", ""},
		{"load into a slice key", "  flows:\n    key: {meta.k: exact}", "  flows:\n    key: {\"meta.k[7:0]\": exact}", "flows.load(", "key meta.k[7:0] of table flows (line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(tuProgram, c.from, c.to, 1)
			if src == tuProgram {
				t.Fatalf("%q not in the program", c.from)
			}
			_, err := Load([]byte(src), "tu.yaml", nil)
			if c.msg == "" {
				if err != nil {
					t.Fatalf("a slice key is fine without load(): %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("got %v, want an *Error", err)
			}
			if want := lineOf(t, src, c.line); e.Pos != (Pos{File: "tu.yaml", Line: want}) {
				t.Errorf("error at %v, want tu.yaml:%d (%v)", e.Pos, want, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q, want %q", err, c.msg)
			}
		})
	}
}

// TestTableUpdateRun: insert, lookup, REF flags, aged, load, remove, a
// full table, and the tracer's view of each operation.
func TestTableUpdateRun(t *testing.T) {
	r := newTURig(t)
	flows := r.st.Tables[r.p.Table("flows").Index]
	// The control-plane entry occupies its home slot, REF set (created).
	s7 := KeySlot([]int64{7}, 4)
	if e, ref := flows.SlotEntry(s7); e == nil || e.Call.Args[0] != 70 || !ref {
		t.Fatalf("slot %d holds %v (REF %v), want the entry of key 7 with REF set", s7, e, ref)
	}
	if got, _, _ := r.run(5, 7, 0, 0); got != 70 {
		t.Fatalf("lookup of the control-plane entry: %d", got)
	}
	// Insert, then look up: the new entry's action data.
	if got, _, _ := r.run(5, 1, 0, 0); got != 0xff {
		t.Fatalf("key 1 before insert: %d, want the default's 0xff", got)
	}
	r.run(1, 1, 10, 0)
	s1, ok := flows.Slot([]int64{1})
	if !ok || flows.Len() != 2 {
		t.Fatalf("after insert: slot %d %v, %d entries", s1, ok, flows.Len())
	}
	if _, ref := flows.SlotEntry(s1); !ref {
		t.Fatal("REF clear after insert")
	}
	if got, _, _ := r.run(5, 1, 0, 0); got != 10 {
		t.Fatalf("key 1 after insert: %d, want 10", got)
	}
	// aged: REF set → 0 (cleared); clear → 1 (the entry stays); a hit
	// sets it again.
	aged := func(i int) int64 { _, old, _ := r.run(3, 0, 0, int64(i)); return old }
	seq := []int64{aged(s1), aged(s1), aged(s1)}
	r.run(5, 1, 0, 0)
	seq = append(seq, aged(s1), aged(s1))
	if want := []int64{0, 1, 1, 0, 1}; !reflect.DeepEqual(seq, want) {
		t.Fatalf("aged sequence %v, want %v (insert → 0, 1, 1; hit → 0, 1)", seq, want)
	}
	if e, _ := flows.SlotEntry(s1); e == nil || flows.Len() != 2 {
		t.Fatal("an aged entry was removed")
	}
	// Re-inserting the same key overwrites in place and sets REF.
	r.run(1, 1, 11, 0)
	if s, _ := flows.Slot([]int64{1}); s != s1 || flows.Len() != 2 || aged(s1) != 0 {
		t.Fatalf("overwrite moved the entry (slot %d, %d entries) or left REF clear", s, flows.Len())
	}
	empty := -1
	for i := 0; i < 4; i++ {
		if e, _ := flows.SlotEntry(i); e == nil {
			empty = i
			break
		}
	}
	if aged(empty) != 0 || aged(4) != 0 || aged(0xffff) != 0 {
		t.Fatal("aged of an empty slot or outside the table is not 0")
	}
	// load: the key fields get the entry's key, its action runs; REF and
	// the hit counters are untouched.
	aged(s1) // REF now clear
	hits := flows.Hits
	if got, _, k := r.run(4, 0, 0, int64(s1)); got != 11 || k != 1 {
		t.Fatalf("load(%d): got %d, key %d; want 11 and 1", s1, got, k)
	}
	if _, ref := flows.SlotEntry(s1); ref || flows.Hits != hits {
		t.Fatalf("load changed REF (%v) or hits (%d → %d)", ref, hits, flows.Hits)
	}
	if got, _, k := r.run(4, 9, 0, int64(empty)); got != 0xff || k != 9 {
		t.Fatalf("load of an empty slot: got %d, key %d; want the default (0xff) and key 9 kept", got, k)
	}
	// remove.
	r.run(2, 1, 0, 0)
	if _, ok := flows.Slot([]int64{1}); ok || flows.Len() != 1 {
		t.Fatal("remove left the entry")
	}
	if e, _ := flows.SlotEntry(s1); e != nil {
		t.Fatal("remove left the slot occupied")
	}
	if got, _, _ := r.run(5, 1, 0, 0); got != 0xff {
		t.Fatal("key 1 hits after remove")
	}
	r.run(2, 1, 0, 0) // absent: nothing happens
	// Full: 4 entries; a fifth key fails and is counted, an existing key
	// is still overwritten.
	for k := int64(20); k < 23; k++ {
		r.run(1, k, byte8(k), 0)
	}
	if flows.Len() != 4 || flows.InsertFailures != 0 {
		t.Fatalf("%d entries, %d failures; want 4 and 0", flows.Len(), flows.InsertFailures)
	}
	r.tr.ops = nil
	r.run(1, 30, 1, 0)
	if flows.Len() != 4 || flows.InsertFailures != 1 {
		t.Fatalf("insert into a full table: %d entries, %d failures; want 4 and 1", flows.Len(), flows.InsertFailures)
	}
	if want := []tableOp{{"flows", "insert", KeySlot([]int64{30}, 4), false}}; !reflect.DeepEqual(r.tr.ops, want) {
		t.Fatalf("tracer saw %v, want %v", r.tr.ops, want)
	}
	r.run(1, 20, 99, 0)
	if got, _, _ := r.run(5, 20, 0, 0); got != 99 || flows.InsertFailures != 1 {
		t.Fatalf("overwrite in a full table: got %d, %d failures", got, flows.InsertFailures)
	}
	// The tracer sees each operation with its slot.
	r.tr.ops = nil
	s20, _ := flows.Slot([]int64{20})
	r.run(3, 0, 0, int64(s20))
	r.run(4, 0, 0, int64(s20))
	r.run(3, 0, 0, 4) // outside: not reported
	r.run(2, 20, 0, 0)
	r.run(2, 20, 0, 0)
	r.run(1, 20, 5, 0)
	s20b, _ := flows.Slot([]int64{20})
	want := []tableOp{{"flows", "aged", s20, true}, {"flows", "load", s20, true}, {"flows", "remove", s20, true},
		{"flows", "remove", KeySlot([]int64{20}, 4), false}, {"flows", "insert", s20b, true}}
	if !reflect.DeepEqual(r.tr.ops, want) {
		t.Fatalf("tracer saw %v, want %v", r.tr.ops, want)
	}
}

func byte8(k int64) int64 { return k & 0xff }

// TestTableUpdateProbing: keys with the same home slot take the next free
// slots (linear probing, wrapping past the last slot); removing the first keeps the others
// reachable, and a new colliding key reuses the freed slot.
func TestTableUpdateProbing(t *testing.T) {
	r := newTURig(t)
	plain := r.st.Tables[r.p.Table("plain").Index]
	// Home slot 2: the third key wraps to slot 0.
	var keys []int64
	const home = 2
	for k := int64(100); len(keys) < 4; k++ {
		if KeySlot([]int64{k}, 4) == home {
			keys = append(keys, k)
		}
	}
	for i, k := range keys[:3] {
		r.run(6, k, int64(i+1), 0)
		if s, ok := plain.Slot([]int64{k}); !ok || s != (home+i)%4 {
			t.Fatalf("key %d (home %d) in slot %d, want %d", k, home, s, (home+i)%4)
		}
	}
	r.run(7, keys[0], 0, 0)
	for i, k := range keys[1:3] {
		if got, _, _ := r.run(8, k, 0, 0); got != int64(i+2) {
			t.Fatalf("key %d after removing %d: got %d, want %d", k, keys[0], got, i+2)
		}
	}
	r.run(6, keys[3], 9, 0)
	if s, _ := plain.Slot([]int64{keys[3]}); s != home {
		t.Fatalf("a new colliding key took slot %d, want the freed %d", s, home)
	}
	// The last free slot is found by wrapping.
	r.run(6, 555, 7, 0)
	if s, ok := plain.Slot([]int64{555}); !ok || s != (home+3)%4 || plain.Len() != 4 {
		t.Fatalf("fourth entry in slot %d (%v), %d entries", s, ok, plain.Len())
	}
	// Control-plane writes occupy slots too.
	es := []*Entry{}
	for _, k := range []int64{keys[0], keys[1]} {
		e, err := r.p.Table("plain").NewEntry([]Match{{Value: k}}, "set", []int64{3}, 0)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	if err := r.st.SetEntries(r.p.Table("plain"), es); err != nil {
		t.Fatal(err)
	}
	plain = r.st.Tables[r.p.Table("plain").Index]
	if s, ok := plain.Slot([]int64{keys[1]}); !ok || s != (home+1)%4 {
		t.Fatalf("SetEntries: key %d in slot %d (%v), want %d", keys[1], s, ok, (home+1)%4)
	}
	if e, ref := plain.SlotEntry(home); e != es[0] || !ref {
		t.Fatal("SetEntries: first entry not in its home slot with REF set")
	}
}

// TestTableUpdateDeterministic: two runs of the same operations leave
// the same slots.
func TestTableUpdateDeterministic(t *testing.T) {
	layout := func() []int64 {
		r := newTURig(t)
		for k := int64(0); k < 40; k++ {
			r.run(6, k*7919, byte8(k), 0)
			if k%3 == 0 {
				r.run(7, (k/2)*7919, 0, 0)
			}
		}
		plain := r.st.Tables[r.p.Table("plain").Index]
		var out []int64
		for i := 0; i < 4; i++ {
			e, _ := plain.SlotEntry(i)
			if e == nil {
				out = append(out, -1)
			} else {
				out = append(out, e.Values[0])
			}
		}
		return append(out, plain.InsertFailures)
	}
	a, b := layout(), layout()
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs: %v and %v", a, b)
	}
}
