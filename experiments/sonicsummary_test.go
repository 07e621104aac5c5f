package experiments

import (
	"testing"

	"archsim/arch/tofino/tm"
	"archsim/sonic/orch"
)

// TestSonicSummaryTrimQueue: with a static trim queue the T23 balance
// reads that queue's transmits against the other queues' drops; with a
// dynamic one there is no such queue and both counts are absent (they
// read 0 before).
func TestSonicSummaryTrimQueue(t *testing.T) {
	c := orch.Counters{Queues: []orch.QueueRow{
		{Port: "Ethernet0", Queue: "UC0", QueueCounters: tm.QueueCounters{TxPackets: 50, DropPackets: 7, Trim: 7}},
		{Port: "Ethernet0", Queue: "UC4", QueueCounters: tm.QueueCounters{TxPackets: 6, DropPackets: 1}},
	}}
	s := sonicSummary(c, 4)
	if s.TrimQueue != "UC4" || s.TrimQueueTx == nil || *s.TrimQueueTx != 6 || *s.NonTrimQueueDrops != 7 || s.TxDrops != 8 || s.Trim != 7 {
		t.Errorf("static queue 4: %+v", s)
	}
	d := sonicSummary(c, -1)
	if d.TrimQueue != "dynamic" || d.TrimQueueTx != nil || d.NonTrimQueueDrops != nil || d.TxDrops != 8 {
		t.Errorf("dynamic: %+v", d)
	}
}
