package programs

import (
	"fmt"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"archsim/internal/yamlfile"
)

// MaxRegisterCells bounds a register's size (cells).
const MaxRegisterCells = 1 << 24

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedNames cannot name headers, registers, meters, counters, tables or
// actions: they are namespaces, built-ins or code keywords.
var reservedNames = map[string]bool{
	"meta": true, "std": true, "value": true, "lo": true, "hi": true, "out": true,
	"drop": true, "mirror": true, "multicast": true, "recirculate": true, "random": true,
	"hash": true, "payload32": true, "sat_add": true, "sat_sub": true, "min": true, "max": true,
	"accept": true, "reject": true, "default": true,
}

// checkFieldName checks names that live inside a namespace (header fields,
// metadata fields, parameters): only the syntax matters.
func checkFieldName(n node, name, kind string) error {
	if !nameRE.MatchString(name) {
		return n.errf("%s name %q must be letters, digits and _", kind, name)
	}
	if token.Lookup(name).IsKeyword() {
		return n.errf("%s name %q is a reserved word of the code syntax; rename it", kind, name)
	}
	return nil
}

func checkName(n node, name, kind string) error {
	if !nameRE.MatchString(name) {
		return n.errf("%s name %q must be letters, digits and _", kind, name)
	}
	if token.Lookup(name).IsKeyword() {
		return n.errf("%s name %q is a reserved word of the code syntax; rename it", kind, name)
	}
	if reservedNames[name] {
		return n.errf("%s name %q is reserved", kind, name)
	}
	if _, ok := builtinConsts[name]; ok {
		return n.errf("%s name %q is a built-in constant", kind, name)
	}
	return nil
}

// LoadFile reads and checks a program description file.
func LoadFile(path string, overrides map[string]string) (*Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read program: %v", path, err)
	}
	return Load(data, path, overrides)
}

// Load checks a program description. overrides replace named constants
// (e.g. "PORTS": "256") before anything else is evaluated.
func Load(data []byte, file string, overrides map[string]string) (*Program, error) {
	top, second, err := parseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not valid YAML: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if second > 0 {
		return nil, yamlfile.SecondDocumentError(file, second)
	}
	if top == nil {
		return nil, fmt.Errorf("%s: empty program file", file)
	}
	if o := yamlfile.OctalInt(top); o != nil {
		return nil, yamlfile.OctalIntError(file, o)
	}
	root := node{n: top, file: file}
	l := &loader{
		file:   file,
		prog:   &Program{File: file},
		consts: &constScope{names: map[string]number{}},
		names:  map[string]string{},
	}
	if err := l.load(root, overrides); err != nil {
		return nil, err
	}
	return l.prog, nil
}

// parsed holds the YAML trees of the program texts loaded so far, by text:
// a sweep or an aggregation job loads the same program for every run, with
// other constants, and parsing was most of a load. The loader only reads
// the tree (it builds new nodes where it needs them), so runs in parallel
// share it.
var parsed sync.Map // string -> *yaml.Node (the document's top node; nil: empty)

// parsedYAML is a program text's top node and the line of a second
// document (0: none).
type parsedYAML struct {
	top    *yaml.Node
	second int
}

// parseYAML is the top node of a program text's YAML document (nil for an
// empty document) and the line where a second document begins (0: none).
func parseYAML(data []byte) (top *yaml.Node, second int, err error) {
	if p, ok := parsed.Load(string(data)); ok {
		d := p.(parsedYAML)
		return d.top, d.second, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, 0, err
	}
	if len(doc.Content) > 0 {
		top = doc.Content[0]
	}
	second = yamlfile.SecondDocument(data)
	parsed.Store(string(data), parsedYAML{top, second})
	return top, second, nil
}

type loader struct {
	file   string
	prog   *Program
	consts *constScope
	names  map[string]string // top-level object name -> kind

	headers   map[string]*Header
	meta      map[string]*Field
	std       map[string]*Field
	registers map[string]*Register
	meters    map[string]*Meter
	counters  map[string]*Counter
	buffers   map[string]*PacketBuffer
	actions   map[string]*Action
	tables    map[string]*Table
	functions map[string]*Function
	fnBodies  []pair // function bodies, parsed after every other declaration
	timers    map[string]*Timer
	tmBodies  []pair // timer definitions, read after the functions
	// mirrorUses are the mirror(N) calls with a constant session, checked
	// against mirror_sessions at the end (a session the program never
	// declares would silently mirror nothing).
	mirrorUses []mirrorUse
}

