package validation

import (
	"archsim/harness"
	"archsim/job"
	"errors"
	"fmt"
	"strings"

	"archsim/arch/trio"
	"archsim/arch/trio/lower"
	"archsim/arch/trio/spec"
	"archsim/programs"
)

// [trio.arch]: the PPE and memory facts of [TRIO] §2, checked on what the
// lowering and the PFE simulation do with small probe programs (not on the
// config values themselves).

// probe builds a program: Ethernet parser, metadata m0..m(n-1) of 64 bits,
// the given sections and ingress code, and a traffic template of frames of
// size bytes.
func probe(sections, ingress string, metaFields, size int) (*programs.Program, error) {
	var meta []string
	for i := 0; i < metaFields; i++ {
		meta = append(meta, fmt.Sprintf("m%d: 64", i))
	}
	var code strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(ingress), "\n") {
		code.WriteString("  " + strings.TrimSpace(l) + "\n")
	}
	src := `program: probe
headers:
  eth: {dst: 48, src: 48, etype: 16}
metadata: {` + strings.Join(meta, ", ") + `}
parser:
  start: s
  states:
    s:
      extract: eth
` + sections + "ingress: |\n" + code.String() + `traffic:
  - ports: [0]
    sizes: [` + fmt.Sprint(size) + `]
    headers:
      eth: {etype: 0x0800}
`
	return programs.Load([]byte(src), "probe.yaml", nil)
}

func trio5(sets ...string) (*spec.Config, error) { return trio.LoadArch("trio", sets...) }

// probeThreadNs is the mean time a packet holds its thread.
func probeThreadNs(c *spec.Config, p *programs.Program) (float64, *trio.RunResult, error) {
	o, err := job.RunProgram(trio.NewTarget(trio.Trio, c), p, 1, &harness.Sim{Packets: 20, Load: 0.01})
	if err != nil {
		return 0, nil, err
	}
	if !o.Compiled.Fits {
		return 0, nil, o.Compiled.Err
	}
	r := trio.RunResultOf(o.Measurement)
	return r.Ingress.ThreadNs, r, nil
}

// tailChunks is the 64-byte chunks of a 1000-byte frame beyond its
// 192-byte head.
const tailChunks = (1000 - 192 + 63) / 64

