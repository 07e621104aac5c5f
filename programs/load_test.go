package programs

import (
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
)

func loadSmall(t *testing.T, edit func(string) string) (*Program, error) {
	t.Helper()
	data, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	if edit != nil {
		src = edit(src)
	}
	return Load([]byte(src), "small.yaml", nil)
}

func TestBuiltinsLoad(t *testing.T) {
	names := Builtins()
	want := []string{"ndp", "ndp-mod", "ndp-switchp4", "pie-cp", "pie-dp", "pie-rfc", "pie-rfc-ingress", "pie-table", "protego-receiver", "protego-receiver-trio", "protego-sender", "protego-sender-trio", "sonic-l3", "switchml", "switchml-256", "trio-ml"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("built-ins = %v, want %v", names, want)
	}
	for _, n := range names {
		p, err := Resolve(n, nil)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if p.Name != n {
			t.Errorf("%s: program name %q", n, p.Name)
		}
		if len(p.Traffic) == 0 {
			t.Errorf("%s: no traffic templates", n)
		}
	}
}

func TestSmallProgramStructure(t *testing.T) {
	p, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Headers) != 2 || p.Headers[0].Bits != 112 || p.Headers[1].Bits != 80 {
		t.Fatalf("headers parsed wrong: %+v", p.Headers)
	}
	f := p.Field("ip.dst")
	if f == nil || f.Offset != 48 || f.Type.Bits != 32 {
		t.Fatalf("ip.dst = %+v", f)
	}
	if p.Field("meta.s").Type != (Type{Bits: 16, Signed: true}) {
		t.Fatal("meta.s should be int<16>")
	}
	tb := p.Table("t")
	if tb.Size != defaultTableSize || len(tb.Entries) != 1 || tb.Entries[0].Values[0] != 0x0a000001 || tb.Entries[0].Call.Args[0] != 3 {
		t.Fatalf("table t = %+v", tb)
	}
	lpm := p.Table("acl").Entries[1]
	if lpm.Prefix[0] != 24 || lpm.Masks[0] != 0xffffff00 {
		t.Fatalf("lpm entry %+v", lpm)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"undefined field", func(s string) string { return strings.Replace(s, "meta.x = r.inc(0)", "meta.z = r.inc(0)", 1) }, "undefined field meta.z"},
		{"register width", func(s string) string { return strings.Replace(s, "meta.x = r.inc(0)", "meta.y = r.inc(0)", 1) }, "register r holds 32-bit values but meta.y is 16 bits"},
		{"parser cycle", func(s string) string {
			return strings.Replace(s, "    ip:\n      extract: ip\n", "    ip:\n      extract: ip\n      next: s\n", 1)
		}, "cyclic"},
		{"unknown top key", func(s string) string { return s + "bogus: 1\n" }, `unknown key "bogus"`},
		{"yaml syntax", func(s string) string { return s + "  - : [\n" }, "not valid YAML"},
		{"duplicate name", func(s string) string { return strings.Replace(s, "  acl:\n", "  r:\n", 1) }, "already used by a register"},
		{"bad width", func(s string) string { return strings.Replace(s, "ttl: 8", "ttl: 65", 1) }, "width must be 1..64"},
		{"action arity", func(s string) string { return strings.Replace(s, "action: fwd(PORT)", `action: "fwd(1, 2)"`, 1) }, "takes 1 arguments, got 2"},
		{"unknown action", func(s string) string { return strings.Replace(s, "actions: [fwd, to_cpu]", "actions: [fwd, nope]", 1) }, `undefined action "nope"`},
		{"action listed twice", func(s string) string {
			return strings.Replace(s, "actions: [fwd, to_cpu]", "actions: [fwd, to_cpu, fwd]", 1)
		}, "tables t actions[2]: action fwd is listed twice"},
		{"unquoted call with a comma", func(s string) string { return strings.Replace(s, "action: fwd(PORT)", "action: fwd(1, 2)", 1) }, `unknown key "2)": an action call with a comma must be quoted`},
		{"too many entries", func(s string) string {
			return strings.Replace(s, "    actions: [fwd]\n    entries:", "    actions: [fwd]\n    size: 1\n    entries:", 1)
		}, "more entries than the table's size 1"},
		{"list item's path", func(s string) string {
			return strings.Replace(s, "action: fwd(PORT)", "action: fwd(PORT), bogus: 1", 1)
		}, `tables t entries[0]: unknown key "bogus"`},
		{"empty for", func(s string) string {
			return strings.Replace(s, "action: fwd(PORT)", "action: fwd(PORT), for: {}", 1)
		}, `tables t entries[0]: unknown key "for" (allowed: key, action)`},
		{"undefined constant", func(s string) string { return strings.Replace(s, "fwd(PORT)", "fwd(NOPE)", 1) }, "argument 1 of fwd"},
		{"local variable", func(s string) string { return strings.Replace(s, "meta.s = -5", "z := 1", 1) }, "no local variables"},
		{"if in action", func(s string) string {
			return strings.Replace(s, "    do: |\n      std.egress_port = port", "    do: |\n      if port == 1 {\n        std.egress_port = port\n      }", 1)
		}, "actions are straight-line code"},
		{"constant too wide", func(s string) string { return strings.Replace(s, "meta.s = -5", "meta.y = 70000", 1) }, "constant 70000 does not fit meta.y"},
		{"width mismatch", func(s string) string { return strings.Replace(s, "meta.s = -5", "meta.y = meta.x", 1) }, "widths differ"},
		{"slice out of range", func(s string) string { return strings.Replace(s, "ip.src[31:24]", "ip.src[40:24]", 1) }, "outside the 32 bits"},
		{"undefined table", func(s string) string { return strings.Replace(s, "t.apply()", "nosuch.apply()", 1) }, "undefined name nosuch"},
		{"index out of range", func(s string) string { return strings.Replace(s, "r.inc(0)", "r.inc(9)", 1) }, "index 9 is outside r"},
		{"meter rates", func(s string) string { return strings.Replace(s, "cir: 1e9, pir: 2e9", "cir: 3e9, pir: 2e9", 1) }, "cir <= pir"},
		{"go syntax", func(s string) string { return strings.Replace(s, "t.apply()", "t.apply(", 1) }, "syntax error"},
		{"reserved name", func(s string) string { return strings.Replace(s, "  acl:\n", "  meta:\n", 1) }, "reserved"},
		{"keyword field", func(s string) string { return strings.Replace(s, "proto: 8", "type: 8", 1) }, "reserved word"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadSmall(t, c.edit)
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) {
				t.Fatalf("error %q does not contain %q", msg, c.want)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, "small.yaml") {
				t.Fatalf("error does not name the file: %q", msg)
			}
		})
	}
}