// mirrorUse is a mirror(N) call with a constant session N.
type mirrorUse struct {
	id  int64
	pos Pos
}

// checkMirrorUses refuses mirror(N) to a session the program never
// declares.
func (l *loader) checkMirrorUses() error {
	for _, u := range l.mirrorUses {
		var ids []string
		found := false
		for _, m := range l.prog.Mirrors {
			found = found || int64(m.ID) == u.id
			ids = append(ids, fmt.Sprint(m.ID))
		}
		if !found {
			declared := "none"
			if len(ids) > 0 {
				declared = strings.Join(ids, ", ")
			}
			return errorf(u.pos, "", "mirror(%d): no mirror session %d (declared: %s; add it under mirror_sessions)", u.id, u.id, declared)
		}
	}
	return nil
}

var topKeys = []string{"program", "doc", "source", "constants", "headers", "metadata", "parser", "egress_parser",
	"registers", "meters", "counters", "packet_buffers", "actions", "tables", "functions", "timers", "mirror_sessions", "multicast_groups",
	"tm", "ingress", "egress", "traffic", "pktgen", "routes"}

func (l *loader) load(root node, overrides map[string]string) error {
	f, err := root.fields(topKeys...)
	if err != nil {
		return err
	}
	name, ok := f["program"]
	if !ok {
		return root.errf("missing key \"program\" (the program's name)")
	}
	if l.prog.Name, err = name.str(); err != nil {
		return err
	}
	if n, ok := f["doc"]; ok {
		l.prog.Doc, _ = n.str()
	}
	if n, ok := f["source"]; ok {
		l.prog.Source, _ = n.str()
	}
	// Functions are registered first (names only) so that code anywhere,
	// including other functions declared later, resolves calls to them.
	fns := f["functions"]
	if fns.n != nil {
		fns.what = "functions"
	}
	if err := l.declareFunctions(fns); err != nil {
		return err
	}
	// Timers too, so that calling one as a function is a clear error.
	tms := f["timers"]
	if tms.n != nil {
		tms.what = "timers"
	}
	if err := l.declareTimers(tms); err != nil {
		return err
	}
	steps := []struct {
		key string
		fn  func(node) error
	}{
		{"constants", func(n node) error { return l.loadConstants(n, overrides) }},
		{"headers", l.loadHeaders},
		{"metadata", l.loadMetadata},
		{"", func(node) error { l.addStd(); return nil }},
		{"registers", l.loadRegisters},
		{"meters", l.loadMeters},
		{"counters", l.loadCounters},
		{"packet_buffers", l.loadBuffers},
		{"actions", l.loadActions},
		{"tables", l.loadTables},
		{"parser", func(n node) error { return l.loadParser(n, false) }},
		{"egress_parser", func(n node) error { return l.loadParser(n, true) }},
		{"mirror_sessions", l.loadMirrors},
		{"multicast_groups", l.loadMulticast},
		{"tm", l.loadTM},
		{"functions", l.loadFunctions},
		{"timers", l.loadTimers},
		{"ingress", func(n node) error { return l.loadControl(n, "ingress") }},
		{"egress", func(n node) error { return l.loadControl(n, "egress") }},
		{"traffic", l.loadTraffic},
		{"pktgen", l.loadPktgen},
		{"routes", l.loadRoutes},
	}
	for _, s := range steps {
		n, ok := f[s.key]
		if s.key != "" && !ok {
			n = node{n: &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, file: l.file, what: s.key}
			n.n.Line = root.n.Line
		}
		if n.path() == "" {
			n.what, n.item = s.key, 0
		}
		if err := s.fn(n); err != nil {
			return err
		}
	}
	if l.prog.Parser == nil {
		return root.errf("missing key \"parser\"")
	}
	if l.prog.Ingress == nil && l.prog.Egress == nil {
		return root.errf("the program has neither ingress nor egress control flow")
	}
	return l.checkMirrorUses()
}

func (l *loader) declare(n node, name, kind string) error {
	if err := checkName(n, name, kind); err != nil {
		return err
	}
	if k, ok := l.names[name]; ok {
		return n.errf("%s %q: the name is already used by a %s", kind, name, k)
	}
	l.names[name] = kind
	return nil
}

