package programs

import (
	"strings"
)

// rejectState is the sentinel parse state "reject": the parser drops the
// packet.
var rejectState = &ParseState{Name: "reject"}

// IsReject reports whether s is the reject state.
func (s *ParseState) IsReject() bool { return s == rejectState }

func (l *loader) loadParser(n node, egress bool) error {
	if n.n.Tag == "!!null" {
		return nil
	}
	f, err := n.fields("start", "states")
	if err != nil {
		return err
	}
	sn, ok := f["states"]
	if !ok {
		return n.errf("missing states")
	}
	ps, err := sn.pairs()
	if err != nil {
		return err
	}
	p := &Parser{}
	byName := map[string]*ParseState{}
	for _, sp := range ps {
		if err := checkName(sp.val, sp.key, "parser state"); err != nil {
			return err
		}
		st := &ParseState{Name: sp.key, Pos: sp.val.pos()}
		byName[st.Name] = st
		p.States = append(p.States, st)
	}
	resolve := func(at node, name string) (*ParseState, error) {
		switch name {
		case "accept":
			return nil, nil
		case "reject":
			return rejectState, nil
		}
		st, ok := byName[name]
		if !ok {
			return nil, at.errf("undefined parser state %q", name)
		}
		return st, nil
	}
	for i, sp := range ps {
		st := p.States[i]
		sf, err := sp.val.fields("extract", "select", "transitions", "next")
		if err != nil {
			return err
		}
		if en, ok := sf["extract"]; ok {
			var names []node
			if en.isSeq() {
				if names, err = en.items(); err != nil {
					return err
				}
			} else {
				names = []node{en}
			}
			for _, hn := range names {
				h, ok := l.headers[hn.n.Value]
				if !ok {
					return hn.errf("undefined header %q", hn.n.Value)
				}
				st.Extract = append(st.Extract, h)
			}
		}
		if nx, ok := sf["next"]; ok {
			if _, ok := sf["select"]; ok {
				return nx.errf("use either next or select/transitions")
			}
			target, err := resolve(nx, nx.n.Value)
			if err != nil {
				return err
			}
			st.Transitions = []Transition{{Default: true, Next: target}}
			continue
		}
		seln, ok := sf["select"]
		if !ok {
			st.Transitions = []Transition{{Default: true}}
			continue
		}
		c := l.codeString(seln, seln.n.Value, ctxKey)
		c.what = "parser state " + st.Name + " select"
		e, err := c.parseExpr(seln.n.Value)
		if err != nil {
			return err
		}
		fe, ok := e.(*FieldExpr)
		if !ok {
			return seln.errf("select must name one field")
		}
		st.Select = fe.F
		tn, ok := sf["transitions"]
		if !ok {
			return sp.val.errf("select needs transitions")
		}
		tps, err := tn.pairs()
		if err != nil {
			return err
		}
		hasDefault := false
		for _, tp := range tps {
			target, err := resolve(tp.val, tp.val.n.Value)
			if err != nil {
				return err
			}
			tr := Transition{Next: target}
			if tp.key == "default" {
				tr.Default = true
				hasDefault = true
			} else if hasDefault {
				// Transitions are tried in the order written: the default
				// would take every packet this value should.
				return tp.val.errf("transition %q comes after default, which would take its packets; list default last", tp.key)
			} else {
				t := st.Select.Type
				vs, ms := tp.key, ""
				if parts := strings.Split(tp.key, "&&&"); len(parts) == 2 {
					vs, ms = parts[0], parts[1]
				}
				v, err := l.consts.evalConstString(vs)
				if err != nil || v.isFloat || !fits(v.i, t) {
					return tp.val.errf("select value %q must be an integer that fits %s", tp.key, t)
				}
				// The value as the field's bits: a signed field's -1 is
				// 0xff in an 8-bit field, which is what the mask leaves of
				// the field's (sign-extended) value.
				tr.Mask = Type{Bits: t.Bits}.Max()
				tr.Value = t.Norm(v.i) & tr.Mask
				if ms != "" {
					m, err := l.consts.evalConstString(ms)
					if err != nil || m.isFloat {
						return tp.val.errf("bad mask in %q", tp.key)
					}
					tr.Mask = Type{Bits: t.Bits}.Norm(m.i)
					tr.Value &= tr.Mask
				}
			}
			st.Transitions = append(st.Transitions, tr)
		}
		if !hasDefault {
			st.Transitions = append(st.Transitions, Transition{Default: true, Next: rejectState})
		}
	}
	start := "start"
	if s, ok := f["start"]; ok {
		start = s.n.Value
	}
	st, ok := byName[start]
	if !ok {
		return n.errf("start state %q is not defined", start)
	}
	p.Start = st
	if err := checkParseCycles(p); err != nil {
		return err
	}
	if egress {
		l.prog.EgressParser = p
	} else {
		l.prog.Parser = p
	}
	return nil
}

