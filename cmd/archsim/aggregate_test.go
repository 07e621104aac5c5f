package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAggregateWaitNotNegative: stragglers (p = 0.5) send their window in
// a burst after a sleep; a degraded result that arrives while a
// straggler's own packet is still queued at its core is not a wait, so
// the shortest wait is positive (it was -0.004 ms when counted).
func TestAggregateWaitNotNegative(t *testing.T) {
	out, msg, code := run(t, "aggregate", "--straggle-prob", "0.5", "--iterations", "2", "--workers", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var r struct {
		Degraded int     `json:"degraded_results"`
		MinMs    float64 `json:"partial_result_min_ms"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Degraded == 0 || r.MinMs <= 0 {
		t.Errorf("%d degraded results, shortest wait %g ms: want some, all waits > 0", r.Degraded, r.MinMs)
	}
}

// TestCompareStaysNarrow: a chip's long refusal goes under the table, and
// long cells wrap, so no line of compare's output is wider than ~130
// columns (it was ~750).
func TestCompareStaysNarrow(t *testing.T) {
	out, msg, code := run(t, "compare", "--program", "pie-rfc", "--packets", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 130 {
			t.Errorf("a line of %d columns: %.80s...", n, l)
		}
	}
	if !strings.Contains(out, "no, see [1] below") || !strings.Contains(out, "[1] tofino: programs/builtin/pie-rfc.yaml:") {
		t.Errorf("the refusal is not a note under the table:\n%s", out)
	}
}

// TestNdpEgressExplained: ndp sets std.bypass_egress for all but green
// data packets, so egress counts fewer packets than were delivered; the
// tables say so with the count (3000 delivered, 2191 through egress).
func TestNdpEgressExplained(t *testing.T) {
	out, msg, code := run(t, "--program", "ndp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if !strings.Contains(out, "3000 delivered") || !strings.Contains(out, "| egress  | 2191 ") ||
		!strings.Contains(out, "Egress pipeline: 809 of the 3000 packets the traffic manager sent out skipped it (the program set std.bypass_egress)") {
		t.Errorf("the egress count is not explained:\n%s", out)
	}
}

// TestAggregateUnfinishedFails: a job that stops short (here 2 000
// iterations of 1 000 s of compute, which fit the engine's clock, with a
// straggler's sleep of 500-2 000 s at every delay point, which do not:
// the run ends at the 2^62 ps deadline) prints its table and exits 1 with
// one line saying so, instead of exit 0 with "Finished false". (A job
// whose compute alone passes the clock is refused before it runs:
// TestBadInputStyle.)
func TestAggregateUnfinishedFails(t *testing.T) {
	out, msg, code := run(t, "aggregate", "--switch", "tofino", "--iterations", "2000", "--compute-ms", "1e6",
		"--typical-ms", "1e6", "--straggle-prob", "1", "--gradients", "1", "--quiet")
	if code != 1 || !strings.Contains(msg, "the job did not finish: ") || strings.Contains(msg, "\n") || !strings.Contains(out, "Finished") {
		t.Errorf("exit %d, %q (stdout %d bytes); want exit 1, the table and one line saying the job did not finish", code, msg, len(out))
	}
}

// TestSwitchMLNineWorkers: SwitchML's result group is the job's workers'
// ports (its control plane's work), so a ninth worker gets its results
// (the program's file lists ports 0..7).
func TestSwitchMLNineWorkers(t *testing.T) {
	out, msg, code := run(t, "aggregate", "--switch", "tofino", "--workers", "9", "--iterations", "1", "--gradients", "4096", "--quiet", "--json")
	if code != 0 || !strings.Contains(out, `"done": true`) || !strings.Contains(out, `"results_received": 144`) {
		t.Errorf("exit %d %q; want a finished job with 144 results: %.300s", code, msg, out)
	}
}

// TestTrioMLSourcesGroup: trio-ml's sources group is written for the job
// (the file lists groups 1..8), and a PFE asked to serve more sources than
// it has ports is refused in one line, not left without results.
func TestTrioMLSourcesGroup(t *testing.T) {
	_, msg, code := run(t, "aggregate", "--switch", "trio", "--first-level", "0", "--workers", "9", "--iterations", "1", "--gradients", "4096", "--quiet")
	if code != 2 || !strings.Contains(msg, "trio-ml's group of 9 sources: ") || !strings.Contains(msg, "port 4 does not exist") {
		t.Errorf("exit %d %q; want exit 2 naming the group and the missing port", code, msg)
	}
	out, msg, code := run(t, "aggregate", "--switch", "trio", "--chip", "trio6", "--first-level", "0", "--workers", "8", "--iterations", "1", "--gradients", "4096", "--quiet", "--json")
	if code != 0 || !strings.Contains(out, `"done": true`) {
		t.Errorf("eight sources on a Trio 6 slice (8 ports): exit %d %q: %.300s", code, msg, out)
	}
}

// TestCompareNoneRuns: a program no chip of the comparison runs is printed
// and exits 1, as the main command does for a rejected program; one chip
// that runs it is a comparison that worked.
func TestCompareNoneRuns(t *testing.T) {
	out, msg, code := run(t, "compare", "--program", "trio-ml", "--arch", "tofino,tofino2", "--packets", "200")
	if code != 1 || msg != "trio-ml runs on none of tofino, tofino2" || !strings.Contains(out, "timer-threads") {
		t.Errorf("exit %d %q, output %.200q; want exit 1 with the table printed", code, msg, out)
	}
	if _, msg, code := run(t, "compare", "--program", "pie-rfc", "--packets", "200"); code != 0 {
		t.Errorf("pie-rfc on Tofino and Trio: exit %d %q, want 0 (Trio runs it)", code, msg)
	}
}
