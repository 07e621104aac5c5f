package validation

import (
	"errors"
	"fmt"
	"strings"

	"archsim/arch/tofino/compiler"
)

// PIE on Tofino (Kunze et al., IFIP/IEEE IM 2021).

func pieClaims() []Claim {
	return append([]Claim{
		{
			ID:        "pie.placement.rfc-rejected",
			Source:    "PIE paper §IV (memory access), §VI.C",
			Expected:  "PIE_RFC cannot be placed: drop_prob read for scaling and updated (two accesses, stage-local memory)",
			Tolerance: "exact: rule stage-local-memory on the drop-probability register",
			Note:      "pie-rfc is pie-dp plus RFC 8033's scaling (§5.1) and decay (§5.2); placement must refuse it for the single-access rule, not for a resource shortage",
			probe: func(ctx *Context) reading {
				_, err := ctx.place("pie-rfc", nil)
				if err == nil {
					return unmeasured("placed (no error)", 0)
				}
				var pe *compiler.PlacementError
				if !errors.As(err, &pe) {
					return broken(err)
				}
				ok := pe.Rule == compiler.RuleStageLocal && strings.Contains(pe.Msg, "drop_probability_reg")
				return decided(fmt.Sprintf("rejected: rule %s: %s", pe.Rule, firstClause(pe.Msg)), ok)
			},
			check: holds(1),
		},
		{
			ID:        "pie.placement.dp-fits",
			Source:    "PIE paper §VI.C",
			Expected:  "PIE_DP (no scaling, no decay) fits the 12-stage pipeline",
			Tolerance: "exact: feasible",
			probe:     fits("pie-dp"),
			check:     holds(1),
		},
		{
			ID:        "pie.placement.early-read-late-write",
			Source:    "PIE paper §VIII (implications for ASIC design)",
			Expected:  "with memory allowing one early read and one later write per pass, PIE_RFC becomes implementable",
			Tolerance: "exact: feasible with tofino.features.early_read_late_write = true",
			Note:      "the what-if knob changes only the stage-local rule; every other budget stays Tofino 1's",
			probe:     fits("pie-rfc", "tofino.features.early_read_late_write=true"),
			check:     holds(1),
		},
	}, table3Claims()...)
}

// fits places a built-in program on Tofino 1 with --set style overrides.
func fits(program string, sets ...string) func(*Context) reading {
	return func(ctx *Context) reading {
		p, err := ctx.place(program, nil, sets...)
		if err != nil {
			return unmeasured("rejected: "+err.Error(), 0)
		}
		return decided(fmt.Sprintf("fits in %d of %d stages", p.StagesUsed, p.Chip.MAU.Stages), true)
	}
}

