package programs

import (
	"strings"
	"testing"
)

// hardenProgram mirrors to session S (declared: 5) and compares and
// assigns the constant LIMIT to unsigned fields.
const hardenProgram = `program: h
constants:
  S: 5
  LIMIT: 5
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata: {x: 16, s: i16}
parser:
  start: s
  states:
    s:
      extract: eth
mirror_sessions:
  - {id: 5, port: 1}
ingress: |
  meta.x = LIMIT
  if eth.etype < LIMIT {
    mirror(S)
  }
  meta.s = -1
  std.egress_port = 1
actions:
  fwd:
    params: {port: 9}
    do: std.egress_port = port
`

// TestLoaderRefusesNonsense: mirror(N) to an undeclared session and a
// negative constant (a --param) compared with or assigned to an unsigned
// field are load errors naming file:line and the field; a negative value
// for a signed field is fine.
func TestLoaderRefusesNonsense(t *testing.T) {
	if _, err := Load([]byte(hardenProgram), "h.yaml", nil); err != nil {
		t.Fatalf("the good program: %v", err)
	}
	for _, c := range []struct {
		params map[string]string
		edit   [2]string
		want   string
	}{
		{map[string]string{"S": "7"}, [2]string{}, "h.yaml:18: mirror(7): no mirror session 7 (declared: 5; add it under mirror_sessions)"},
		{nil, [2]string{"mirror_sessions:\n  - {id: 5, port: 1}\n", ""}, "h.yaml:16: mirror(5): no mirror session 5 (declared: none;"},
		{map[string]string{"LIMIT": "-1"}, [2]string{"  meta.x = LIMIT\n", ""}, "h.yaml:16: ingress: eth.etype is unsigned (bit<16>) and compared (<) with the negative constant -1"},
		{map[string]string{"LIMIT": "-1"}, [2]string{}, "h.yaml:16: ingress: meta.x is unsigned (bit<16>): the negative constant -1 would be stored as 65535"},
		{nil, [2]string{"  std.egress_port = 1\n", "  fwd(1000)\n"}, "h.yaml:21: ingress: argument 1 of fwd: constant 1000 does not fit port (bit<9>)"},
		{nil, [2]string{"  std.egress_port = 1\n", "  fwd(-1)\n"}, "argument 1 of fwd: constant -1 does not fit port (bit<9>)"},
		{nil, [2]string{"  std.egress_port = 1\n", "  fwd(eth.etype)\n"}, "argument 1 of fwd: a bit<16> value for port (bit<9>): widths differ; cast with bit9(...) or int9(...)"},
		{nil, [2]string{"  - {id: 5, port: 1}\n", "  - {id: 5, port: 1}\n  - {for: {i: \"3..2\"}, id: i, port: 1}\n"}, "h.yaml:15: mirror_sessions[1] for i: loop range 3..2 is empty (hi below lo): the item would make nothing"},
		{nil, [2]string{"  meta.s = -1\n", "  meta.x = eth.etype / 0\n"}, "h.yaml:20: ingress: division by zero (the divisor is the constant 0)"},
		{map[string]string{"LIMIT": "0"}, [2]string{"  meta.s = -1\n", "  meta.x = eth.etype % LIMIT\n"}, "h.yaml:20: ingress: division by zero"},
		{nil, [2]string{"  meta.s = -1\n", "  meta.x = eth.etype << 64\n"}, "h.yaml:20: ingress: shift count 64: must be 0..63"},
		{nil, [2]string{"  meta.s = -1\n", "  meta.x >>= -1\n"}, "h.yaml:20: ingress: shift count -1: must be 0..63"},
		{nil, [2]string{"  meta.s = -1\n", "  eth.setValid(meta.x, 7)\n"}, "h.yaml:20: ingress: eth.setValid() takes no arguments, got 2"},
		{nil, [2]string{"  meta.s = -1\n", "  eth.setInvalid(1)\n"}, "h.yaml:20: ingress: eth.setInvalid() takes no arguments, got 1"},
		{nil, [2]string{"  meta.s = -1\n", "  meta.x = bit16(eth.etype[0:7])\n"}, "h.yaml:20: ingress: slice [0:7] is reversed: write [hi:lo], high bit first ([7:0])"},
		{nil, [2]string{"  meta.s = -1\n", "  eth.isValid() = 1\n"}, "h.yaml:20: ingress: cannot assign to this expression: only fields (hdr.f, meta.f, std.f) are assignable"},
		{nil, [2]string{"port: 1}", "port: -9}"}, "h.yaml:14: mirror_sessions[0] port: must be a port 0..511 (the 9 bits of std.egress_port), got -9"},
		{nil, [2]string{"mirror_sessions:", "multicast_groups: {7: [-5, 2]}\nmirror_sessions:"}, "h.yaml:13: multicast_groups 7[0]: must be a port 0..511 (the 9 bits of std.egress_port), got -5"},
		{nil, [2]string{"mirror_sessions:", "multicast_groups: {7: [2, 99999999999]}\nmirror_sessions:"}, "got 99999999999"},
		// A leading zero reads as octal (010 = 8) in YAML and in Go's syntax.
		{nil, [2]string{"port: 1}", "port: 010}"}, "h.yaml:14: 010 has a leading zero, which YAML reads as octal; write 10 (or 0o10 for octal)"},
		{nil, [2]string{"  meta.s = -1\n", "  meta.x = 010\n"}, "h.yaml:20: ingress: 010 has a leading zero, which reads as octal; write 10 (or 0o10 for octal)"},
		{map[string]string{"LIMIT": "010"}, [2]string{}, "010 has a leading zero, which reads as octal; write 10 (or 0o10 for octal)"},
	} {
		src := hardenProgram
		if c.edit[0] != "" {
			src = strings.Replace(src, c.edit[0], c.edit[1], 1)
		}
		_, err := Load([]byte(src), "h.yaml", c.params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.params, err, c.want)
		}
	}
}
