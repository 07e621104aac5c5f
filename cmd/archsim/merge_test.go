package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeScenarios are small scenarios whose runs fill every series a plot
// reads: header CDFs, a sweep, a queue trace (ndp); arrivals and register
// modes (cbr through ndp.p4).
var mergeScenarios = map[string]string{
	"merge-ndp": `scenario: merge-ndp
doc: merge test, ndp incast
source: test
seed: 3
duration_us: 40
hosts: 8
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 8, flow_packets: 8, pull_rate: 0.99}
pattern: {kind: incast, senders: 7, receivers: 1}
sweep: {var: senders, values: ["2", "4", "7"]}
trace_queue: 0
variants:
  - {name: Ideal, switch: ideal, queue_packets: 4}
  - {name: Tofino, switch: tofino, program: ndp}
plots:
  - {kind: header_cdf, file: cdf.png}
  - {kind: sweep, y: mean_goodput_gbps, file: goodput.png}
  - {kind: queue, file: queue.png}
`,
	"merge-cbr": `scenario: merge-cbr
doc: merge test, cbr burst through ndp.p4
source: test
seed: 1
duration_us: 30
hosts: 64
link: {gbps: 100, prop_ns: 500}
workload: {kind: cbr, mss: 1564, rate_gbps: 100, flow_packets: 0}
pattern: {kind: pairs, flows: [[16, 0], [32, 0]], starts_us: [0, 10], packets: [0, 24]}
trace_register: t0_reg.arm
variants:
  - {name: Tofino, switch: tofino, program: ndp}
plots:
  - {kind: arrivals, file: arrivals.png}
  - {kind: modes, file: modes.png}
`,
}

// TestMergeEqualsUnsharded runs each scenario whole and as shards (2 and 3;
// a shard may hold no run), merges the shards, and compares every file and
// the printed summary byte for byte.
func TestMergeEqualsUnsharded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs small scenarios several times")
	}
	for name, yaml := range mergeScenarios {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sc := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(sc, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			whole := filepath.Join(dir, "whole")
			wantOut, msg, code := run(t, "run", "--scenario", sc, "--quiet", "--out", whole)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, msg)
			}
			wantJSON, _, _ := run(t, "run", "--scenario", sc, "--quiet", "--no-files", "--json")
			for _, n := range []int{2, 3} {
				var dirs []string
				for i := 0; i < n; i++ {
					d := filepath.Join(dir, "shards", strings.Repeat("x", n), string(rune('a'+i)))
					if _, msg, code := run(t, "run", "--scenario", sc, "--quiet", "--shard", itoa(i)+"/"+itoa(n), "--out", d); code != 0 {
						t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, msg)
					}
					dirs = append(dirs, d)
				}
				merged := filepath.Join(dir, "merged"+itoa(n))
				// Shards in any order.
				args := append([]string{"merge", "--out", merged}, dirs[n-1])
				args = append(args, dirs[:n-1]...)
				out, msg, code := run(t, args...)
				if code != 0 {
					t.Fatalf("merge: exit %d: %s", code, msg)
				}
				if got := strings.ReplaceAll(out, merged, whole); got != wantOut {
					t.Errorf("%d shards: merge prints\n%s\nthe unsharded run\n%s", n, got, wantOut)
				}
				sameFiles(t, whole, merged)
				gotJSON, _, _ := run(t, append([]string{"merge", "--no-files", "--json"}, dirs...)...)
				if gotJSON != wantJSON {
					t.Errorf("%d shards: merge --json differs from run --json", n)
				}
			}
		})
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// sameFiles checks that two directories hold the same files, byte for byte.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	ea, err := os.ReadDir(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := os.ReadDir(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ea) != len(eb) || len(ea) == 0 {
		t.Fatalf("%s holds %d files, %s %d", a, len(ea), b, len(eb))
	}
	for i := range ea {
		if ea[i].Name() != eb[i].Name() {
			t.Fatalf("file %s next to %s", ea[i].Name(), eb[i].Name())
		}
		x, _ := os.ReadFile(filepath.Join(a, ea[i].Name()))
		y, _ := os.ReadFile(filepath.Join(b, eb[i].Name()))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs after merge (%d vs %d bytes)", ea[i].Name(), len(x), len(y))
		}
	}
}

