package orch

import (
	"fmt"

	tofinotm "archsim/arch/tofino/tm"
)

// QueueRow is one queue's counters as `show queue counters` / `queuestat
// --trim` show them (JSON keys as sonic-mgmt reads them).
type QueueRow struct {
	Port  string `json:"port"`
	Queue string `json:"txq"` // UC0..UC7
	tofinotm.QueueCounters
}

// PortRow is a port's trimming counters (SAI_PORT_STAT_TRIM_PACKETS,
// _TX_TRIM_PACKETS, _DROPPED_TRIM_PACKETS): the sums over its queues, so
// TRIM = TRIM_TX + TRIM_DRP.
type PortRow struct {
	Port    string `json:"port"`
	Trim    int64  `json:"TRIM_PKTS"`
	TrimTx  int64  `json:"TRIM_TX_PKTS"`
	TrimDrp int64  `json:"TRIM_DRP_PKTS"`
	TxDrp   int64  `json:"TX_DRP"`
}

// SwitchRow is the switch's trimming counters (SAI_SWITCH_STAT_TX_TRIM_
// PACKETS, _DROPPED_TRIM_PACKETS): the sums over ports.
type SwitchRow struct {
	TrimSent int64 `json:"trim_sent"`
	TrimDrop int64 `json:"trim_drop"`
}

// Counters is every trimming counter of the switch.
type Counters struct {
	Queues []QueueRow `json:"queues"`
	Ports  []PortRow  `json:"ports"`
	Switch SwitchRow  `json:"switch"`
}

// QueueCounters returns a port's queue counters (a port channel's are its
// members', in member order).
func (a *Agent) QueueCounters(name string) ([]QueueRow, error) {
	var devs []int
	var names []string
	if a.cfg != nil {
		if ms, ok := a.cfg.PortChannels[name]; ok {
			for _, m := range ms {
				d, _ := DevPort(a.sw.Config(), m)
				devs, names = append(devs, d), append(names, m)
			}
		}
	}
	if devs == nil {
		d, ok := DevPort(a.sw.Config(), name)
		if !ok {
			return nil, fmt.Errorf("%s is not a port of this chip", name)
		}
		devs, names = []int{d}, []string{name}
	}
	var rows []QueueRow
	tm := a.sw.TM()
	for i, d := range devs {
		for q := 0; q < tm.QueuesPerPort(); q++ {
			rows = append(rows, QueueRow{Port: names[i], Queue: fmt.Sprintf("UC%d", q), QueueCounters: tm.Counters(d, q)})
		}
	}
	return rows, nil
}

// PortCounters returns one port's trimming counters.
func (a *Agent) PortCounters(name string) (PortRow, error) {
	rows, err := a.QueueCounters(name)
	if err != nil {
		return PortRow{}, err
	}
	r := PortRow{Port: name}
	for _, q := range rows {
		r.Trim += q.Trim
		r.TrimTx += q.TrimSent
		r.TrimDrp += q.TrimDrop
		r.TxDrp += q.DropPackets
	}
	return r, nil
}

// All returns the queue counters of every port with any activity, every
// port's trimming counters (ports with activity) and the switch's.
func (a *Agent) All() Counters {
	var c Counters
	for _, p := range a.ports {
		rows, _ := a.QueueCounters(p.name)
		active := false
		for _, q := range rows {
			if q.TxPackets != 0 || q.DropPackets != 0 || q.Trim != 0 {
				active = true
			}
		}
		if !active {
			continue
		}
		c.Queues = append(c.Queues, rows...)
		pr, _ := a.PortCounters(p.name)
		c.Ports = append(c.Ports, pr)
		c.Switch.TrimSent += pr.TrimTx
		c.Switch.TrimDrop += pr.TrimDrp
	}
	return c
}

// ACLRuleHits is how many packets an ACL DISABLE_TRIM rule matched.
func (a *Agent) ACLRuleHits(table, rule string) (int64, bool) {
	if a.cfg == nil {
		return 0, false
	}
	i, ok := a.aclCounter[table+"|"+rule]
	if !ok {
		return 0, false
	}
	return a.sw.CounterValue("acl_rule_hits", i), true
}
