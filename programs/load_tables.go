package programs

import (
	"fmt"
	"go/ast"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// defaultTableSize is the size bf-p4c gives a table that declares none
// (P4-16 spec §14.2.1.5 leaves it to the target; bf-p4c uses 512).
const defaultTableSize = 512

func (l *loader) loadTables(n node) error {
	l.tables = map[string]*Table{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "table"); err != nil {
			return err
		}
		t, err := l.loadTable(p.key, p.val)
		if err != nil {
			return err
		}
		l.tables[t.Name] = t
		l.prog.Tables = append(l.prog.Tables, t)
	}
	return nil
}

func (l *loader) loadTable(name string, n node) (*Table, error) {
	f, err := n.fields("key", "actions", "default", "size", "entries", "const", "aging")
	if err != nil {
		return nil, err
	}
	t := &Table{Index: len(l.prog.Tables), Name: name, Size: defaultTableSize, Pos: n.pos()}
	if kn, ok := f["key"]; ok {
		kps, err := kn.pairs()
		if err != nil {
			return nil, err
		}
		for _, kp := range kps {
			k, err := l.loadKey(kp.key, kp.val)
			if err != nil {
				return nil, err
			}
			t.Keys = append(t.Keys, k)
		}
	}
	an, ok := f["actions"]
	if !ok {
		return nil, n.errf("missing actions (the list of actions the table may run)")
	}
	items, err := an.items()
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		s, err := it.str()
		if err != nil {
			return nil, err
		}
		a, ok := l.actions[s]
		if !ok {
			return nil, it.errf("undefined action %q", s)
		}
		if slices.Contains(t.Actions, a) {
			return nil, it.errf("action %s is listed twice", s)
		}
		t.Actions = append(t.Actions, a)
	}
	if len(t.Actions) == 0 {
		return nil, an.errf("a table needs at least one action")
	}
	if dn, ok := f["default"]; ok {
		s, err := dn.str()
		if err != nil {
			return nil, err
		}
		if t.Default, err = l.parseActionCall(dn, s, t); err != nil {
			return nil, err
		}
	}
	if sn, ok := f["size"]; ok {
		v, err := l.consts.intValue(sn)
		if err != nil {
			return nil, err
		}
		if v < 1 || v > 1<<24 {
			return nil, sn.errf("size must be 1..16777216 entries, got %d", v)
		}
		t.Size = int(v)
	}
	if cn, ok := f["const"]; ok {
		if t.Const, err = cn.boolean("const"); err != nil {
			return nil, err
		}
	}
	if an, ok := f["aging"]; ok {
		if t.Aging, err = an.boolean("aging"); err != nil {
			return nil, err
		}
		if t.Aging {
			if why := notExact(t); why != "" {
				return nil, an.errf("aging: table %s %s; REF flags belong to hash-table records, so aging needs 1..%d exact keys", t.Name, why, maxExactKeys)
			}
		}
	}
	if en, ok := f["entries"]; ok {
		items, err := en.items()
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			err := l.expandFor(it, func(item node) error {
				if len(t.Entries) >= t.Size {
					return en.errf("more entries than the table's size %d", t.Size)
				}
				e, err := l.loadEntry(item, t, len(t.Entries))
				if err != nil {
					return err
				}
				t.Entries = append(t.Entries, e)
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		if len(t.Entries) > t.Size {
			return nil, en.errf("%d entries do not fit the table's size %d", len(t.Entries), t.Size)
		}
		if err := duplicateEntry(t, en); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// duplicateEntry refuses two entries with one key in a table whose keys
// are all exact or longest-prefix: such a key is one entry (a driver
// refuses the second), and which of the two would match is not the
// program's to say. Ternary and range tables order overlapping entries by
// their position, so a repeated key there is a shadowed entry, not an
// error.
func duplicateEntry(t *Table, en node) error {
	for _, k := range t.Keys {
		if k.Kind == MatchTernary || k.Kind == MatchRange {
			return nil
		}
	}
	type key struct{ values, masks, prefix string }
	seen := make(map[key]int, len(t.Entries))
	for i, e := range t.Entries {
		k := key{fmt.Sprint(e.Values), fmt.Sprint(e.Masks), fmt.Sprint(e.Prefix)}
		if j, ok := seen[k]; ok {
			return errorf(e.Pos, en.path()+"["+strconv.Itoa(i)+"]", "key %s repeats entries[%d]'s (line %d): an exact or longest-prefix key is one entry",
				entryKeyText(t, e), j, t.Entries[j].Pos.Line)
		}
		seen[k] = i
	}
	return nil
}

// entryKeyText writes an entry's key: each value in hex (/prefix for
// longest-prefix keys).
func entryKeyText(t *Table, e *Entry) string {
	var parts []string
	for i, k := range t.Keys {
		v := "0x" + strconv.FormatUint(uint64(e.Values[i]), 16)
		if k.Kind == MatchLPM {
			v += "/" + strconv.Itoa(e.Prefix[i])
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, ", ")
}

// notExact tells why t is not an exact table whose entries live in record
// slots ("" when it is one).
func notExact(t *Table) string {
	if len(t.Keys) == 0 {
		return "has no key"
	}
	if len(t.Keys) > maxExactKeys {
		return fmt.Sprintf("has %d keys", len(t.Keys))
	}
	for _, k := range t.Keys {
		if k.Kind != MatchExact {
			return fmt.Sprintf("has a %s key (%s)", k.Kind, k.Field.Name)
		}
	}
	return ""
}

func (l *loader) loadKey(src string, n node) (*Key, error) {
	kind, err := n.str()
	if err != nil {
		return nil, err
	}
	k := &Key{Pos: n.pos()}
	switch kind {
	case "exact":
		k.Kind = MatchExact
	case "ternary":
		k.Kind = MatchTernary
	case "lpm":
		k.Kind = MatchLPM
	case "range":
		k.Kind = MatchRange
	default:
		return nil, n.errf("match kind must be exact, ternary, lpm or range, got %q", kind)
	}
	c := l.codeString(n, src, ctxKey)
	c.what = "key"
	e, err := c.parseExpr(src)
	if err != nil {
		return nil, err
	}
	switch x := e.(type) {
	case *FieldExpr:
		k.Field = x.F
	case *ValidExpr:
		k.Field = x.H.Valid
		e = &FieldExpr{F: x.H.Valid, Pos: x.Pos}
	case *SliceExpr:
		fe, ok := x.X.(*FieldExpr)
		if !ok {
			return nil, n.errf("a key must be a field or a slice of a field")
		}
		k.Field = fe.F
	default:
		return nil, n.errf("a key must be a field or a slice of a field, got %q", src)
	}
	k.Expr = e
	k.Bits = e.Type().Bits
	return k, nil
}

// parseActionCall parses "name" or "name(arg, ...)" with constant arguments.
func (l *loader) parseActionCall(n node, s string, t *Table) (ActionCall, error) {
	e, err := l.consts.parse(strings.TrimSpace(s))
	if err != nil {
		return ActionCall{}, n.errf("cannot parse action call %q", s)
	}
	var name string
	var args []ast.Expr
	switch x := e.(type) {
	case *ast.Ident:
		name = x.Name
	case *ast.CallExpr:
		id, ok := x.Fun.(*ast.Ident)
		if !ok {
			return ActionCall{}, n.errf("cannot parse action call %q", s)
		}
		name, args = id.Name, x.Args
	default:
		return ActionCall{}, n.errf("cannot parse action call %q", s)
	}
	var a *Action
	for _, ta := range t.Actions {
		if ta.Name == name {
			a = ta
		}
	}
	if a == nil {
		return ActionCall{}, n.errf("action %q is not one of table %s's actions", name, t.Name)
	}
	if len(args) != len(a.Params) {
		return ActionCall{}, n.errf("action %s takes %d arguments, got %d", name, len(a.Params), len(args))
	}
	call := ActionCall{Action: a}
	for i, arg := range args {
		v, err := l.consts.evalConst(arg)
		if err != nil {
			if lit, ok := arg.(*ast.BasicLit); ok {
				if addr, ok := parseAddress(strings.Trim(lit.Value, `"`)); ok {
					v, err = number{i: addr}, nil
				}
			}
		}
		if err != nil || v.isFloat {
			return ActionCall{}, n.errf("argument %d of %s must be an integer constant", i+1, name)
		}
		if pt := a.Params[i].Type; !fits(v.i, pt) || (v.i < 0 && !pt.Signed && pt.Bits < 64) {
			return ActionCall{}, n.errf("argument %d of %s: %d does not fit %s (%s)", i+1, name, v.i, a.Params[i].Name, pt)
		}
		call.Args = append(call.Args, a.Params[i].Type.Norm(v.i))
	}
	return call, nil
}

// fits reports whether constant v can be stored in type t (as a signed or an
// unsigned value of that width).
func fits(v int64, t Type) bool {
	if t.Bits >= 64 {
		return true
	}
	if v >= 0 {
		return v <= (Type{Bits: t.Bits}).Max()
	}
	return v >= (Type{Bits: t.Bits, Signed: true}).Min()
}

// expandFor calls fn once per binding of a list item's "for" loops
// ({for: {i: "0..57"}, ...}; several variables nest in order), with the
// loop variables visible as constants; an item without "for" is passed on.
func (l *loader) expandFor(n node, fn func(node) error) error {
	if !n.isMap() {
		return fn(n)
	}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	var loops []pair
	rest := &yaml.Node{Kind: yaml.MappingNode, Line: n.n.Line, Column: n.n.Column}
	for i, p := range ps {
		if p.key == "for" {
			if loops, err = p.val.pairs(); err != nil {
				return err
			}
			continue
		}
		rest.Content = append(rest.Content, n.n.Content[2*i], n.n.Content[2*i+1])
	}
	if loops == nil {
		return fn(n)
	}
	body := node{n: rest, file: n.file, what: n.what, item: n.item}
	// Loops whose bounds are constants multiply before anything is made
	// (bounds over another loop's variable are counted as they run).
	product := uint64(1)
	for _, v := range loops {
		lo, hi, _ := strings.Cut(v.val.n.Value, "..")
		a, err1 := l.consts.evalConstString(lo)
		b, err2 := l.consts.evalConstString(hi)
		if err1 != nil || err2 != nil || a.isFloat || b.isFloat || b.i < a.i || b.i-a.i >= maxLoopItems {
			product = 0 // checked (or refused) as the loop runs
			break
		}
		if product *= uint64(b.i-a.i) + 1; product > maxLoopItems {
			return loops[0].val.errf("the loops of this item make %d items, more than %d", product, maxLoopItems)
		}
	}
	made := 0
	var rec func(k int) error
	rec = func(k int) error {
		if k == len(loops) {
			// Nested loops multiply: bound what they make together, as
			// one loop is bounded (a million entries is far beyond any
			// table a chip holds).
			if made++; made > maxLoopItems {
				return loops[0].val.errf("the loops of this item make more than %d items", maxLoopItems)
			}
			return fn(body)
		}
		v := loops[k]
		lo, hi, ok := strings.Cut(v.val.n.Value, "..")
		if !ok {
			return v.val.errf("a loop range is written lo..hi")
		}
		a, err1 := l.consts.evalConstString(lo)
		b, err2 := l.consts.evalConstString(hi)
		if err1 != nil || err2 != nil || a.isFloat || b.isFloat {
			return v.val.errf("loop bounds must be integer constants")
		}
		if b.i < a.i {
			return v.val.errf("loop range %d..%d is empty (hi below lo): the item would make nothing", a.i, b.i)
		}
		if b.i-a.i >= maxLoopItems || b.i-a.i < 0 {
			return v.val.errf("loop of %d iterations is too long", uint64(b.i-a.i)+1)
		}
		saved, had := l.consts.names[v.key]
		for x := a.i; x <= b.i; x++ {
			l.consts.names[v.key] = number{i: x}
			if err := rec(k + 1); err != nil {
				return err
			}
		}
		if had {
			l.consts.names[v.key] = saved
		} else {
			delete(l.consts.names, v.key)
		}
		return nil
	}
	return rec(0)
}

// maxLoopItems bounds the items one for: item makes, its loops' iterations
// multiplied.
const maxLoopItems = 1 << 20

func (l *loader) loadEntry(n node, t *Table, index int) (*Entry, error) {
	f, err := n.fields("key", "action")
	if err != nil {
		if ps, perr := n.pairs(); perr == nil {
			for _, p := range ps {
				if p.key != "key" && p.key != "action" && strings.Contains(p.key, ")") {
					// {action: fwd(1, 2)}: YAML cut the call at its comma.
					return nil, n.errf("unknown key %q: an action call with a comma must be quoted (action: \"fwd(1, 2)\")", p.key)
				}
			}
		}
		return nil, err
	}
	e := &Entry{Priority: index, Pos: n.pos()}
	an, ok := f["action"]
	if !ok {
		return nil, n.errf("missing action")
	}
	s, err := an.str()
	if err != nil {
		return nil, err
	}
	if e.Call, err = l.parseActionCall(an, s, t); err != nil {
		return nil, err
	}
	kn, ok := f["key"]
	if !ok {
		if len(t.Keys) > 0 {
			return nil, n.errf("missing key")
		}
		return e, nil
	}
	var vals []node
	if kn.isSeq() {
		if vals, err = kn.items(); err != nil {
			return nil, err
		}
	} else {
		vals = []node{kn}
	}
	if len(vals) != len(t.Keys) {
		return nil, kn.errf("table %s has %d key fields, the entry gives %d values", t.Name, len(t.Keys), len(vals))
	}
	for i, vn := range vals {
		v, m, pfx, err := l.keyValue(vn, t.Keys[i])
		if err != nil {
			return nil, err
		}
		e.Values = append(e.Values, v)
		e.Masks = append(e.Masks, m)
		e.Prefix = append(e.Prefix, pfx)
	}
	return e, nil
}

// keyValue parses one key value of an entry: exact "v"; ternary "v &&& m" or
// "_"; lpm "v/len" or "_"; range "lo..hi" or "_".
func (l *loader) keyValue(n node, k *Key) (v, m int64, prefix int, err error) {
	s, err := n.str()
	if err != nil {
		return 0, 0, 0, err
	}
	s = strings.TrimSpace(s)
	t := Type{Bits: k.Bits, Signed: k.Expr.Type().Signed}
	full := Type{Bits: k.Bits}.Max()
	num := func(x string) (int64, error) {
		val, err := l.consts.evalConstString(x)
		if err != nil {
			return 0, n.errf("%v", err)
		}
		if val.isFloat {
			return 0, n.errf("key values must be integers")
		}
		if !fits(val.i, t) {
			return 0, n.errf("%d does not fit the %d-bit key %s", val.i, k.Bits, k.Field.Name)
		}
		return val.i, nil
	}
	if s == "_" {
		switch k.Kind {
		case MatchExact:
			return 0, 0, 0, n.errf("exact keys need a value, not _")
		case MatchRange:
			if k.unsigned64() {
				return 0, -1, 0, nil // 0..2^64-1, as unsigned (unsigned64)
			}
			return t.Min(), t.Max(), 0, nil
		}
		return 0, 0, 0, nil
	}
	switch k.Kind {
	case MatchExact:
		for _, form := range []struct{ sep, kind string }{{"&&&", "a ternary"}, {"..", "a range"}, {"/", "an lpm"}} {
			if strings.Contains(s, form.sep) {
				if _, e := l.consts.evalConstString(s); e != nil {
					return 0, 0, 0, n.errf("%q is %s value, and key %s is matched exact (one value)", s, form.kind, k.Field.Name)
				}
			}
		}
		v, err = num(s)
		return t.Norm(v), full, k.Bits, err
	case MatchTernary:
		if parts := strings.Split(s, "&&&"); len(parts) == 2 {
			if v, err = num(parts[0]); err != nil {
				return
			}
			if m, err = num(parts[1]); err != nil {
				return
			}
			m = Type{Bits: k.Bits}.Norm(m)
			return t.Norm(v) & m, m, 0, nil
		}
		v, err = num(s)
		return t.Norm(v) & full, full, 0, err // a signed key's -1 as its bits, as the match masks the field
	case MatchLPM:
		prefix = k.Bits
		if i := strings.LastIndex(s, "/"); i >= 0 {
			val, e2 := l.consts.evalConstString(s[i+1:])
			if e2 != nil || val.isFloat || val.i < 0 || val.i > int64(k.Bits) {
				return 0, 0, 0, n.errf("prefix length must be 0..%d", k.Bits)
			}
			prefix = int(val.i)
			s = s[:i]
		}
		if v, err = num(s); err != nil {
			return
		}
		m = 0
		if prefix > 0 {
			m = int64(uint64(full) &^ (uint64(1)<<uint(k.Bits-prefix) - 1))
		}
		return t.Norm(v) & m, m, prefix, nil
	case MatchRange:
		lo, hi := s, s
		if parts := strings.Split(s, ".."); len(parts) == 2 {
			lo, hi = parts[0], parts[1]
		}
		if v, err = num(lo); err != nil {
			return
		}
		if m, err = num(hi); err != nil {
			return
		}
		v, m = t.Norm(v), t.Norm(m)
		if k.unsigned64() {
			if uint64(v) > uint64(m) {
				return 0, 0, 0, n.errf("empty range %d..%d for %s key %s", uint64(v), uint64(m), t, k.Field.Name)
			}
		} else if v > m {
			return 0, 0, 0, n.errf("empty range %d..%d for %s key %s", v, m, t, k.Field.Name)
		}
		return v, m, 0, nil
	}
	return 0, 0, 0, fmt.Errorf("unreachable")
}