func (l *loader) loadConstants(n node, overrides map[string]string) error {
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for _, p := range ps {
		if err := checkName(p.val, p.key, "constant"); err != nil {
			return err
		}
		src, rangeNode, err := constantSource(p.val)
		if err != nil {
			return err
		}
		o, overridden := overrides[p.key]
		if overridden {
			src = o
			used[p.key] = true
		}
		v, err := l.consts.evalConstString(src)
		if err != nil {
			if overridden {
				// Not the file's value: say which one failed.
				return p.val.errf("the value given for it (--param or a scenario's params), %q: %v", o, err)
			}
			return p.val.errf("%v", err)
		}
		if err := l.checkConstRange(p.val, v, rangeNode, overridden, o); err != nil {
			return err
		}
		l.consts.names[p.key] = v
		l.prog.Constants = append(l.prog.Constants, Constant{Name: p.key, Value: v.i, Float: v.float(), Pos: p.val.pos()})
	}
	var unknown []string
	for k := range overrides {
		if !used[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return fmt.Errorf("%s: --param %s: program %s has no such constant", l.file, unknown[0], l.prog.Name)
	}
	return nil
}

// constantSource returns a constant's expression and its declared range:
// a constant is written as a single value ("T0_NS: 6000") or as a mapping
// with the value and the range the program accepts ("T0_NS: {value: 6000,
// min: 0}").
func constantSource(n node) (string, map[string]node, error) {
	if !n.isMap() {
		src, err := n.str()
		return src, nil, err
	}
	fs, err := n.fields("value", "min", "max")
	if err != nil {
		return "", nil, err
	}
	v, ok := fs["value"]
	if !ok {
		return "", nil, n.errf("a constant written as a mapping needs its value (value: ...), and min and/or max")
	}
	src, err := v.str()
	if err != nil {
		return "", nil, err
	}
	delete(fs, "value")
	return src, fs, nil
}

// checkConstRange checks a constant's value against the range its
// program declares (min, max: constant expressions over earlier
// constants). A value given through --param or a scenario is named as
// such; a file whose own value is out of its range is the author's error.
func (l *loader) checkConstRange(n node, v number, rng map[string]node, overridden bool, given string) error {
	for _, bound := range []string{"min", "max"} {
		bn, ok := rng[bound]
		if !ok {
			continue
		}
		src, err := bn.str()
		if err != nil {
			return err
		}
		b, err := l.consts.evalConstString(src)
		if err != nil {
			return bn.errf("%v", err)
		}
		below := v.float() < b.float()
		if !v.isFloat && !b.isFloat {
			below = v.i < b.i
		}
		above := v.float() > b.float()
		if !v.isFloat && !b.isFloat {
			above = v.i > b.i
		}
		if (bound == "min" && !below) || (bound == "max" && !above) {
			continue
		}
		what := "below its minimum"
		if bound == "max" {
			what = "above its maximum"
		}
		if overridden {
			return n.errf("the value given for it (--param or a scenario's params), %q, is %s %s (%s)",
				given, what, formatNumber(b), rangeText(rng))
		}
		return n.errf("its value %s is %s %s (%s)", formatNumber(v), what, formatNumber(b), rangeText(rng))
	}
	return nil
}

// rangeText writes a declared range as min..max (either side may be open).
func rangeText(rng map[string]node) string {
	lo, hi := "", ""
	if n, ok := rng["min"]; ok {
		lo = strings.TrimSpace(n.n.Value)
	}
	if n, ok := rng["max"]; ok {
		hi = strings.TrimSpace(n.n.Value)
	}
	return "range " + lo + ".." + hi
}

// formatNumber writes a constant's value as the file would.
func formatNumber(n number) string {
	if n.isFloat {
		return strconv.FormatFloat(n.f, 'g', -1, 64)
	}
	return strconv.FormatInt(n.i, 10)
}

// parseType parses a width spec: "32" (bit<32>), "i32" (int<32>), "bool",
// or a constant expression giving the width ("PORT_BITS + 11").
func (l *loader) parseType(n node) (Type, error) {
	s, err := n.str()
	if err != nil {
		return Type{}, err
	}
	s = strings.TrimSpace(s)
	if s == "bool" {
		return Type{Bits: 1}, nil
	}
	signed := false
	if strings.HasPrefix(s, "i") {
		if _, err := strconv.Atoi(s[1:]); err == nil {
			signed = true
			s = s[1:]
		}
	}
	b, err := strconv.Atoi(s)
	if err != nil && l != nil {
		v, cerr := l.consts.evalConstString(s)
		if cerr == nil && !v.isFloat {
			b, err = int(v.i), nil
		}
	}
	if err != nil || b < 1 || b > 64 {
		return Type{}, n.errf("width must be 1..64 bits, written 32 (unsigned), i32 (signed), bool or a constant expression; got %q", n.n.Value)
	}
	return Type{Bits: b, Signed: signed}, nil
}

func (l *loader) newField(f *Field) *Field {
	f.Slot = len(l.prog.Fields)
	l.prog.Fields = append(l.prog.Fields, f)
	return f
}

func (l *loader) loadHeaders(n node) error {
	l.headers = map[string]*Header{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "header"); err != nil {
			return err
		}
		h := &Header{Name: p.key, Index: len(l.prog.Headers), Pos: p.val.pos()}
		fs, err := p.val.pairs()
		if err != nil {
			return err
		}
		if len(fs) == 0 {
			return p.val.errf("a header needs at least one field")
		}
		for _, fp := range fs {
			if err := checkFieldName(fp.val, fp.key, "field"); err != nil {
				return err
			}
			t, err := l.parseType(fp.val)
			if err != nil {
				return err
			}
			f := l.newField(&Field{Name: h.Name + "." + fp.key, Short: fp.key, Type: t, Kind: HeaderField,
				Header: h, Offset: h.Bits, Pos: fp.val.pos()})
			h.Fields = append(h.Fields, f)
			h.Bits += t.Bits
		}
		if h.Bits%8 != 0 {
			return p.val.errf("header is %d bits long; headers must be whole bytes", h.Bits)
		}
		h.Valid = l.newField(&Field{Name: h.Name + ".$valid", Short: "$valid", Type: Type{Bits: 1},
			Kind: ValidBit, Header: h, Pos: h.Pos})
		l.headers[h.Name] = h
		l.prog.Headers = append(l.prog.Headers, h)
	}
	return nil
}

