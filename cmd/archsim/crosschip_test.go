package main

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The same program must forward the same frames on Tofino and on Trio
// where both model what it does: recirculation with bridged metadata, a
// multicast group with a unicast port beside it, an unknown group with a
// unicast port, and multicast in a recirculating pass. Each chip's frames
// are read from its --pcap captures, by port.
func TestCrossChipForwarding(t *testing.T) {
	progs := map[string]string{
		// Bridged metadata must not lead the recirculated head on Trio
		// (it was parsed as Ethernet, and the packet recirculated for ever).
		"rb.yaml": `program: rb
headers:
  eth: {dst: 48, src: 48, etype: 16}
  c: {pass: 8, tag: 16}
metadata:
  bm: {width: 16, bridged: true}
parser:
  start: s
  states:
    s: {extract: eth, select: eth.etype, transitions: {0x88b5: pc, default: accept}}
    pc: {extract: c}
ingress: |
  c.pass = c.pass + 1
  meta.bm = 0xabcd
  std.egress_port = 1
  if c.pass == 1 {
    recirculate()
  }
egress: |
  c.tag = meta.bm
traffic:
  - {ports: [0], sizes: [100], headers: {eth: {etype: 0x88b5}}}
`,
		// op 1: an unknown group beside a unicast port (the packet goes
		// there); op 2: a group's copies from a recirculating pass.
		"mg.yaml": `program: mg
headers:
  eth: {dst: 48, src: 48, etype: 16}
  c: {op: 8, pass: 8}
parser:
  start: s
  states:
    s: {extract: eth, select: eth.etype, transitions: {0x88b5: pc, default: accept}}
    pc: {extract: c}
multicast_groups:
  1: [2, 3]
ingress: |
  c.pass = c.pass + 1
  if c.op == 1 {
    std.egress_port = 1
    multicast(7)
  }
  if c.op == 2 && c.pass == 1 {
    recirculate()
    multicast(1)
  }
  if c.op == 2 && c.pass == 2 {
    std.egress_port = 0
  }
traffic:
  - {ports: [0], sizes: [100], headers: {eth: {etype: 0x88b5}, c: {op: [1, 2]}}}
`,
	}
	dir := t.TempDir()
	for name, src := range progs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		frames := map[string][]string{}
		for _, chip := range []string{"tofino", "trio"} {
			caps := filepath.Join(dir, name+"-"+chip)
			if _, msg, code := run(t, "--arch", chip, "--program", path, "--packets", "2", "--pcap", caps); code != 0 {
				t.Fatalf("%s on %s: exit %d: %s", name, chip, code, msg)
			}
			frames[chip] = captured(t, caps)
		}
		if len(frames["tofino"]) == 0 || strings.Join(frames["tofino"], "\n") != strings.Join(frames["trio"], "\n") {
			t.Errorf("%s: Tofino sent\n  %s\nTrio sent\n  %s", name, strings.Join(frames["tofino"], "\n  "), strings.Join(frames["trio"], "\n  "))
		}
	}
}

// captured lists the frames of every pcapng file under dir as "portN
// HEX" (the captured bytes), sorted.
func captured(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.pcapng"))
	portOf := regexp.MustCompile(`-port(\d+)\.pcapng$`)
	var out []string
	for _, f := range files {
		m := portOf.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("%s: no port in the file name", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+12 <= len(data); {
			typ, n := binary.LittleEndian.Uint32(data[i:]), int(binary.LittleEndian.Uint32(data[i+4:]))
			if n < 12 || i+n > len(data) {
				t.Fatalf("%s: bad block at %d", f, i)
			}
			if typ == 6 { // enhanced packet block
				capLen := int(binary.LittleEndian.Uint32(data[i+20:]))
				out = append(out, "port"+m[1]+" "+hex.EncodeToString(data[i+28:i+28+capLen]))
			}
			i += n
		}
	}
	sort.Strings(out)
	return out
}
