package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loopingProgram writes ndp-mod with a loop that never ends within the
// Trio interpreter's bound on packets from port 2: a run on Trio fails
// after it has begun writing its captures and records.
func loopingProgram(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "programs", "builtin", "ndp-mod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "ingress: |\n", "metadata:\n  i: 32\n\ningress: |\n  if std.ingress_port == 2 {\n    for meta.i = 0; meta.i < 100000; meta.i++ {\n      std.qid = 0\n    }\n  }\n", 1)
	if text == string(src) {
		t.Fatal("ndp-mod has no ingress block to extend")
	}
	p := filepath.Join(dir, "loop.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFailedRunLeavesNoFiles: a run that fails part-way (the main job's
// latency run, a scenario's variant) removes the captures and records it
// had begun, and the directories it made for them; the command exits
// non-zero with one line.
func TestFailedRunLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	prog := loopingProgram(t, dir)
	caps := filepath.Join(dir, "caps")
	_, msg, code := run(t, "--arch", "trio", "--program", prog, "--pcap", caps)
	if code == 0 || !strings.Contains(msg, "still running after 65536 iterations") || strings.Contains(msg, "\n") {
		t.Errorf("main job: exit %d %q, want a failure naming the loop", code, msg)
	}
	if _, err := os.Stat(caps); !os.IsNotExist(err) {
		left, _ := os.ReadDir(caps)
		t.Errorf("main job left %s with %d files", caps, len(left))
	}

	sc := filepath.Join(dir, "s.yaml")
	os.WriteFile(sc, []byte(`scenario: loopsc
source: test
seed: 1
duration_us: 20
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}
pattern: {kind: incast, senders: 3}
variants:
  - {name: Ideal, chip: ideal, queue_packets: 10}
  - {name: Trio, chip: trio, program: `+prog+`}
`), 0o644)
	records, caps2 := filepath.Join(dir, "out", "records"), filepath.Join(dir, "caps2", "deep")
	for _, jobs := range []string{"1", "2"} {
		_, msg, code = run(t, "run", "--scenario", sc, "--records", records, "--pcap", caps2, "--jobs", jobs, "--no-files", "--quiet")
		if code == 0 || !strings.Contains(msg, "variant Trio") || strings.Contains(msg, "\n") {
			t.Errorf("run --jobs %s: exit %d %q, want the Trio variant's failure", jobs, code, msg)
		}
		for _, d := range []string{filepath.Join(dir, "out"), filepath.Join(dir, "caps2")} {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				var left []string
				filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error { left = append(left, p); return nil })
				t.Errorf("run --jobs %s left %v", jobs, left)
			}
		}
	}

	// What was there before stays: a capture directory of the same run
	// name, the user's captures in it, another file of the records
	// directory.
	mine := []string{filepath.Join(caps2, "Ideal", "analysis.pcapng"), filepath.Join(caps2, "Trio", "old.pcapng"), filepath.Join(records, "notes.txt")}
	for _, p := range mine {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("mine"), 0o644)
	}
	if _, msg, code = run(t, "run", "--scenario", sc, "--records", records, "--pcap", caps2, "--jobs", "1", "--no-files", "--quiet"); code == 0 {
		t.Fatalf("run: exit 0 %q, want the Trio variant's failure", msg)
	}
	for _, p := range mine {
		if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
			t.Errorf("%s, there before the run, is gone or changed (%v)", p, err)
		}
	}
	for _, p := range []string{filepath.Join(caps2, "Ideal", "Ideal-port0.pcapng"), filepath.Join(records, "packets-Ideal.csv")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s, written by the failed command, is still there", p)
		}
	}
}