func (l *loader) loadMetadata(n node) error {
	l.meta = map[string]*Field{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := checkFieldName(p.val, p.key, "metadata field"); err != nil {
			return err
		}
		var t Type
		bridged := false
		if p.val.isMap() {
			f, err := p.val.fields("width", "bridged")
			if err != nil {
				return err
			}
			w, ok := f["width"]
			if !ok {
				return p.val.errf("missing width")
			}
			if t, err = l.parseType(w); err != nil {
				return err
			}
			if b, ok := f["bridged"]; ok {
				if bridged, err = b.boolean("bridged"); err != nil {
					return err
				}
			}
		} else if t, err = l.parseType(p.val); err != nil {
			return err
		}
		f := l.newField(&Field{Name: "meta." + p.key, Short: p.key, Type: t, Kind: MetaField, Bridged: bridged, Pos: p.val.pos()})
		if bridged {
			l.prog.BridgeBits += t.Bits
		}
		l.meta[p.key] = f
		l.prog.Meta = append(l.prog.Meta, f)
	}
	return nil
}

func (l *loader) addStd() {
	l.std = map[string]*Field{}
	for _, info := range StdFields {
		f := l.newField(&Field{Name: "std." + info.Name, Short: info.Name, Type: Type{Bits: info.Bits},
			Kind: StdField, Std: info.ID, Pos: Pos{File: l.file}})
		l.std[info.Name] = f
		l.prog.Std[info.ID] = f
	}
	l.prog.NumSlots = len(l.prog.Fields)
}

