package validation

import (
	"fmt"
	"strings"

	"archsim/experiments"
)

// pieRiseFallClaims check the PIE paper's §VII.A rise/fall experiment
// (Fig. 5) and the PIE_CP update delay (§VI.B), measured in the
// pie-risefall scenario: the three Tofino flavours and the two reference
// (ns-3) flavours on the ideal switch.
func pieRiseFallClaims() []Claim {
	rise := func(r *experiments.Run) (float64, bool) {
		if r == nil || r.PIERun == nil || r.RiseS == nil {
			return 0, false
		}
		return *r.RiseS, true
	}
	fall := func(r *experiments.Run) (float64, bool) {
		if r == nil || r.PIERun == nil || r.FallS == nil {
			return 0, false
		}
		return *r.FallS, true
	}
	// times lists each variant's value, failing when one has none.
	times := func(r *experiments.Result, of func(*experiments.Run) (float64, bool), names ...string) ([]float64, string, error) {
		var xs []float64
		var parts []string
		for _, n := range names {
			x, ok := of(r.Find(n, ""))
			if !ok {
				return nil, "", fmt.Errorf("variant %s: drop_prob never got there within %g s", n, r.Scenario.DurationUs/1e6)
			}
			xs = append(xs, x)
			parts = append(parts, fmt.Sprintf("%s %.2f s", n, x))
		}
		return xs, strings.Join(parts, ", "), nil
	}
	return []Claim{
		{
			ID: "pie.risefall.rise", Source: "PIE paper §VII.A, Fig. 5",
			Expected:  "the rise times of PIE_CP, PIE_DP and PIE_TABLE \"compare reasonably well to the simulation results of roughly 2 s to 3 s\"",
			Tolerance: "each in 1.5..3.5 s (\"roughly\")",
			Note:      "pie-risefall: simulated time from the start of the 100 Gb/s overload until drop_prob first reaches 100 %",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				xs, text, err := times(r, rise, "PIE_CP", "PIE_DP", "PIE_TABLE")
				if err != nil {
					return broken(err)
				}
				return read(text, xs[0], xs[1:]...)
			},
			check: between(1.5, 3.5, 2.5),
		},
		{
			ID: "pie.risefall.cp-slowest", Source: "PIE paper §VII.A, Fig. 5",
			Expected:  "PIE_CP takes the longest to reach 100 % (it scales its update); it is slower than both ns-3 flavours",
			Tolerance: "rise(PIE_CP) > rise of every other variant",
			Note:      "pie-risefall rise_s of every variant",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				xs, text, err := times(r, rise, "PIE_CP", "PIE_DP", "PIE_TABLE", "ns3-rfc", "ns3-default")
				if err != nil {
					return broken(err)
				}
				ok := true
				for _, x := range xs[1:] {
					ok = ok && xs[0] > x
				}
				return decided(text, ok)
			},
			check: holds(1),
		},
		{
			ID: "pie.risefall.table-rises-faster", Source: "PIE paper §VII.A, Fig. 5",
			Expected:  "PIE_TABLE has a faster increase than PIE_DP (exact multiplicands instead of power-of-two shifts)",
			Tolerance: "rise(PIE_TABLE) < rise(PIE_DP)",
			Note:      "pie-risefall rise_s",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				xs, text, err := times(r, rise, "PIE_TABLE", "PIE_DP")
				if err != nil {
					return broken(err)
				}
				return decided(text, xs[0] < xs[1])
			},
			check: holds(1),
		},
		{
			ID: "pie.risefall.table-falls-faster", Source: "PIE paper §VII.A, Fig. 5",
			Expected:  "PIE_TABLE decreases the drop probability slightly faster than PIE_DP",
			Tolerance: "fall(PIE_TABLE) < fall(PIE_DP)",
			Note:      "pie-risefall fall_s: from the first 100 % (the source drops to 5 Gb/s) until drop_prob is 0",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				xs, text, err := times(r, fall, "PIE_TABLE", "PIE_DP")
				if err != nil {
					return broken(err)
				}
				return decided(text, xs[0] < xs[1])
			},
			check: holds(1),
		},
		{
			ID: "pie.risefall.decay", Source: "PIE paper §VII.A, Fig. 5",
			Expected:  "the variants with exponential decay (PIE_CP, both ns-3 flavours) fall \"much quicker\" than PIE_DP and PIE_TABLE",
			Tolerance: "the slowest decaying variant falls in under half the time of the faster of PIE_DP and PIE_TABLE",
			Note:      "pie-risefall fall_s",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				xs, text, err := times(r, fall, "PIE_CP", "ns3-rfc", "ns3-default", "PIE_DP", "PIE_TABLE")
				if err != nil {
					return broken(err)
				}
				slowDecay := max(xs[0], xs[1], xs[2])
				fastNoDecay := min(xs[3], xs[4])
				return read(text, slowDecay/fastNoDecay)
			},
			check: atMost(0.5),
		},
		{
			ID: "pie.cp-delay", Source: "PIE paper §VI.B",
			Expected:  "involving the control plane causes drop_prob update delays of around 125 us (the loop targets 117 us)",
			Tolerance: "120..130 us",
			Note:      "pie-risefall PIE_CP: the control-plane loop's measured period (117 us sleep plus the PCIe register read and two writes, costs from configs/controlplane.yaml)",
			scenario:  "pie-risefall",
			measure: func(r *experiments.Result) reading {
				run := r.Find("PIE_CP", "")
				if run == nil || run.PIERun == nil || run.CPPeriodUs == nil {
					return broken(fmt.Errorf("PIE_CP reported no control-plane loop period"))
				}
				return read(fmt.Sprintf("%.1f us over %d updates", *run.CPPeriodUs, run.Updates), *run.CPPeriodUs)
			},
			check: between(120, 130, 125),
		},
	}
}
