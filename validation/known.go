package validation

// KnownDeviations lists the claims the model does not meet today, each with
// the reason. `archsim validate` still reports them as FAIL (and exits 1);
// `go test` checks that they still run, that every other claim passes, and
// that a listed claim that starts passing is taken off this list.
var KnownDeviations = map[string]string{
	"pie.table3.cp.sram":              "egress_qid_table and udp_table (one constant entry each) run as payload gateways (bf-p4c's payload_gateway.cpp, open-sourced 2024); the experiment in the Measured column keeps them as 4-way hash tables (mau.payload_gateway=false) and gives 1.9 % (18 blocks), within tolerance: SDE 9.2.0 evidently did not convert them",
	"pie.table3.cp.hash":              "as cp.sram: without payload gateways 2.4 % (120 bits), within tolerance",
	"pie.table3.cp.salu":              "bf-p4c allocates one meter ALU per stateful object per stage (a Register shared by tables is allocated once: memories.cpp shared_attached) and logs them over 4 per stage (MeterAluResourceUsage(4)), 48 in all; no count over 48 lies within 5.2 ± 1 pp (2/48 = 4.2 %, 3/48 = 6.25 %), so Table III's column is not that ratio: 5.2 % and 6.3 % are 5/96 and 6/96",
	"pie.table3.dp.hash":              "as cp.sram: without payload gateways 2.9 % (147 bits), the paper's value (and DP's SRAM becomes exactly 2.5 %)",
	"pie.table3.dp.salu":              "bf-p4c allocates one meter ALU per stateful object per stage (a Register shared by tables is allocated once: memories.cpp shared_attached) and logs them over 4 per stage (MeterAluResourceUsage(4)), 48 in all; no count over 48 lies within 5.2 ± 1 pp (2/48 = 4.2 %, 3/48 = 6.25 %), so Table III's column is not that ratio: 5.2 % and 6.3 % are 5/96 and 6/96",
	"pie.table3.table.salu":           "bf-p4c allocates one meter ALU per stateful object per stage (a Register shared by tables is allocated once: memories.cpp shared_attached) and logs them over 4 per stage (MeterAluResourceUsage(4)), 48 in all; no count over 48 lies within 5.2 ± 1 pp (2/48 = 4.2 %, 3/48 = 6.25 %), so Table III's column is not that ratio: 5.2 % and 6.3 % are 5/96 and 6/96",
	"pie.table3.table.hash":           "as cp.sram: without payload gateways 4.2 % (208 bits), within tolerance; with them 2.6 %, 0.04 pp outside",
	"pie.risefall.table-rises-faster": "with midpoints PIE_DP's shift for alpha (2^9 = 512) exceeds PIE_TABLE's exact 503.3, so PIE_DP rises ~2 % faster (2.86 s vs 2.92 s); the isolating variant PIE_TABLE-p4t, filled as pie-for-tofino's script computes it (hi + lo/2 per range), rises in 1.94 s and falls in 5.35 s: the paper's order appears with the script's slip",
	"pie.risefall.table-falls-faster": "as table-rises-faster: with midpoints PIE_DP falls in 7.85 s, PIE_TABLE in 8.02 s; PIE_TABLE-p4t falls in 5.35 s",
	"pie.tcp.table-starves":           "with midpoints PIE_TABLE passes 12 / 16 / 28 / 36 / 85 / 92 / 93 % of line rate at 1 / 2 / 5 / 10 / 50 / 100 / 250 flows; PIE_TABLE-p4t (pie-for-tofino's hi + lo/2 fill) passes 8 / 6 / 5 % at 1 / 10 / 100 flows: the paper's \"almost no goodput\"",
	"pie.tcp.dp-half":                 "PIE_DP passes 13 / 18 / 31 / 45 / 94 / 95 / 96 % of line rate at 1 / 2 / 5 / 10 / 50 / 100 / 250 CUBIC flows (the paper: about 50 % as flows increase); the host model (Linux CUBIC with RACK-TLP, no TSO, an unbounded NIC queue) is the first suspect, not isolated yet",
	"pie.tcp.dp-table-overcontrol":    "medians 1 / 1 / 1 / 1 / 25 / 63 / 121 us (PIE_DP) and 1 / 1 / 1 / 1 / 8 / 41 / 84 us (PIE_TABLE) at 1 / 2 / 5 / 10 / 50 / 100 / 250 flows: far below delay_ref up to 50 flows, not beyond (see dp-half)",
	"protego.fct.143-rdma":            "only a flow's one data frame crosses the corrupting direction (no connection set-up is simulated), so a flow is hit with probability 1e-3 and the 99.9th percentile lies on the edge of the hit flows: with RDMA 33 of 34 078 flows were hit and p99.9 stayed at 29.3 us; one rank further, p99.99, the loss costs 1029 us against Protego's 30.8 us (33x); DCTCP's run had one hit more and passes (36x)",
	"protego.fct.24k-ablation":        "the shape of Table 2 holds at 99.99 % (ReTx and ReTx+Order ~1120 us from tail losses that wait for TCP's probe/RTO of ~1 ms, ReTx+Tail 91 us, Protego 63 us against 60 us lossless) and Loss is 35x at 99.9 %; at 99.9 % ReTx+Order reads 1121 us because a flow loses its last frame with probability 1e-3, the percentile's own rank: which variant's 99.9th lands in the tail is chance (ReTx's did not: 89 us)",
	"protego.goodput.cubic":           "Protego holds (9.39 → 9.11 Gb/s, the paper 9.47 → 9.2); unprotected CUBIC falls only to 9.13 / 5.63 Gb/s at 1e-3 / 1e-2 (the paper 3.48 / 1.46) and ProtegoNB to 9.23 / 6.72: Table 3's RTT is not given and the model runs the §4 testbed's ~30 us, where CUBIC's window is ~25 segments and SACK repairs a loss within an RTT; ProtegoNB's retransmission arrives ~4 frame times (~5 us at 10G) after the gap, beyond TCP's 3-segment reordering window, so TCP retransmits too",
	"protego.delay.recovery":          "100G is within tolerance (the Tx buffer queue adds microseconds there); at 25G the model's Tx buffer holds about one frame, so a copy comes round in one recirculation loop (1 us recirculation latency plus the pipelines, tofino.recirc_latency_ns) and recovery takes ~3 us, against the paper's 6 us: the paper's delays (similar at 25 and 100G) imply a longer loop than the model's, which §5 attributes to recirculation buffering",
	// Trimming paper (see each claim's note for the measured detail).
	"trim.fig5.tofino-close":          "the paper's model misses only fig5c: median +9.5 us over Ideal (ndp.p4 as written +12.4 us); fig5a/b are within 1.4 us in both",
	"trim.fig6.goodput":               "paper's model 0.91 x Ideal at 32 senders (as written 0.88): where two pipes feed a port a pessimistic window admits 2 x 25 %, and ports are pessimistic 28 % of the time",
	"trim.fig6.trims":                 "paper's model max +13 % (as written +19 %): the pessimistic windows of trim.fig6.goodput trim more than the ideal queue",
	"trim.thresholds.17":              "the paper's model signals at every DoD dequeue (§6.2) and at 17 senders some packets are deflected, so ports are armed although the DoD queue never exceeds one packet; signalling only with a DoD backlog (trim-fig6-backlog) gives no activation at 17 and the loop at 18, the paper's thresholds",
	"trim.rates.18.unshared":          "each receiver also sends (sender i on port i), so its ACKs and PULLs share its data's uplink: 89.9 Gb/s; with receivers apart (trim-fig6-apart) the paper's model reaches 94.9, inside the claim's range",
	"trim.rates.18.shared":            "the uplink share of rates.18.unshared plus the pessimistic windows of trim.fig6.goodput: 39.3 Gb/s; 43.8 with receivers apart (trim-fig6-apart; Ideal 46.0)",
	"trim.rates.32":                   "the uplink share of rates.18.unshared plus the pessimistic windows of trim.fig6.goodput (Ideal 42.7)",
	"trim.rates.64":                   "the uplink share of rates.18.unshared; the paper's model equals Ideal (21.2 vs 21.3 Gb/s)",
	"trim.fig8.no-response":           "four 14 000-packet DoD queues exceed the chip's 22 MB shared buffer (both models)",
	"trim.fig8.small-queue":           "the paper's model still reaches ~5 000 packets at 32 senders, T0 = 3 us (as written ~6 900)",
	"trim.fig9.25pct.goodput":         "paper's model: stable from 14 us as the paper says, but 0.79 of the full design there (paper 0.91); as written never stable in the sweep",
	"trim.fig9.100pct.32.goodput":     "paper's model: 0.39 of the full design at its 15 us threshold (paper 0.83); as written never stable in the sweep",
	"trim.fig9.100pct.64.stable-from": "never stable in the sweep in either model",
	"trim.fig9.100pct.64.goodput":     "no stable response in the sweep",
	"trim.fig9.one-pipe.stable-from":  "paper's model (signal to the DoD queue's pipe only): stable from 3 us at 32 senders, never at 64 (paper 9-12 us for both); as written never stable",
	"trim.fig9.one-pipe.trims":        "paper's model: the same trims as the full design at 64 senders, T0 = 12 us (every excess packet is trimmed in both; paper +10-15 %); as written -47 %, the DoD queue full and dropping",
	"trim.hw.dod-trims":               "the hardware's queue limit and meter bursts are not published; the model uses the 10-packet queue and 10-MTU bursts",
	"trim.timeline.overflow":          "the hardware queue limit is not published (4.7 us at 2:1 implies ~58 KB; the model's data queue is 15 KB)",
	"trim.timeline.drained":           "as trim.timeline.overflow: a smaller queue drains sooner",
	// Trio paper.
	"trio.straggler.speedup": "SwitchML loses exactly its sleeps, and with the pattern as stated SwitchML/typical is 1.66 (1.54 expected, PatternSlowdown): no Trio-ML that is not faster than its own typical iteration reaches 1.72; Trio-ML loses 21 ms per iteration: a sleeper that wakes behind keeps its lag (SingleStraggle), and each straggled iteration costs a partial wait of about 20 ms (with the Resync what-if, 137 ms, x 1.46)",
}
