package validation

// KnownDeviations lists the claims the model does not meet today, each with
// the reason. `archsim validate` still reports them as FAIL (and exits 1);
// `go test` checks that they still run, that every other claim passes, and
// that a listed claim that starts passing is taken off this list.
var KnownDeviations = map[string]string{
	"pie.table3.cp.sram":              "payload-gateway rule: egress_qid_table and udp_table (one constant entry) cost a gateway instead of 4 hash-way RAMs each; SDE 9.2 may not have applied it",
	"pie.table3.cp.hash":              "same as cp.sram: the two one-entry tables use no hash ways in the model",
	"pie.table3.cp.salu":              "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"pie.table3.dp.hash":              "gateway range compares are counted as at most 12 hash bits each; bf-p4c's exact use per gateway is not modelled",
	"pie.table3.dp.vliw":              "instruction rows are estimated as two actions per row; bf-p4c's row sharing depends on PHV container overlap",
	"pie.table3.dp.xbar":              "crossbar bytes are counted per field byte, not per PHV container byte after packing",
	"pie.table3.dp.salu":              "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"pie.table3.table.sram":           "the 100 000-entry exact table's action data (33 bits) is put in an 8-byte action-data RAM; bf-p4c may split it between immediate and RAM",
	"pie.table3.table.hash":           "see dp.hash and cp.hash",
	"pie.table3.table.xbar":           "see dp.xbar",
	"pie.table3.table.salu":           "the model divides by 48 meter ALUs; the paper's column matches a denominator of 96",
	"pie.risefall.table-rises-faster": "with midpoints PIE_DP's shift for alpha (2^9 = 512) exceeds PIE_TABLE's exact 503.3, so PIE_DP rises ~2 % faster (2.83 s vs 2.88 s); the isolating variant PIE_TABLE-p4t, filled as pie-for-tofino's script computes it (hi + lo/2 per range), rises in 1.19 s: the paper's order appears with the script's slip, its 2-3 s with the midpoint",
	"pie.risefall.table-falls-faster": "as table-rises-faster: with midpoints PIE_DP falls in 7.85 s, PIE_TABLE in 8.02 s; PIE_TABLE-p4t falls in 5.35 s",
	"pie.tcp.table-starves":           "with midpoints PIE_TABLE passes 12 / 36 / 92 % of line rate at 1 / 10 / 100 flows; PIE_TABLE-p4t (pie-for-tofino's hi + lo/2 fill) passes 8 / 6 / 5 %: the paper's \"almost no goodput\"",
	"pie.tcp.dp-half":                 "PIE_DP passes 13 / 45 / 95 % of line rate at 1 / 10 / 100 CUBIC flows (the paper: about 50 % as flows increase); the host model (Linux CUBIC with RACK-TLP, no TSO, an unbounded NIC queue) is the first suspect, not isolated yet",
	"pie.tcp.dp-table-overcontrol":    "medians 1 / 1 / 63 us (PIE_DP) and 1 / 1 / 41 us (PIE_TABLE) at 1 / 10 / 100 flows: far below delay_ref except PIE_DP at 100 flows and more (see dp-half)",
	"protego.footprint.sram":          "the model's Protego programs hold only the state the paper describes, on a minimal router",
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
	"trio.straggler.speedup": "a straggler that wakes behind keeps its lag; the others lose up to a scan timeout per iteration until it catches up, and the Slow Worker Pattern as described bounds SwitchML/ideal at about 1.6x",
}
