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
