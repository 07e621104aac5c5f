package trio

import (
	"strings"
	"testing"
)

// TestLoopCutFailsTheRun: a loop still running at the interpreter's bound
// fails the run with an error naming the loop's file:line (not a result
// computed from a cut loop).
func TestLoopCutFailsTheRun(t *testing.T) {
	c := chipT(t)
	p := prog(t, "", "meta.m1 = 0\nfor meta.m0 = 0; meta.m0 < 100000; meta.m0++ {\nmeta.m1 = meta.m1 + 1\n}")
	_, err := measure(c, lowerT(t, c, p), runOptions{Packets: 2, Load: 0.1, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "t.yaml:") || !strings.Contains(err.Error(), "for loop: still running after 65536 iterations") {
		t.Fatalf("a loop of 100000 iterations: error %v, want the loop's file:line and the bound", err)
	}
	// Below the bound, the run is valid.
	p = prog(t, "", "meta.m1 = 0\nfor meta.m0 = 0; meta.m0 < 65536; meta.m0++ {\nmeta.m1 = meta.m1 + 1\n}")
	if _, err := measure(c, lowerT(t, c, p), runOptions{Packets: 1, Load: 0.1, Seed: 1}); err != nil {
		t.Errorf("65536 iterations: %v", err)
	}
}

// TestEndlessRecirculationEnds: a program that recirculates every packet
// never lets the rate probe drain; the probe stops at its bound and says
// why instead of running without end.
func TestEndlessRecirculationEnds(t *testing.T) {
	c := chipT(t)
	p := prog(t, "", "recirculate()")
	_, err := saturate(c, lowerT(t, c, p), 20, 1, 1500, 100)
	if err == nil || !strings.Contains(err.Error(), "the rate probe did not end") {
		t.Fatalf("endless recirculation: error %v, want the probe's bound named", err)
	}
	// A program that ends its packets is not cut.
	p = prog(t, "", "meta.m1 = 1")
	if _, err := saturate(c, lowerT(t, c, p), 20, 1, 1500, 100); err != nil {
		t.Errorf("an ordinary program: %v", err)
	}
}