func (l *loader) loadRegisters(n node) error {
	l.registers = map[string]*Register{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	// Declare all registers and their actions first, then check bodies.
	type pending struct {
		ra   *RegisterAction
		body node
	}
	var bodies []pending
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "register"); err != nil {
			return err
		}
		f, err := p.val.fields("width", "size", "init", "pair", "actions")
		if err != nil {
			return err
		}
		r := &Register{Index: len(l.prog.Registers), Name: p.key, Pos: p.val.pos()}
		w, ok := f["width"]
		if !ok {
			return p.val.errf("missing width")
		}
		if r.Type, err = l.parseType(w); err != nil {
			return err
		}
		size, ok := f["size"]
		if !ok {
			return p.val.errf("missing size (number of cells)")
		}
		sz, err := l.consts.intValue(size)
		if err != nil {
			return err
		}
		if sz < 1 || sz > MaxRegisterCells {
			return size.errf("size must be 1..%d cells, got %d", MaxRegisterCells, sz)
		}
		r.Size = int(sz)
		if v, ok := f["init"]; ok {
			if r.Init, err = l.consts.intValue(v); err != nil {
				return err
			}
		}
		if v, ok := f["pair"]; ok {
			if r.Pair, err = v.boolean("pair"); err != nil {
				return err
			}
			if r.Pair && r.Type.Bits%2 != 0 {
				return v.errf("a pair register needs an even width")
			}
		}
		if v, ok := f["init"]; ok && !fits(r.Init, r.Type) {
			return v.errf("init %d does not fit the register's %s (it would start as %d)", r.Init, r.Type, r.Type.Norm(r.Init))
		}
		acts, ok := f["actions"]
		if !ok {
			return p.val.errf("a register needs at least one register action under \"actions\"")
		}
		aps, err := acts.pairs()
		if err != nil {
			return err
		}
		for _, ap := range aps {
			if err := checkName(ap.val, ap.key, "register action"); err != nil {
				return err
			}
			for _, other := range r.Actions {
				if other.Name == ap.key {
					return ap.val.errf("duplicate register action")
				}
			}
			ra := &RegisterAction{Name: ap.key, Register: r, OutType: r.Type, Pos: ap.val.pos()}
			if r.Pair {
				ra.OutType = r.HalfType()
			}
			body := ap.val
			if ap.val.isMap() {
				af, err := ap.val.fields("do", "out")
				if err != nil {
					return err
				}
				if body, ok = af["do"]; !ok {
					return ap.val.errf("missing do")
				}
				if on, ok := af["out"]; ok {
					if ra.OutType, err = l.parseType(on); err != nil {
						return err
					}
				}
			}
			r.Actions = append(r.Actions, ra)
			bodies = append(bodies, pending{ra, body})
		}
		l.registers[r.Name] = r
		l.prog.Registers = append(l.prog.Registers, r)
	}
	for _, b := range bodies {
		c := l.code(b.body, ctxRegisterAction)
		c.ra = b.ra
		c.what = fmt.Sprintf("register %s action %s", b.ra.Register.Name, b.ra.Name)
		stmts, err := c.parse()
		if err != nil {
			return err
		}
		b.ra.Body = stmts
		b.ra.Writes = c.writesCell
	}
	return nil
}

func (l *loader) loadMeters(n node) error {
	l.meters = map[string]*Meter{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "meter"); err != nil {
			return err
		}
		f, err := p.val.fields("size", "unit", "cir", "pir", "cbs", "pbs")
		if err != nil {
			return err
		}
		m := &Meter{Index: len(l.prog.Meters), Name: p.key, Pos: p.val.pos()}
		for _, k := range []string{"size", "cir", "pir", "cbs", "pbs"} {
			if _, ok := f[k]; !ok {
				return p.val.errf("missing %s", k)
			}
		}
		sz, err := l.consts.intValue(f["size"])
		if err != nil {
			return err
		}
		if sz < 1 || sz > 1<<20 {
			return f["size"].errf("size must be 1..1048576, got %d", sz)
		}
		m.Size = int(sz)
		if u, ok := f["unit"]; ok {
			switch u.n.Value {
			case "bytes":
				m.Unit = MeterBytes
			case "packets":
				m.Unit = MeterPackets
			default:
				return u.errf("unit must be bytes or packets, got %q", u.n.Value)
			}
		}
		if m.CIR, err = l.consts.floatValue(f["cir"]); err != nil {
			return err
		}
		if m.PIR, err = l.consts.floatValue(f["pir"]); err != nil {
			return err
		}
		if m.CBS, err = l.consts.intValue(f["cbs"]); err != nil {
			return err
		}
		if m.PBS, err = l.consts.intValue(f["pbs"]); err != nil {
			return err
		}
		if m.CIR <= 0 || m.PIR < m.CIR {
			return p.val.errf("need 0 < cir <= pir (RFC 2698), got cir %g pir %g", m.CIR, m.PIR)
		}
		if m.CBS <= 0 || m.PBS <= 0 {
			return p.val.errf("cbs and pbs must be positive")
		}
		l.meters[m.Name] = m
		l.prog.Meters = append(l.prog.Meters, m)
	}
	return nil
}