// checkParseCycles rejects parse graphs with loops (no header stacks are
// modelled, so a loop could never terminate usefully) and states that
// extract a header twice on one path.
func checkParseCycles(p *Parser) error {
	const (
		white = iota
		grey
		black
	)
	color := map[*ParseState]int{}
	var visit func(s *ParseState, from *ParseState) error
	visit = func(s, from *ParseState) error {
		if s == nil || s.IsReject() {
			return nil
		}
		switch color[s] {
		case grey:
			return errorf(from.Pos, "parser state "+from.Name, "transition back to %s makes the parse graph cyclic", s.Name)
		case black:
			return nil
		}
		color[s] = grey
		for _, t := range s.Transitions {
			if err := visit(t.Next, s); err != nil {
				return err
			}
		}
		color[s] = black
		return nil
	}
	return visit(p.Start, nil)
}

func (l *loader) loadTraffic(n node) error {
	items, err := n.items()
	if err != nil {
		return err
	}
	for _, it := range items {
		f, err := it.fields("name", "ports", "sizes", "weight", "interval_ns", "headers")
		if err != nil {
			return err
		}
		ft := &FlowTemplate{Weight: 1, Values: map[*Field][]int64{}, Pos: it.pos()}
		if nn, ok := f["name"]; ok {
			ft.Name = nn.n.Value
		}
		ints := func(key string) ([]int, error) {
			nn, ok := f[key]
			if !ok {
				return nil, nil
			}
			vs := []node{nn}
			if nn.isSeq() {
				if vs, err = nn.items(); err != nil {
					return nil, err
				}
			}
			var out []int
			for _, v := range vs {
				x, err := l.consts.intValue(v)
				if err != nil {
					return nil, err
				}
				out = append(out, int(x))
			}
			return out, nil
		}
		if ft.Ports, err = ints("ports"); err != nil {
			return err
		}
		if ft.Sizes, err = ints("sizes"); err != nil {
			return err
		}
		for _, s := range ft.Sizes {
			if s < 1 || s > 16384 {
				return it.errf("packet size %d out of range 1..16384", s)
			}
		}
		if w, ok := f["weight"]; ok {
			x, err := l.consts.intValue(w)
			if err != nil {
				return err
			}
			if x < 1 {
				return w.errf("weight must be ≥ 1")
			}
			ft.Weight = int(x)
		}
		if iv, ok := f["interval_ns"]; ok {
			return iv.errf("interval_ns is no longer a traffic key: a periodic packet source is a packet-generator application (the pktgen: section)")
		}
		if len(ft.Ports) == 0 {
			return it.errf("missing ports (device ports the test packets arrive on)")
		}
		if len(ft.Sizes) == 0 {
			return it.errf("missing sizes (packet sizes in bytes)")
		}
		hn, ok := f["headers"]
		if !ok {
			return it.errf("missing headers (the headers of the test packets, in wire order)")
		}
		if err := l.templateHeaders(ft, hn); err != nil {
			return err
		}
		hdr := 0
		var names []string
		for _, h := range ft.Headers {
			hdr += h.Bytes()
			names = append(names, h.Name)
		}
		for _, s := range ft.Sizes {
			if s < hdr {
				return it.errf("packet size %d is shorter than its headers (%d bytes: %s)", s, hdr, strings.Join(names, ", "))
			}
		}
		l.prog.Traffic = append(l.prog.Traffic, ft)
	}
	return nil
}

// templateHeaders reads a packet template's headers (in wire order) and
// the values of their fields (a list cycles packet by packet).
func (l *loader) templateHeaders(ft *FlowTemplate, hn node) error {
	hps, err := hn.pairs()
	if err != nil {
		return err
	}
	for _, hp := range hps {
		h, ok := l.headers[hp.key]
		if !ok {
			return hp.val.errf("undefined header %q", hp.key)
		}
		ft.Headers = append(ft.Headers, h)
		fps, err := hp.val.pairs()
		if err != nil {
			return err
		}
		for _, fp := range fps {
			var fld *Field
			for _, hf := range h.Fields {
				if hf.Short == fp.key {
					fld = hf
				}
			}
			if fld == nil {
				return fp.val.errf("header %s has no field %q", h.Name, fp.key)
			}
			vs := []node{fp.val}
			if fp.val.isSeq() {
				if vs, err = fp.val.items(); err != nil {
					return err
				}
			}
			for _, vn := range vs {
				x, err := l.consts.intValue(vn)
				if err != nil {
					return err
				}
				if !fits(x, fld.Type) {
					return vn.errf("%d does not fit %s (%s)", x, fld.Name, fld.Type)
				}
				ft.Values[fld] = append(ft.Values[fld], fld.Type.Norm(x))
			}
			ft.Fields = append(ft.Fields, fld)
		}
	}
	return nil
}
