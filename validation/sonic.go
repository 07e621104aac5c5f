package validation

import (
	"fmt"
	"math"
	"strings"

	"archsim/experiments"
)

// SONiC traffic-manager trimming: claims from sonic-mgmt's tests, measured
// by running the scenarios under configs/scenarios.

func sonicClaims() []Claim {
	return []Claim{
		// The snappi check: every packet the trim-eligible queues drop
		// leaves as a trimmed header from the trim queue.
		{
			ID: "sonic.t23.balance", Source: "sonic-mgmt tests/snappi_tests/packet_trimming (T23)",
			Expected:  "4:1 and 8:1 incasts of 4096 B frames: drops on the non-trim queues ≈ packets the trim queue transmits",
			Tolerance: "within 1 % of the drops (the test's threshold)",
			Note: "sonic-t23, 200 us at line rate; trim 256 B, DSCP 11, queue 4 (configs/sonic/snappi-t23.json); counters read when the run ends. " +
				"Past 8:1 the trimmed headers arrive faster than the trim queue's scheduler share drains them, so the balance goes (the test checks only up to 8:1)",
			scenario: "sonic-t23",
			measure: func(r *experiments.Result) reading {
				worst, parts := 0.0, []string{}
				for _, v := range []string{"4", "8"} {
					s := r.Find("SONiC-TM", v).Sonic
					if s == nil || s.NonTrimQueueDrops == nil || *s.NonTrimQueueDrops == 0 {
						return unmeasured(v+":1: no drops on a static trim queue's neighbours", 0)
					}
					drops, tx := *s.NonTrimQueueDrops, *s.TrimQueueTx
					d := math.Abs(float64(drops-tx)) / float64(drops)
					worst = math.Max(worst, d)
					parts = append(parts, fmt.Sprintf("%s:1 %d drops, %d trim-queue TX", v, drops, tx))
				}
				// Beyond 8:1 the test promises nothing; show what the model does.
				if s := r.Find("SONiC-TM", "12").Sonic; s != nil && s.TrimQueueTx != nil {
					parts = append(parts, fmt.Sprintf("(12:1 %d drops, %d trim-queue TX)", *s.NonTrimQueueDrops, *s.TrimQueueTx))
				}
				return read(fmt.Sprintf("%s; worst of 4:1, 8:1 %.2f %%", strings.Join(parts, "; "), 100*worst), worst)
			},
			check: atMost(0.01),
		},
	}
}