func TestErrorLineNumbers(t *testing.T) {
	lines := strings.Split(mustRead(t, "testdata/small.yaml"), "\n")
	want := 0
	for i, l := range lines {
		if strings.Contains(l, "meta.x = r.inc(0)") {
			want = i + 1
		}
	}
	// The second load converts the code from the cached parse: the same
	// line.
	for round := 0; round < 2; round++ {
		_, err := loadSmall(t, func(s string) string { return strings.Replace(s, "meta.x = r.inc(0)", "meta.z = r.inc(0)", 1) })
		e, ok := err.(*Error)
		if !ok || e.Pos.Line != want {
			t.Fatalf("round %d: error %v, want one at line %d", round, err, want)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestOverrides(t *testing.T) {
	data, _ := os.ReadFile("testdata/small.yaml")
	p, err := Load(data, "small.yaml", map[string]string{"PORT": "5"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Table("t").Entries[0].Call.Args[0] != 5 {
		t.Fatal("override of PORT not applied")
	}
	if _, err := Load(data, "small.yaml", map[string]string{"NOPE": "1"}); err == nil || !strings.Contains(err.Error(), "no such constant") {
		t.Fatalf("unknown override: %v", err)
	}
}

// TestInterpreter runs the small program on a packet: the exact table
// forwards and decrements TTL, the register counts, the signed compare and
// the longest-prefix match pick the /24 route.
func TestInterpreter(t *testing.T) {
	p, err := loadSmall(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(p)
	x := NewExec(st, rand.New(rand.NewSource(1)))
	for i := 1; i <= 3; i++ {
		phv := make([]int64, len(p.Fields))
		head := p.Traffic[0].BuildPacket(0, 64)
		res := p.Parse(head, 64, phv, false, false)
		if res.Rejected || res.States != 2 || res.Bytes != 24 {
			t.Fatalf("parse: %+v", res)
		}
		x.PHV = phv
		x.RunControl(p.Ingress)
		if got := phv[p.Field("std.egress_port").Slot]; got != 8 {
			t.Fatalf("egress port %d, want 8 (the /24 acl entry wins over /16 and t's 3)", got)
		}
		if got := phv[p.Field("ip.ttl").Slot]; got != 62 {
			t.Fatalf("ttl %d, want 62 (both t and acl decrement)", got)
		}
		if got := phv[p.Field("meta.x").Slot]; got != int64(i) {
			t.Fatalf("register count %d, want %d", got, i)
		}
		if got := phv[p.Field("meta.s").Slot]; got != -5 {
			t.Fatalf("signed field %d, want -5", got)
		}
		out, n := p.Deparse(phv, head, 64, res.Offset, false)
		if n != 64 || len(out) != 24 {
			t.Fatalf("deparse length %d/%d", len(out), n)
		}
		phv2 := make([]int64, len(p.Fields))
		p.Parse(out, n, phv2, false, false)
		if phv2[p.Field("ip.ttl").Slot] != 62 || phv2[p.Field("ip.dst").Slot] != 0x0a000001 {
			t.Fatal("deparsed packet does not parse back to the same fields")
		}
	}
	if st.Regs[0].Get(0) != 3 {
		t.Fatalf("register cell = %d, want 3", st.Regs[0].Get(0))
	}
}

func TestArithmetic(t *testing.T) {
	u8 := Type{Bits: 8}
	s8 := Type{Bits: 8, Signed: true}
	cases := []struct {
		got, want int64
	}{
		{evalBinary(OpAdd, 250, 10, u8), 4},
		{evalBinary(OpSub, 3, 5, u8), 254},
		{evalBinary(OpSub, 3, 5, s8), -2},
		{evalBinary(OpShr, -8, 1, s8), -4},
		{evalBinary(OpShr, 0xf0, 4, u8), 0x0f},
		{evalBinary(OpShl, 0x81, 1, u8), 0x02},
		{satAdd(250, 10, u8), 255},
		{satSub(3, 5, u8), 0},
		{satAdd(120, 10, s8), 127},
		{evalUnary(OpBNot, 0, u8), 255},
		{evalUnary(OpNeg, 1, u8), 255},
		{s8.Norm(200), -56},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %d, want %d", i, c.got, c.want)
		}
	}
}

func TestGeneratedEntries(t *testing.T) {
	p, err := Resolve("pie-table", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Table("alpha_range"), p.Table("beta_range")
	if len(a.Entries) != 300 || len(b.Entries) != 301 {
		t.Fatalf("range tables have %d and %d entries, want 300 and 301 (PIE paper §VI.D)", len(a.Entries), len(b.Entries))
	}
	// -125..-124 as bit<16>.
	if a.Entries[0].Values[0] != 65411 || a.Entries[0].Masks[0] != 65412 {
		t.Fatalf("first alpha range %d..%d", a.Entries[0].Values[0], a.Entries[0].Masks[0])
	}
}

// TestLoadSharesTheParsedText: loads of one text share its parsed YAML
// (parseYAML), and the loader only reads it: loads with other constants,
// in parallel, give what a load of their own gives.
func TestLoadSharesTheParsedText(t *testing.T) {
	constOf := func(p *Program, name string) int64 {
		for _, c := range p.Constants {
			if c.Name == name {
				return c.Value
			}
		}
		t.Fatalf("no constant %s", name)
		return 0
	}
	want := map[string]int64{"3000": 3000, "6000": 6000, "9000": 9000}
	got := make(map[string]int64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for v := range want {
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := Resolve("ndp", map[string]string{"T0_NS": v})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if g, ok := got[v]; ok && g != constOf(p, "T0_NS") {
					t.Errorf("T0_NS=%s loaded twice: %d and %d", v, g, constOf(p, "T0_NS"))
				}
				got[v] = constOf(p, "T0_NS")
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for v, w := range want {
		if got[v] != w {
			t.Errorf("T0_NS=%s: the program has %d", v, got[v])
		}
	}
	p, err := Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := constOf(p, "T0_NS"); c != 6000 {
		t.Errorf("after loads with other constants the default T0_NS is %d, want 6000", c)
	}
}

// TestConstantRanges: a constant may declare the range its program
// accepts; a value given through --param (or a scenario) outside it, or a
// file whose own value is outside it, is a one-line error naming the
// constant, its line and the bound. Bounds may use earlier constants and
// floats.
func TestConstantRanges(t *testing.T) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withConsts := func(consts string) []byte {
		return []byte(strings.Replace(string(base), "constants:\n  PORT: 3\n", "constants:\n  PORT: 3\n"+consts, 1))
	}
	data := withConsts("  LIMIT: {value: 5, min: 0, max: PORT + 7}\n  RATE: {value: 1e9, min: 0.5}\n")
	if !strings.Contains(string(data), "LIMIT") {
		t.Fatal("small.yaml's constants moved: the test's program was not built")
	}
	ok := []map[string]string{nil, {"LIMIT": "0"}, {"LIMIT": "10"}, {"RATE": "0.5"}, {"PORT": "4", "LIMIT": "11"}}
	for _, o := range ok {
		if _, err := Load(data, "small.yaml", o); err != nil {
			t.Errorf("overrides %v: %v", o, err)
		}
	}
	bad := []struct {
		overrides map[string]string
		want      string
	}{
		{map[string]string{"LIMIT": "-1"}, `small.yaml:5: constants LIMIT: the value given for it (--param or a scenario's params), "-1", is below its minimum 0 (range 0..PORT + 7)`},
		{map[string]string{"LIMIT": "11"}, `is above its maximum 10 (range 0..PORT + 7)`},
		{map[string]string{"PORT": "2", "LIMIT": "10"}, `is above its maximum 9`},
		{map[string]string{"RATE": "0.25"}, `small.yaml:6: constants RATE: the value given for it (--param or a scenario's params), "0.25", is below its minimum 0.5 (range 0.5..)`},
		{map[string]string{"RATE": "-1e3"}, `is below its minimum 0.5`},
	}
	for _, c := range bad {
		_, err := Load(data, "small.yaml", c.overrides)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("overrides %v: got %v, want one line containing %q", c.overrides, err, c.want)
		}
	}
	files := []struct{ consts, want string }{
		{"  LIMIT: {value: 12, max: 10}\n", "small.yaml:5: constants LIMIT: its value 12 is above its maximum 10 (range ..10)"},
		{"  LIMIT: {min: 0}\n", "needs its value"},
		{"  LIMIT: {value: 1, minimum: 0}\n", `unknown key "minimum"`},
		{"  LIMIT: {value: 1, min: NOPE}\n", "NOPE"},
	}
	for _, c := range files {
		_, err := Load(withConsts(c.consts), "small.yaml", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.consts, err, c.want)
		}
	}
}

// TestEntryErrors: two entries with one key in an exact or
// longest-prefix table are an error naming both lines (in a ternary table
// the second is a shadowed entry, allowed); an exact key written as an
// lpm or range value says so; a register action that names a table says
// what a register action reaches.
func TestEntryErrors(t *testing.T) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"      - {key: 10.0.0.1, action: fwd(PORT)}\n", "      - {key: 10.0.0.1, action: fwd(PORT)}\n      - {key: 10.0.0.1, action: to_cpu}\n",
			"small.yaml:52: tables t entries[1]: key 0xa000001 repeats entries[0]'s (line 51)"},
		{"      - {key: \"10.1.2.0/24\", action: fwd(8)}\n", "      - {key: \"10.1.2.0/24\", action: fwd(8)}\n      - {key: \"10.1.2.0/24\", action: fwd(9)}\n",
			"small.yaml:58: tables acl entries[2]: key 0xa010200/24 repeats entries[1]'s (line 57)"},
		{"      - {key: \"10.1.2.0/24\", action: fwd(8)}\n", "      - {key: \"10.1.2.0/24\", action: fwd(8)}\n      - {key: \"10.1.3.0/24\", action: fwd(9)}\n", ""},
		{"      - {key: 10.0.0.1, action: fwd(PORT)}\n", "      - {key: \"10.0.0.0/24\", action: fwd(PORT)}\n",
			`small.yaml:51: tables t entries[0] key: "10.0.0.0/24" is an lpm value, and key ip.dst is matched exact (one value)`},
		{"      - {key: 10.0.0.1, action: fwd(PORT)}\n", "      - {key: \"1 .. 2\", action: fwd(PORT)}\n", `"1 .. 2" is a range value`},
		{"        value = value + 1\n", "        value = value + 1\n        t.apply()\n",
			"undefined name t (a register action reaches its register's cells, out, constants and fields: no tables, counters, meters or other registers)"},
	} {
		src := strings.Replace(string(base), c.old, c.new, 1)
		if src == string(base) {
			t.Fatalf("small.yaml changed: %q not found", c.old)
		}
		_, err := Load([]byte(src), "small.yaml", nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.new, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want %q", c.new, err, c.want)
		}
	}
	// A ternary table with a repeated key: the second entry is shadowed.
	src := strings.Replace(string(base), "    key: {ip.src: lpm}\n", "    key: {ip.src: ternary}\n", 1)
	src = strings.Replace(src, "      - {key: \"10.1.0.0/16\", action: fwd(7)}\n      - {key: \"10.1.2.0/24\", action: fwd(8)}\n",
		"      - {key: \"0x0a010200 &&& 0xffffff00\", action: fwd(7)}\n      - {key: \"0x0a010200 &&& 0xffffff00\", action: fwd(8)}\n", 1)
	if !strings.Contains(src, "&&&") {
		t.Fatal("small.yaml changed: the ternary case was not built")
	}
	if _, err := Load([]byte(src), "small.yaml", nil); err != nil {
		t.Errorf("ternary table with a repeated key: %v", err)
	}
}

// TestTrafficShorterThanHeaders: a traffic size below its headers' bytes
// is refused (the test packets would be parsed past their end).
func TestTrafficShorterThanHeaders(t *testing.T) {
	base, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(base), "    sizes: [64]\n", "    sizes: [64, 23]\n", 1)
	if src == string(base) {
		t.Fatal("small.yaml changed: its traffic sizes were not found")
	}
	_, err = Load([]byte(src), "small.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "packet size 23 is shorter than its headers (24 bytes: eth, ip)") {
		t.Errorf("got %v", err)
	}
	if _, err := Load([]byte(strings.Replace(src, "23]", "24]", 1)), "small.yaml", nil); err != nil {
		t.Errorf("a size of exactly its headers: %v", err)
	}
}