func (l *loader) loadCounters(n node) error {
	l.counters = map[string]*Counter{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "counter"); err != nil {
			return err
		}
		f, err := p.val.fields("size")
		if err != nil {
			return err
		}
		sz, ok := f["size"]
		if !ok {
			return p.val.errf("missing size")
		}
		v, err := l.consts.intValue(sz)
		if err != nil {
			return err
		}
		if v < 1 || v > 1<<20 {
			return sz.errf("size must be 1..1048576")
		}
		c := &Counter{Index: len(l.prog.Counters), Name: p.key, Size: int(v), Pos: p.val.pos()}
		l.counters[c.Name] = c
		l.prog.Counters = append(l.prog.Counters, c)
	}
	return nil
}

// loadBuffers reads the packet buffers: name: {slots: N}.
func (l *loader) loadBuffers(n node) error {
	l.buffers = map[string]*PacketBuffer{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := l.declare(p.val, p.key, "packet buffer"); err != nil {
			return err
		}
		f, err := p.val.fields("slots")
		if err != nil {
			return err
		}
		sz, ok := f["slots"]
		if !ok {
			return p.val.errf("missing slots (the packets it can hold)")
		}
		v, err := l.consts.intValue(sz)
		if err != nil {
			return err
		}
		if v < 1 || v > 1<<20 {
			return sz.errf("slots must be 1..1048576")
		}
		b := &PacketBuffer{Index: len(l.prog.Buffers), Name: p.key, Slots: int(v), Pos: p.val.pos()}
		l.buffers[b.Name] = b
		l.prog.Buffers = append(l.prog.Buffers, b)
	}
	return nil
}

func (l *loader) loadActions(n node) error {
	l.actions = map[string]*Action{}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	type pending struct {
		a    *Action
		body node
	}
	var bodies []pending
	for _, p := range ps {
		if err := checkName(p.val, p.key, "action"); err != nil {
			return err
		}
		if _, ok := l.actions[p.key]; ok {
			return p.val.errf("duplicate action")
		}
		a := &Action{Name: p.key, Pos: p.val.pos()}
		body := p.val
		if p.val.isMap() {
			f, err := p.val.fields("params", "do")
			if err != nil {
				return err
			}
			if pn, ok := f["params"]; ok {
				pps, err := pn.pairs()
				if err != nil {
					return err
				}
				for _, pp := range pps {
					if err := checkFieldName(pp.val, pp.key, "parameter"); err != nil {
						return err
					}
					t, err := l.parseType(pp.val)
					if err != nil {
						return err
					}
					a.Params = append(a.Params, &Param{Name: pp.key, Type: t, Index: len(a.Params)})
				}
			}
			body = f["do"]
			if body.n == nil {
				body = node{n: &yaml.Node{Kind: yaml.ScalarNode, Value: ""}, file: l.file, what: p.key}
				body.n.Line = p.val.n.Line
			}
		}
		l.actions[a.Name] = a
		l.prog.Actions = append(l.prog.Actions, a)
		bodies = append(bodies, pending{a, body})
	}
	for _, b := range bodies {
		c := l.code(b.body, ctxAction)
		c.action = b.a
		c.what = "action " + b.a.Name
		stmts, err := c.parse()
		if err != nil {
			return err
		}
		b.a.Body = stmts
	}
	return nil
}

func (l *loader) loadControl(n node, gress string) error {
	if n.n.Tag == "!!null" {
		return nil
	}
	c := l.code(n, ctxControl)
	c.what = gress
	stmts, err := c.parse()
	if err != nil {
		return err
	}
	ctl := &Control{Name: gress, Body: stmts, Pos: n.pos()}
	if gress == "ingress" {
		l.prog.Ingress = ctl
	} else {
		l.prog.Egress = ctl
	}
	return nil
}

