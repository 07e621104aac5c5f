package programs

import (
	"fmt"
)

// Control-plane table writes at run time (what a driver's table API does):
// build entries from numeric matches and install a table's whole contents.

// Match is one key field of an entry written by a control plane. Exact keys
// use Value; ternary keys Value and Mask; LPM keys Value and Prefix (bits).
type Match struct {
	Value  int64
	Mask   int64
	Prefix int
}

// NewEntry builds an entry of table t: one Match per key, the action by
// name and its arguments. Priority orders ternary entries (lower wins).
func (t *Table) NewEntry(ms []Match, action string, args []int64, priority int) (*Entry, error) {
	if len(ms) != len(t.Keys) {
		return nil, fmt.Errorf("table %s has %d key fields, the entry gives %d", t.Name, len(t.Keys), len(ms))
	}
	var a *Action
	for _, x := range t.Actions {
		if x.Name == action {
			a = x
		}
	}
	if a == nil {
		return nil, fmt.Errorf("table %s has no action %s", t.Name, action)
	}
	if len(args) != len(a.Params) {
		return nil, fmt.Errorf("action %s takes %d arguments, got %d", action, len(a.Params), len(args))
	}
	e := &Entry{Priority: priority, Call: ActionCall{Action: a}}
	for i, p := range a.Params {
		if !fits(args[i], p.Type) {
			return nil, fmt.Errorf("action %s: argument %s = %d does not fit %d bits", action, p.Name, args[i], p.Type.Bits)
		}
		e.Call.Args = append(e.Call.Args, p.Type.Norm(args[i]))
	}
	for i, k := range t.Keys {
		m := ms[i]
		typ := Type{Bits: k.Bits, Signed: k.Expr.Type().Signed}
		full := Type{Bits: k.Bits}.Max()
		v := typ.Norm(m.Value)
		switch k.Kind {
		case MatchExact:
			e.Values, e.Masks, e.Prefix = append(e.Values, v), append(e.Masks, full), append(e.Prefix, k.Bits)
		case MatchTernary:
			mask := Type{Bits: k.Bits}.Norm(m.Mask)
			e.Values, e.Masks, e.Prefix = append(e.Values, v&mask), append(e.Masks, mask), append(e.Prefix, 0)
		case MatchLPM:
			if m.Prefix < 0 || m.Prefix > k.Bits {
				return nil, fmt.Errorf("table %s: prefix /%d on a %d-bit key", t.Name, m.Prefix, k.Bits)
			}
			mask := int64(0)
			if m.Prefix > 0 {
				mask = int64(uint64(full) &^ (uint64(1)<<uint(k.Bits-m.Prefix) - 1))
			}
			e.Values, e.Masks, e.Prefix = append(e.Values, v&mask), append(e.Masks, mask), append(e.Prefix, m.Prefix)
		case MatchRange:
			e.Values, e.Masks, e.Prefix = append(e.Values, v), append(e.Masks, typ.Norm(m.Mask)), append(e.Prefix, 0)
		}
	}
	return e, nil
}

// SetEntries replaces a table's contents in this state. More entries than
// the table's size is an error (the table is full).
func (s *State) SetEntries(t *Table, es []*Entry) error {
	if len(es) > t.Size {
		return fmt.Errorf("table %s holds %d entries, %d written", t.Name, t.Size, len(es))
	}
	ts := &TableState{T: t}
	if allExact(t) {
		ts.exact = map[[maxExactKeys]int64]*record{}
		ts.slots = map[int]*record{}
	}
	if ts.exact != nil {
		for _, e := range es {
			ts.Add(e)
		}
	} else {
		ts.ordered = append(ts.ordered, es...)
		ts.sortOrdered()
	}
	s.Tables[t.Index] = ts
	return nil
}

// AddEntries adds entries to a table in this state, keeping its others
// (a driver's entry adds and modifies): an exact key already present is
// replaced in its slot. An entry that finds the table full is an error.
func (s *State) AddEntries(t *Table, es []*Entry) error {
	ts := s.Tables[t.Index]
	if ts.exact != nil {
		for _, e := range es {
			var k [maxExactKeys]int64
			copy(k[:], e.Values)
			if ts.put(k, e) < 0 {
				return fmt.Errorf("table %s is full (%d entries)", t.Name, t.Size)
			}
		}
		return nil
	}
	if ts.Len()+len(es) > t.Size {
		return fmt.Errorf("table %s holds %d entries, %d more written to its %d", t.Name, t.Size, len(es), ts.Len())
	}
	ts.ordered = append(ts.ordered, es...)
	ts.sortOrdered()
	return nil
}

// DeleteEntries removes the entries with the same keys (values, masks and
// prefixes) as es from a table in this state; a key it does not hold is an
// error.
func (s *State) DeleteEntries(t *Table, es []*Entry) error {
	ts := s.Tables[t.Index]
	for _, e := range es {
		if ts.exact != nil {
			var k [maxExactKeys]int64
			copy(k[:], e.Values)
			if ts.remove(k) < 0 {
				return fmt.Errorf("table %s has no entry %v", t.Name, e.Values)
			}
			continue
		}
		found := -1
		for i, o := range ts.ordered {
			if sameKey(o, e) {
				found = i
				break
			}
		}
		if found < 0 {
			return fmt.Errorf("table %s has no entry %v", t.Name, e.Values)
		}
		ts.ordered = append(ts.ordered[:found], ts.ordered[found+1:]...)
		ts.runs, ts.indexed = nil, false
	}
	return nil
}

func sameKey(a, b *Entry) bool {
	if len(a.Values) != len(b.Values) || len(a.Masks) != len(b.Masks) || len(a.Prefix) != len(b.Prefix) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] {
			return false
		}
	}
	for i := range a.Masks {
		if a.Masks[i] != b.Masks[i] {
			return false
		}
	}
	for i := range a.Prefix {
		if a.Prefix[i] != b.Prefix[i] {
			return false
		}
	}
	return true
}