func trioArchClaims() []Claim {
	return []Claim{
		{
			ID:        "trio.arch.memory-latency",
			Source:    trioSrc + " §2.3",
			Expected:  "a synchronous access takes ≈ 70 ns to on-chip SRAM and 300–400 ns to DRAM",
			Tolerance: "SRAM ± 10 %; DRAM within 300–400 ns",
			Note:      "measured = extra thread time of one read whose value the thread uses, on a 4 KB register (placed in SRAM) and on a 16 MB one (beyond the 8 MB SRAM, so in DRAM), against the same program without the read; idle PFE",
			probe: func(ctx *Context) reading {
				c, err := trio5()
				if err != nil {
					return broken(err)
				}
				reg := func(size int) string {
					return fmt.Sprintf("registers:\n  r:\n    width: 64\n    size: %d\n    actions:\n      get: out = value\n", size)
				}
				base, err := probe(reg(512), "meta.m0 = meta.m1 + 1\nmeta.m2 = meta.m0 + 1", 4, 64)
				if err != nil {
					return broken(err)
				}
				var got [2]float64
				t0, _, err := probeThreadNs(c, base)
				if err != nil {
					return broken(err)
				}
				for i, size := range []int{512, 2 << 20} {
					p, err := probe(reg(size), "meta.m0 = r.get(0)\nmeta.m2 = meta.m0 + 1", 4, 64)
					if err != nil {
						return broken(err)
					}
					t, _, err := probeThreadNs(c, p)
					if err != nil {
						return broken(err)
					}
					got[i] = t - t0
				}
				return read(fmt.Sprintf("SRAM %.0f ns, DRAM %.0f ns", got[0], got[1]), got[0], got[1])
			},
			check: each(near(70, 7), between(300, 400, 350)),
		},
		{
			ID:        "trio.arch.head-tail",
			Source:    trioSrc + " §2.1, §4",
			Expected:  "the first 192 B (the head) are in the thread's local memory; the tail stays in the packet buffer and is read in 64-byte chunks",
			Tolerance: "exact: no fetch for words in the head; one per 64-byte tail chunk touched",
			Note:      "a program sums every 32-bit word after the Ethernet header of 1000-byte frames (payload32); measured = tail fetches per packet, and for a program reading only the first 40 words (inside the head)",
			probe: func(ctx *Context) reading {
				c, err := trio5()
				if err != nil {
					return broken(err)
				}
				fetches := func(words int) (float64, error) {
					p, err := probe("", fmt.Sprintf("meta.m1 = 0\nfor meta.m0 = 0; meta.m0 < %d; meta.m0 = meta.m0 + 1 {\nmeta.m1 = meta.m1 + bit64(payload32(meta.m0))\n}", words), 2, 1000)
					if err != nil {
						return 0, err
					}
					_, r, err := probeThreadNs(c, p)
					if err != nil {
						return 0, err
					}
					return r.Ingress.XTXNPerPacket["tail_fetch"], nil
				}
				all, err := fetches((1000 - 14) / 4)
				if err != nil {
					return broken(err)
				}
				head, err := fetches(40)
				if err != nil {
					return broken(err)
				}
				return read(fmt.Sprintf("%.0f tail fetches for the whole frame (%.0f chunks beyond 192 B), %.0f for words inside the head", all, float64(tailChunks), head),
					all, head)
			},
			check: each(equal(tailChunks), equal(0)),
		},
		{
			ID:        "trio.arch.thread-limits",
			Source:    trioSrc + " §2.2, §3.1",
			Expected:  "per thread 32 × 64-bit registers and 1.25 KB of local memory; calls nest at most 8 deep",
			Tolerance: "exact: 40 × 64-bit fields use 32 registers and spill the rest; 200 × 64-bit fields do not fit (local-memory); 8 nested calls lower, 9 fail (call-depth)",
			Note:      "measured on the lowering of probe programs",
			probe: func(ctx *Context) reading {
				c, err := trio5()
				if err != nil {
					return broken(err)
				}
				var parts []string
				ok := true
				p, err := probe("", "meta.m0 = 1", 40, 64)
				if err != nil {
					return broken(err)
				}
				mc, err := lower.Lower(c, p)
				if err != nil {
					return broken(err)
				}
				parts = append(parts, fmt.Sprintf("40 fields: %d registers, %d B local memory", mc.RegistersUsed, mc.LMEMBytes))
				ok = ok && mc.RegistersUsed == 32
				p, err = probe("", "meta.m0 = 1", 200, 64)
				if err != nil {
					return broken(err)
				}
				_, err = lower.Lower(c, p)
				var le *lower.LoweringError
				rej := errors.As(err, &le) && le.Rule == lower.RuleLocalMemory
				parts = append(parts, "200 fields: "+loweringOutcome(err))
				ok = ok && rej
				for _, depth := range []int{8, 9} {
					fns := "functions:\n"
					for i := 0; i < depth; i++ {
						body := fmt.Sprintf("f%d()", i+1)
						if i == depth-1 {
							body = "meta.m0 = 1"
						}
						fns += fmt.Sprintf("  f%d: %q\n", i, body)
					}
					p, err := probe(fns, "f0()", 2, 64)
					if err != nil {
						return broken(err)
					}
					_, err = lower.Lower(c, p)
					parts = append(parts, fmt.Sprintf("%d nested calls: %s", depth, loweringOutcome(err)))
					if depth == 8 {
						ok = ok && err == nil
					} else {
						ok = ok && errors.As(err, &le) && le.Rule == lower.RuleCallDepth
					}
				}
				return decided(strings.Join(parts, "; "), ok)
			},
			check: holds(1),
		},
	}
}

func loweringOutcome(err error) string {
	var le *lower.LoweringError
	switch {
	case err == nil:
		return "lowered"
	case errors.As(err, &le):
		return "rejected, rule " + le.Rule
	default:
		return "error: " + err.Error()
	}
}