// loadMirrors reads mirror sessions, a list of {id, port, truncate} items
// (with optional for loops).
func (l *loader) loadMirrors(n node) error {
	items, err := n.items()
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := l.expandFor(it, l.loadMirror); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) loadMirror(item node) error {
	if len(l.prog.Mirrors) >= 1024 {
		return item.errf("more than 1024 mirror sessions")
	}
	f, err := item.fields("id", "port", "truncate", "queue")
	if err != nil {
		return err
	}
	idn, ok := f["id"]
	if !ok {
		return item.errf("missing id")
	}
	id, err := l.consts.intValue(idn)
	if err != nil {
		return err
	}
	if id < 0 || id > 1023 {
		return idn.errf("mirror session id must be 0..1023, got %d", id)
	}
	for _, m := range l.prog.Mirrors {
		if m.ID == int(id) {
			return idn.errf("mirror session %d is defined twice", id)
		}
	}
	s := &MirrorSession{ID: int(id), Pos: item.pos()}
	pn, ok := f["port"]
	if !ok {
		return item.errf("missing port")
	}
	port, err := l.consts.intValue(pn)
	if err != nil {
		return err
	}
	if err := checkPort(pn, port); err != nil {
		return err
	}
	s.Port = int(port)
	if t, ok := f["truncate"]; ok {
		v, err := l.consts.intValue(t)
		if err != nil {
			return err
		}
		if v < 0 || v > 16383 {
			return t.errf("truncate must be 0..16383 bytes")
		}
		s.Truncate = int(v)
	}
	if q, ok := f["queue"]; ok {
		v, err := l.consts.intValue(q)
		if err != nil {
			return err
		}
		if v < 0 || v > 31 {
			return q.errf("queue must be 0..31")
		}
		s.Queue = int(v)
	}
	l.prog.Mirrors = append(l.prog.Mirrors, s)
	return nil
}

// checkPort refuses a replication port std.egress_port cannot hold (a
// mirror session's or a multicast group's): which ports a chip has is
// checked where the program runs.
func checkPort(n node, port int64) error {
	if bits := StdFields[StdEgressPort].Bits; port < 0 || port >= 1<<bits {
		return n.errf("must be a port 0..%d (the %d bits of std.egress_port), got %d", 1<<bits-1, bits, port)
	}
	return nil
}

func (l *loader) loadMulticast(n node) error {
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		id, err := l.consts.evalConstString(p.key)
		if err != nil || id.isFloat || id.i < 1 || id.i > 65535 {
			return p.val.errf("multicast group id must be 1..65535")
		}
		items, err := p.val.items()
		if err != nil {
			return err
		}
		g := &MulticastGroup{ID: int(id.i), Pos: p.val.pos()}
		for _, it := range items {
			v, err := l.consts.intValue(it)
			if err != nil {
				return err
			}
			if err := checkPort(it, v); err != nil {
				return err
			}
			g.Ports = append(g.Ports, int(v))
		}
		l.prog.Multicast = append(l.prog.Multicast, g)
	}
	return nil
}

