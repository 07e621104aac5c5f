package compiler

import (
	"errors"
	"strings"
	"testing"
)

// TestTMDeflectQueueOutOfRange: on_drop may name queue 0..31 (the loader's
// range) but a Tofino 1 port has 8 queues; a deflection must not crash the
// simulator (enqueue maps other out-of-range queues to 0).
func TestTMDeflectQueueOutOfRange(t *testing.T) {
	for _, sec := range []string{
		"tm:\n  queues:\n    - {qid: 0, limit_cells: 3}\n  on_drop: {mode: deflect, queue: 9}\n",
		"tm:\n  queues:\n    - {qid: 8, limit_cells: 3}\n",
	} {
		_, prog := withSections(t, "", "", sec)
		_, err := Place(chip(t), prog)
		var pe *PlacementError
		if !errors.As(err, &pe) || pe.Rule != RuleTMQueues || !strings.Contains(err.Error(), "queues 0..7") || !strings.Contains(err.Error(), "base.yaml:") {
			t.Errorf("%q: got %v, want rule tm-queues naming the file and the chip's queues 0..7", sec, err)
		}
	}
}