func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(sc, []byte(mergeScenarios["merge-ndp"]), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if _, msg, code := run(t, "run", "--scenario", sc, "--quiet", "--no-files", "--shard", "0/2", "--out", a); code != 0 {
		t.Fatalf("shard: exit %d: %s", code, msg)
	}
	if _, msg, code := run(t, "run", "--scenario", sc, "--quiet", "--no-files", "--shard", "0/2", "--seed", "9", "--out", b); code != 0 {
		t.Fatalf("shard: exit %d: %s", code, msg)
	}
	// The other half in Akita's order of same-time events: not the same run.
	c := filepath.Join(dir, "c")
	if _, msg, code := run(t, "run", "--scenario", sc, "--quiet", "--no-files", "--shard", "1/2", "--tie-break", "akita", "--out", c); code != 0 {
		t.Fatalf("shard: exit %d: %s", code, msg)
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte(`{"format": "other"}`), 0o644)
	// A shard whose recorded order is not one --tie-break takes.
	lifo := filepath.Join(dir, "lifo.json")
	data, err := os.ReadFile(filepath.Join(a, "shard-0-of-2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"tie_break":"fifo"`) {
		t.Fatalf("shard file does not record the default order: %.200s", data)
	}
	os.WriteFile(lifo, []byte(strings.Replace(string(data), `"tie_break":"fifo"`, `"tie_break":"lifo"`, 1)), 0o644)
	// A shard whose scenario name would put the merged files outside
	// results/.
	if !strings.Contains(string(data), `"Name":"merge-ndp"`) {
		t.Fatalf("shard file does not record the scenario's name: %.200s", data)
	}
	evil := filepath.Join(dir, "evil.json")
	os.WriteFile(evil, []byte(strings.Replace(string(data), `"Name":"merge-ndp"`, `"Name":"../evil"`, 1)), 0o644)
	// Runs that contradict their shard: another variant, scenario or
	// seed than the shard's.
	forge := func(name, old, new string) string {
		if !strings.Contains(string(data), old) {
			t.Fatalf("shard file holds no %s: %.300s", old, data)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644)
		return p
	}
	otherVariant := forge("variant.json", `"variant":"Ideal"`, `"variant":"Zzz"`)
	otherScenario := forge("scenario.json", `"scenario":"merge-ndp"`, `"scenario":"other"`)
	otherSeed := forge("seed.json", `"seed":3,`, `"seed":77,`)
	huge := forge("huge.json", `"shards":2,`, `"shards":99999999999,`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", otherVariant}, `runs[0]: variant "Zzz" is not one of the shard's scenario's`},
		{[]string{"merge", otherScenario}, `runs[0]: scenario "other" in a shard of scenario "merge-ndp"`},
		{[]string{"merge", otherSeed}, "runs[0]: seed 3 in a shard run with seed 77"},
		{[]string{"merge", huge}, "expected i/n with 0 <= i < n <= 65536"},
		{[]string{"run", "--scenario", sc, "--shard", "0/99999999999"}, "--shard \"0/99999999999\": expected i/n with 0 <= i < n <= 65536"},
		{[]string{"run", "--scenario", sc, "--no-files", "--out", dir + "/x"}, "--out names where the files go, and --no-files writes none"},
		{[]string{"merge", a, "--no-files", "--out", dir + "/x"}, "--out names where the files go, and --no-files writes none"},
		{[]string{"merge", a}, "shard 1/2 missing"},
		{[]string{"merge", a, a}, "given twice"},
		{[]string{"merge", a, b}, "seed"},
		{[]string{"merge", dir + "/nothing"}, "nothing"},
		{[]string{"merge", dir}, "no shard file"},
		{[]string{"merge", junk}, "format"},
		{[]string{"merge", a, c}, "--tie-break akita"},
		{[]string{"merge", lifo}, `tie-break "lifo"`},
		{[]string{"merge", evil}, `scenario: got "../evil"`},
	} {
		_, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d %q, want exit 2 with %q", c.args, code, msg, c.want)
		}
	}
}