// loadTM reads the traffic-manager settings: per-queue priority, DWRR
// weight and admission limit, and what deflect-on-drop does.
func (l *loader) loadTM(n node) error {
	l.prog.TM.OnDrop = DropAction{Mode: "deflect"}
	if n.n.Tag == "!!null" {
		return nil
	}
	f, err := n.fields("queues", "on_drop")
	if err != nil {
		return err
	}
	if qn, ok := f["queues"]; ok {
		items, err := qn.items()
		if err != nil {
			return err
		}
		for _, it := range items {
			qf, err := it.fields("qid", "priority", "weight", "limit_cells")
			if err != nil {
				return err
			}
			q := QueueConfig{Weight: 1, Pos: it.pos()}
			var qid, prio, weight int64 = -1, 0, 1
			for _, x := range []struct {
				key      string
				dst      *int64
				min, max int64
			}{{"qid", &qid, 0, 31}, {"priority", &prio, 0, 7}, {"weight", &weight, 1, 1 << 16}, {"limit_cells", &q.LimitCells, 0, 1 << 24}} {
				vn, ok := qf[x.key]
				if !ok {
					continue
				}
				v, err := l.consts.intValue(vn)
				if err != nil {
					return err
				}
				if v < x.min || v > x.max {
					return vn.errf("%s must be %d..%d, got %d", x.key, x.min, x.max, v)
				}
				*x.dst = v
			}
			if qid < 0 {
				return it.errf("missing qid")
			}
			for _, o := range l.prog.TM.Queues {
				if o.Qid == int(qid) {
					return it.errf("queue %d is configured twice", qid)
				}
			}
			q.Qid, q.Priority, q.Weight = int(qid), int(prio), int(weight)
			l.prog.TM.Queues = append(l.prog.TM.Queues, q)
		}
		sort.Slice(l.prog.TM.Queues, func(i, j int) bool { return l.prog.TM.Queues[i].Qid < l.prog.TM.Queues[j].Qid })
	}
	if dn, ok := f["on_drop"]; ok {
		df, err := dn.fields("mode", "queue", "truncate", "signal")
		if err != nil {
			return err
		}
		l.prog.TM.OnDrop.Pos = dn.pos()
		if m, ok := df["mode"]; ok {
			switch m.n.Value {
			case "deflect", "mirror":
				l.prog.TM.OnDrop.Mode = m.n.Value
			default:
				return m.errf("mode must be deflect or mirror, got %q", m.n.Value)
			}
		}
		if q, ok := df["queue"]; ok {
			v, err := l.consts.intValue(q)
			if err != nil {
				return err
			}
			if v < 0 || v > 31 {
				return q.errf("queue must be 0..31")
			}
			l.prog.TM.OnDrop.Queue = int(v)
		}
		if tn, ok := df["truncate"]; ok {
			v, err := l.consts.intValue(tn)
			if err != nil {
				return err
			}
			if v < 1 || v > 16383 {
				return tn.errf("truncate must be 1..16383 bytes")
			}
			l.prog.TM.OnDrop.Truncate = int(v)
		}
		if sn, ok := df["signal"]; ok {
			if err := l.loadDoDSignal(sn); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadDoDSignal reads on_drop's signal: {latency_ns: N, arm: [reg.action, ...]}.
func (l *loader) loadDoDSignal(n node) error {
	f, err := n.fields("latency_ns", "arm", "to_origin", "min_backlog_cells", "at_deflect")
	if err != nil {
		return err
	}
	sig := DoDSignal{Pos: n.pos()}
	if an, ok := f["at_deflect"]; ok {
		v, err := l.consts.intValue(an)
		if err != nil {
			return err
		}
		if v != 0 && v != 1 {
			return an.errf("at_deflect must be 0 or 1, got %d", v)
		}
		sig.AtDeflect = v == 1
	}
	if bn, ok := f["min_backlog_cells"]; ok {
		if sig.MinBacklogCells, err = l.consts.intValue(bn); err != nil {
			return err
		}
		if sig.MinBacklogCells < 0 || sig.MinBacklogCells > 1<<24 {
			return bn.errf("min_backlog_cells must be 0..%d, got %d", 1<<24, sig.MinBacklogCells)
		}
		if sig.MinBacklogCells > 0 && sig.AtDeflect {
			return bn.errf("min_backlog_cells is the backlog a dequeue leaves: it cannot go with at_deflect 1")
		}
	}
	if on, ok := f["to_origin"]; ok {
		v, err := l.consts.intValue(on)
		if err != nil {
			return err
		}
		if v != 0 && v != 1 {
			return on.errf("to_origin must be 0 or 1, got %d", v)
		}
		sig.ToOrigin = v == 1
	}
	ln, ok := f["latency_ns"]
	if !ok {
		return n.errf("signal: missing latency_ns (0: no signal)")
	}
	if sig.LatencyNs, err = l.consts.intValue(ln); err != nil {
		return err
	}
	if sig.LatencyNs < 0 || sig.LatencyNs > 1e9 {
		return ln.errf("latency_ns must be 0..1000000000, got %d", sig.LatencyNs)
	}
	an, ok := f["arm"]
	if !ok {
		return n.errf("signal: missing arm (the register actions every pipe runs, e.g. [t0_reg.arm])")
	}
	items, err := an.items()
	if err != nil {
		return err
	}
	for _, it := range items {
		name := it.n.Value
		reg, act, found := strings.Cut(name, ".")
		r := l.prog.Register(reg)
		if !found || r == nil {
			return it.errf("signal: %q is not a register action (register.action)", name)
		}
		var ra *RegisterAction
		for _, a := range r.Actions {
			if a.Name == act {
				ra = a
			}
		}
		if ra == nil {
			return it.errf("signal: register %s has no action %q", reg, act)
		}
		sig.Arm = append(sig.Arm, ra)
	}
	if len(sig.Arm) == 0 && sig.LatencyNs > 0 {
		return an.errf("signal: arm lists no register action")
	}
	l.prog.TM.OnDrop.Signal = sig
	return nil
}
