package validation

import (
	"fmt"
)

// protegoTolerance is the relative tolerance on Protego's approximate ("~")
// footprint numbers: the paper rounds them, and the model's programs are
// reconstructed from the paper's description (the 1,800-line P4 program is
// not public).
const protegoTolerance = 0.25

func protegoClaims() []Claim {
	footprint := func(id, name string, want float64, pick func(ctx *Context) (float64, string, error), note string) Claim {
		return Claim{
			ID:        "protego.footprint." + id,
			Source:    "Protego paper §4.5 (Dataplane Resources)",
			Expected:  fmt.Sprintf("≈ %.0f %% of the chip's %s with state for 256 ports", want, name),
			Tolerance: fmt.Sprintf("± %.0f %% of the expected value", 100*protegoTolerance),
			Note:      note,
			probe: func(ctx *Context) reading {
				v, detail, err := pick(ctx)
				if err != nil {
					return broken(err)
				}
				return read(fmt.Sprintf("%.1f %% (%s)", v, detail), v)
			},
			check: rel(want, protegoTolerance),
		}
	}
	ports := map[string]string{"PORTS": "256"}
	both := func(ctx *Context) (sram, salu float64, ns, na int, err error) {
		s, err := ctx.place("protego-sender", ports)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		r, err := ctx.place("protego-receiver", ports)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		return s.Pct.SRAM + r.Pct.SRAM, s.Pct.SALU + r.Pct.SALU, s.Totals.SRAM + r.Totals.SRAM, s.Totals.MeterALU + r.Totals.MeterALU, nil
	}
	return []Claim{
		footprint("sram", "SRAM", 9, func(ctx *Context) (float64, string, error) {
			v, _, n, _, err := both(ctx)
			return v, fmt.Sprintf("sender + receiver: %d of 960 blocks", n), err
		}, "a Protego switch runs the sender and the receiver roles; measured = protego-sender + protego-receiver placed with PORTS=256. The model holds only the state §3 and App. A describe (per-port registers, five 1-bit reTxReqs arrays of 2048 sequence slots per port) on a minimal router; the paper's program also carries the rest of its switch program"),
		footprint("salu", "stateful ALUs", 25, func(ctx *Context) (float64, string, error) {
			_, v, _, n, err := both(ctx)
			return v, fmt.Sprintf("sender + receiver: %d of 48 ALUs", n), err
		}, "measured = stateful ALUs of protego-sender + protego-receiver with PORTS=256 (one per register, §3.5)"),
	}
}