func firstClause(s string) string {
	if i := strings.Index(s, " — "); i > 0 {
		return s[:i]
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// table3 holds the PIE paper's Table III, in percent of the chip.
var table3 = []struct {
	variant, program string
	stages           int // 33.3 / 91.6 / 66.6 % of 12 stages
	sram, tcam, hash float64
	vliw, xbar, salu float64
}{
	{"cp", "pie-cp", 4, 2.4, 0.0, 2.7, 1.8, 1.6, 5.2},
	{"dp", "pie-dp", 11, 2.5, 0.3, 2.9, 6.0, 3.4, 5.2},
	{"table", "pie-table", 8, 7.4, 1.3, 3.6, 3.6, 3.6, 6.3},
}

// table3Tolerance is the tolerance on Table III's resource columns, in
// percentage points of the chip. The model applies bf-p4c's published
// sizing rules (configs/tofino.yaml) to the program description; it does not
// reproduce bf-p4c's allocator (PHV container packing, ghost bits per
// container, VLIW row sharing, gateway merging choices). One point of a
// 12-stage Tofino 1 is about 10 SRAM blocks, 3 TCAM blocks, 50 hash bits,
// 4 VLIW rows, 23 crossbar bytes or half a stateful ALU.
const table3Tolerance = 1.0

// noPayloadGateway places a program with bf-p4c's payload-gateway
// conversion off (configs/tofino.yaml mau.payload_gateway).
const noPayloadGateway = "tofino.mau.payload_gateway=false"

// sde920 is the PIE paper's compiler, Intel SDE 9.2.0 (§I, §IV): its
// bf-p4c had no payload-gateway conversion. In p4lang/bf-p4c's history
// master moved from 9.2.0 to 9.3.0 on 2020-04-03 (8a43fd77c, "bump
// version from 9.2.0 to 9.3.0 on master"), and the conversion came later:
// P4C-2772 part 1 on 2020-06-22 (4a2186430) and part 3, "Added the payload
// gateway creation file" (mau/payload_gateway.cpp), on 2020-06-24
// (8ed62c289). So Table III is checked on the placement without it; the
// 2024 source's placement is reported beside it.
var sde920 = []string{noPayloadGateway}

const table3Note = "measured = the model's placement of programs/builtin/%s.yaml (rules of bf-p4c, not its allocator) as the paper's compiler, SDE 9.2.0, placed it: without payload gateways (bf-p4c added them in June 2020, after 9.2.0), the 2024 bf-p4c's placement beside it"

// table3Claims checks every column of every Table III row, measured on
// the placement of the row's program.
func table3Claims() []Claim {
	var out []Claim
	for _, row := range table3 {
		placed := func(get func(*compiler.Placement) reading) func(*Context) reading {
			return func(ctx *Context) reading {
				p, err := ctx.place(row.program, nil, sde920...)
				if err != nil {
					return broken(err)
				}
				return get(p)
			}
		}
		out = append(out, Claim{
			ID:        "pie.table3." + row.variant + ".stages",
			Source:    "PIE paper Table III (Stages)",
			Expected:  fmt.Sprintf("%.1f %% (%d of 12 stages)", 100*float64(row.stages)/12, row.stages),
			Tolerance: "± 1 stage",
			Note:      fmt.Sprintf(table3Note, row.program),
			probe: placed(func(p *compiler.Placement) reading {
				return read(fmt.Sprintf("%.1f %% (%d of %d stages)", p.Pct.Stages, p.StagesUsed, p.Chip.MAU.Stages), float64(p.StagesUsed))
			}),
			check: between(float64(row.stages-1), float64(row.stages+1), float64(row.stages)),
		})
		cols := []struct {
			id, name string
			want     float64
			get      func(*compiler.Placement) (float64, string)
			note     string
			alt      bool // also measured without payload gateways
		}{
			{"sram", "SRAM", row.sram, func(p *compiler.Placement) (float64, string) {
				return p.Pct.SRAM, fmt.Sprintf("%d blocks", p.Totals.SRAM)
			}, "", true},
			{"tcam", "TCAM", row.tcam, func(p *compiler.Placement) (float64, string) {
				return p.Pct.TCAM, fmt.Sprintf("%d blocks", p.Totals.TCAM)
			}, "", false},
			{"hash", "Hash Bits", row.hash, func(p *compiler.Placement) (float64, string) {
				return p.Pct.HashBits, fmt.Sprintf("%d bits", p.Totals.HashBits)
			}, "", true},
			{"vliw", "VLIW Actions", row.vliw, func(p *compiler.Placement) (float64, string) {
				return p.Pct.VLIW, fmt.Sprintf("%d rows", p.Totals.VLIW)
			}, "", false},
			{"xbar", "(Exact + Ternary) Match Crossbar", row.xbar, func(p *compiler.Placement) (float64, string) {
				// bf-p4c's mau.resources.log has two columns, Exact Match
				// Input xbar (128 B a stage) and Ternary Match Input xbar
				// (66 B), each with its own Average; Table III's
				// "(Exact + Ternary)" adds the two percentages.
				m := p.Chip.MAU
				st := float64(p.Chip.MAU.Stages)
				e := 100 * float64(p.Totals.ExactXbar) / (st * float64(m.ExactXbarBytes))
				t := 100 * float64(p.Totals.TernaryXbar) / (st * float64(m.TernaryXbarBytes))
				return e + t, fmt.Sprintf("exact %d B = %.1f %% + ternary %d B = %.1f %%; pooled over both crossbars %.1f %%", p.Totals.ExactXbar, e, p.Totals.TernaryXbar, t, p.Pct.Crossbar)
			}, "measured = exact-crossbar percent + ternary-crossbar percent, the two mau.resources.log columns the label names (bytes over 12 x 128 and 12 x 66)", false},
			{"salu", "(Stateful + Meter) ALUs", row.salu, func(p *compiler.Placement) (float64, string) {
				// The other counts the column could be, from the same
				// program: none fits all three rows (README).
				n := float64(p.Chip.MAU.Stages * p.Chip.MAU.MeterALUs)
				actions := 0
				for _, r := range p.Prog.Registers {
					actions += len(r.Actions)
				}
				return p.Pct.SALU, fmt.Sprintf("%d of %.0f; over %.0f: %.1f %%; its %d register actions: %.1f %% of %.0f, %.1f %% of %.0f",
					p.Totals.MeterALU, n, 2*n, 100*float64(p.Totals.MeterALU)/(2*n), actions, 100*float64(actions)/n, n, 100*float64(actions)/(2*n), 2*n)
			}, "the model counts used meter ALUs over 48 (bf-p4c's Meter ALU column, 4 per stage); Table III's 5.2 % and 6.3 % equal 5/96 and 6/96, as if the paper's tool divided by 96", false},
		}
		for _, col := range cols {
			out = append(out, Claim{
				ID:        fmt.Sprintf("pie.table3.%s.%s", row.variant, col.id),
				Source:    fmt.Sprintf("PIE paper Table III (%s)", col.name),
				Expected:  fmt.Sprintf("%.1f %%", col.want),
				Tolerance: fmt.Sprintf("± %.1f pp", table3Tolerance),
				Note:      strings.TrimSuffix(fmt.Sprintf(table3Note, row.program)+"; "+col.note, "; "),
				probe: func(ctx *Context) reading {
					p, err := ctx.place(row.program, nil, sde920...)
					if err != nil {
						return broken(err)
					}
					v, units := col.get(p)
					text := fmt.Sprintf("%.1f %% (%s)", v, units)
					if col.alt {
						// The 2024 bf-p4c runs the one-constant-entry tables
						// as payload gateways.
						q, err := ctx.place(row.program, nil)
						if err != nil {
							return broken(err)
						}
						av, aunits := col.get(q)
						text += fmt.Sprintf("; with the 2024 bf-p4c's payload gateways %.1f %% (%s)", av, aunits)
					}
					return read(text, v)
				},
				check: near(col.want, table3Tolerance),
			})
		}
	}
	return out
}
