package main

import (
	"archsim/internal/tables"
	"fmt"
	"io"

	"archsim/sonic"
	"archsim/sonic/orch"
)

// sonicReport is what the main job adds with --sonic-config: the trimming
// configuration as programmed and the counters after the simulation.
type sonicReport struct {
	Config   string          `json:"config"`
	Trimming *sonic.Trimming `json:"trimming"`
	Counters *orch.Counters  `json:"counters,omitempty"`
}

func newSonicReport(name string, cfg *sonic.Config, a *orch.Agent) *sonicReport {
	r := &sonicReport{Config: name, Trimming: cfg.Trimming}
	if a != nil {
		c := a.All()
		r.Counters = &c
	}
	return r
}

// renderSonic prints the counters like `show switch-trimming global`,
// `queuestat --trim` and `show interfaces counters trim`.
func renderSonic(w io.Writer, r *sonicReport) {
	fmt.Fprintf(w, "\nSONiC configuration %s\n", r.Config)
	if t := r.Trimming; t != nil {
		dscp := fmt.Sprint(t.DSCP)
		if t.DSCPMode == sonic.DSCPFromTC {
			dscp = fmt.Sprintf("from-tc (tc %d)", t.TC)
		}
		queue := fmt.Sprint(t.Queue)
		if t.QueueMode == sonic.QueueDyn {
			queue = "dynamic"
		}
		tb := tables.New(w, "Trimming size", "DSCP", "Queue")
		tb.Row(fmt.Sprint(t.Size), dscp, queue)
		tb.Render()
	} else {
		fmt.Fprintln(w, "Trimming: not configured")
	}
	if r.Counters == nil {
		return
	}
	c := r.Counters
	fmt.Fprintln(w, "\nQueue counters (ports with traffic):")
	tq := tables.New(w, "Port", "TxQ", "Counter/pkts", "Counter/bytes", "Drop/pkts", "Drop/bytes", "Trim/pkts", "TrimSent/pkts", "TrimDrop/pkts")
	for _, q := range c.Queues {
		tq.Row(q.Port, q.Queue, fmt.Sprint(q.TxPackets), fmt.Sprint(q.TxBytes), fmt.Sprint(q.DropPackets), fmt.Sprint(q.DropBytes),
			fmt.Sprint(q.Trim), fmt.Sprint(q.TrimSent), fmt.Sprint(q.TrimDrop))
	}
	tq.Render()
	fmt.Fprintln(w, "\nPort trimming counters:")
	tp := tables.New(w, "Iface", "TRIM_PKTS", "TRIM_TX_PKTS", "TRIM_DRP_PKTS", "TX_DRP")
	for _, p := range c.Ports {
		tp.Row(p.Port, fmt.Sprint(p.Trim), fmt.Sprint(p.TrimTx), fmt.Sprint(p.TrimDrp), fmt.Sprint(p.TxDrp))
	}
	tp.Render()
	fmt.Fprintf(w, "\nSwitch: trim_sent %d, trim_drop %d\n", c.Switch.TrimSent, c.Switch.TrimDrop)
}
