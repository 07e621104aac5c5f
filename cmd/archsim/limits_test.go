package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLimitsRefuseUpFront: huge requests are refused before any work
// (quickly, exit 2, the estimate or the bound in the message); normal ones
// pass, and the limits are flags.
func TestLimitsRefuseUpFront(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.yaml")
	scenario := `scenario: huge
doc: d
source: s
seed: 1
duration_us: 1000000
hosts: 64
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 100000, flow_packets: 0, pull_rate: 0.99}
pattern: {kind: incast, senders: 63}
variants:
  - {name: Ideal, chip: ideal, queue_packets: 35}
`
	if err := os.WriteFile(huge, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var regs, uses strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&regs, "  r%d:\n    width: 32\n    size: 16777216\n    actions:\n      inc: |\n        value = value + 1\n", i)
		fmt.Fprintf(&uses, "  r%d.inc(0)\n", i)
	}
	bigState := filepath.Join(dir, "state.yaml")
	prog := "program: big\nheaders:\n  eth: {dst: 48, src: 48, etype: 16}\nparser:\n  start: s\n  states:\n    s:\n      extract: eth\nregisters:\n" +
		regs.String() + "ingress: |\n" + uses.String() + "  std.egress_port = 1\ntraffic:\n  - ports: [0]\n    sizes: [64]\n    headers:\n      eth: {etype: 0x0800}\n"
	if err := os.WriteFile(bigState, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "trio", "--program", bigState}, "the program's registers, counters and meters 10GiB): estimated memory 10.1GiB exceeds --max-memory 4GiB"},
		{[]string{"--program", "ndp", "--packets", "1000000000"}, "--packets 1000000000: must be 1..100000000"},
		{[]string{"--program", "ndp", "--packets", "10000000"}, "estimated memory 6.03GiB exceeds --max-memory 4GiB"},
		{[]string{"--program", "ndp", "--packets", "400", "--max-memory", "65MiB"}, "exceeds --max-memory 65MiB"},
		{[]string{"--program", "ndp", "--packets", "40000000", "--max-memory", "1TiB"}, "events exceed --max-events 1e+10"},
		{[]string{"compare", "--program", "ndp", "--packets", "10000000"}, "estimated memory"},
		{[]string{"run", "--scenario", "trim-modes", "--jobs", "10000000"}, "--jobs 10000000: must be 0..1024"},
		{[]string{"run", "--no-files", "--scenario", huge, "--max-memory", "1GiB"}, "scenario huge (1 runs, ≤ 6.61e+07 data packets, 1 in parallel): estimated memory 3.88GiB exceeds --max-memory 1GiB"},
		{[]string{"run", "--no-files", "--scenario", huge, "--max-events", "1e9"}, "estimated 1.98e+09 events exceed --max-events 1e+09"},
		{[]string{"aggregate", "--window", "1000000"}, "--window 1000000: must be 1..65536"},
		{[]string{"aggregate", "--iterations", "100000"}, "events exceed --max-events"},
		{[]string{"aggregate", "--set", "aggregation.training.window=100000"}, "aggregation.training.window = 100000 is out of range [1, 65536]"},
		{[]string{"aggregate", "--compare", "--iterations", "5000"}, "runs: 10: estimated"},
		{[]string{"--program", "ndp", "--max-memory", "lots"}, "want a size from 1MiB to 1PiB"},
		{[]string{"--program", "ndp", "--max-events", "0"}, "--max-events 0: must be 1..1e15"},
		{[]string{"run", "--scenario", "trim-modes", "--tie-break", "lifo"}, `--tie-break "lifo": want akita, fifo, random or random:SEED (an integer)`},
	}
	for _, c := range cases {
		start := time.Now()
		_, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d %q, want exit 2 and one line containing %q", c.args, code, msg, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%v: refused after %v, want before any work", c.args, d)
		}
	}
	// Normal runs pass the same checks.
	for _, args := range [][]string{
		{"--program", "ndp", "--packets", "400"},
		{"run", "--scenario", "trim-modes", "--no-files", "--quiet", "--jobs", "1000"},
	} {
		if _, msg, code := run(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, msg)
		}
	}
}

// --max-memory takes the sizes its message offers, 1MiB to 1PiB, in
// every unit it lists.
func TestByteSizeRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1MiB", 1 << 20, true}, {"1PiB", 1 << 50, true}, {"1P", 1 << 50, true}, {"1024TiB", 1 << 50, true},
		{"1PB", 1e15, true}, {"4GiB", 4 << 30, true}, {"1.5G", 3 << 29, true},
		{"1023KiB", 0, false}, {"2PiB", 0, false}, {"abc", 0, false}, {"NaN", 0, false},
	} {
		var b byteSize
		err := b.Set(c.in)
		if (err == nil) != c.ok || (c.ok && int64(b) != c.want) {
			t.Errorf("%s: %d, %v; want %d (ok %v)", c.in, int64(b), err, c.want, c.ok)
		}
	}
}
