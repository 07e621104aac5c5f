// Package triotest is what the Trio packages' tests share: the Trio 5
// PFE's configuration with overrides, small programs on a common skeleton,
// and their lowering.
package triotest

import (
	"fmt"
	"strings"
	"testing"

	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/configs"
	"archsim/programs"
)

// Config is the Trio 5 PFE (configs/trio5.yaml) with key=value overrides.
func Config(t testing.TB, sets ...string) *spec.Config {
	t.Helper()
	l, err := configs.Load(configs.Source{Base: []string{"trio5.yaml"}, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Program builds a program from a common skeleton: an Ethernet/IP parser,
// metadata m0..m7 (32 bits), the given sections and ingress code, and
// traffic of 64-byte frames arriving on port 0.
func Program(t testing.TB, sections, ingress string) *programs.Program {
	t.Helper()
	return ProgramSized(t, sections, ingress, 64)
}

// ProgramSized is Program with frames of size bytes.
func ProgramSized(t testing.TB, sections, ingress string, size int) *programs.Program {
	t.Helper()
	src := `program: t
headers:
  eth: {dst: 48, src: 48, etype: 16}
  ip: {ttl: 8, proto: 8, src: 32, dst: 32}
metadata: {m0: 32, m1: 32, m2: 32, m3: 32, m4: 32, m5: 32, m6: 32, m7: 32}
parser:
  start: s
  states:
    s:
      extract: eth
      select: eth.etype
      transitions: {0x0800: ip, default: accept}
    ip:
      extract: ip
` + sections + "ingress: |\n" + indent(ingress) + `traffic:
  - ports: [0]
    sizes: [` + fmt.Sprint(size) + `]
    headers:
      eth: {etype: 0x0800}
      ip: {ttl: 64, src: 10.0.0.1, dst: 10.0.0.2}
`
	p, err := programs.Load([]byte(src), "t.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		b.WriteString("  " + strings.TrimSpace(l) + "\n")
	}
	return b.String()
}

// Lower lowers p for c, failing the test if p does not lower.
func Lower(t testing.TB, c *spec.Config, p *programs.Program) *lower.Microcode {
	t.Helper()
	m, err := lower.Lower(c, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// IngressInstr is the static instructions of the ingress block (-1 if
// none).
func IngressInstr(m *lower.Microcode) int {
	for _, b := range m.Blocks {
		if b.Name == "ingress" {
			return b.Instr
		}
	}
	return -1
}
