package orch_test

// SONiC packet trimming, end to end: CONFIG_DB → sonic.Runtime → orch.Agent
// → the Tofino model running sonic-l3, driven the way sonic-mgmt's
// tests/packet_trimming drive a DUT. Each test follows a case of
// ../shared/references/sonic-trimming.md §3 (T1..T16); the rig is in
// rig_test.go.

import (
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"archsim/components/packet"
	"archsim/components/packet/pooltest"
	"archsim/sonic"
	"archsim/sonic/orch"
)

// probesPerKind is how many probes of each of the four kinds a check
// sends (sonic-mgmt sends 100; 20 is enough to assert every one).
const probesPerKind = 20

// members is an interface's ports: a PortChannel's members, or the port.
func (r *rig) members(ifname string) []string {
	if ms, ok := r.rt.Config().PortChannels[ifname]; ok {
		return ms
	}
	return []string{ifname}
}

// trimmedTo is what a trimmed probe to ifname looks like: size bytes,
// the given DSCP, from the trim queue.
func (r *rig) trimmedTo(ifname string, size, dscp int) expect {
	return expect{ports: r.members(ifname), size: size, dscp: dscp, queue: trimQueue}
}

// trimBatch sends n probes of every kind (size bytes, DSCP 1) to ifname,
// whose data queue is congested, and checks that every one was trimmed as
// w says. It also checks the counters each probe must move, per member:
// on the data queue (the original's queue) trimpacket, trimsentpacket and
// dropped packets/bytes each grow by the probes that egressed on that
// member, trimdroppacket does not move; the trim queue's TX packets
// grow by the same number and its TX bytes by their lengths.
func (r *rig) trimBatch(ifname string, n, size int, w expect) map[kind][]uint64 {
	r.t.Helper()
	members := r.members(ifname)
	dq := queueOf(probeDSCP)
	type snap struct{ data, trim tofinoQC }
	before := map[string]snap{}
	for _, m := range members {
		before[m] = snap{r.queue(m, dq), r.queue(m, w.queue)}
	}
	ids := r.sendProbes(ifname, n, size, probeDSCP)
	r.expectTrimmed(ids, w)
	frames := r.framesOf(allIDs(ids))
	for _, m := range members {
		seen, bytes := int64(0), int64(0)
		for _, fs := range frames {
			for _, f := range fs {
				if f.port == r.dev(m) {
					seen++
					bytes += int64(f.length)
				}
			}
		}
		d0, t0 := before[m].data, before[m].trim
		d1, t1 := r.queue(m, dq), r.queue(m, w.queue)
		got := fmt.Sprintf("trim %d sent %d drop %d dropB %d trimdrop %d | trim-queue tx %d txB %d",
			d1.Trim-d0.Trim, d1.TrimSent-d0.TrimSent, d1.DropPackets-d0.DropPackets, d1.DropBytes-d0.DropBytes,
			d1.TrimDrop-d0.TrimDrop, t1.TxPackets-t0.TxPackets, t1.TxBytes-t0.TxBytes)
		want := fmt.Sprintf("trim %d sent %d drop %d dropB %d trimdrop 0 | trim-queue tx %d txB %d",
			seen, seen, seen, seen*int64(size), seen, bytes)
		if got != want {
			r.t.Errorf("%s counter deltas over the probes:\n got %s\nwant %s", m, got, want)
		}
	}
	return ids
}

// t1 is reference T1 on a congested interface: 400-byte probes come out
// 256±4 B with the given DSCP from the trim queue 6.
func (r *rig) t1(ifname string, dscp int) map[kind][]uint64 {
	r.t.Helper()
	return r.trimBatch(ifname, probesPerKind, 400, r.trimmedTo(ifname, trimSize, dscp))
}

// checkCounterInvariants checks reference §2.5 on every active port and
// the switch: per port Σ queue trimpacket = TRIM_PKTS, Σ trimsentpacket =
// TRIM_TX_PKTS, Σ trimdroppacket = TRIM_DRP_PKTS, TRIM = TRIM_TX +
// TRIM_DRP, TX_DRP = Σ dropped packets; per queue trimpacket =
// trimsentpacket + trimdroppacket and dropped packets ≥ trimpacket (the
// trimmed originals are dropped packets); the switch's trim_sent and
// trim_drop are the sums over ports.
func (r *rig) checkCounterInvariants() {
	r.t.Helper()
	all := r.agent.All()
	var sent, drop int64
	for _, p := range all.Ports {
		var trim, tsent, tdrop, dropped int64
		for _, q := range all.Queues {
			if q.Port != p.Port {
				continue
			}
			trim += q.Trim
			tsent += q.TrimSent
			tdrop += q.TrimDrop
			dropped += q.DropPackets
			if q.Trim != q.TrimSent+q.TrimDrop || q.DropPackets < q.Trim {
				r.t.Errorf("%s %s: %+v: want trimpacket = trimsentpacket + trimdroppacket and dropped ≥ trimpacket", q.Port, q.Queue, q.QueueCounters)
			}
		}
		if p.Trim != trim || p.TrimTx != tsent || p.TrimDrp != tdrop || p.TxDrp != dropped || p.Trim != p.TrimTx+p.TrimDrp {
			r.t.Errorf("%s: %+v; queue sums trim %d sent %d drop %d dropped %d", p.Port, p, trim, tsent, tdrop, dropped)
		}
		// The port row from PortCounters is the same.
		if row := r.portRow(p.Port); row != p {
			r.t.Errorf("PortCounters(%s) = %+v, All() has %+v", p.Port, row, p)
		}
		sent += p.TrimTx
		drop += p.TrimDrp
	}
	if all.Switch.TrimSent != sent || all.Switch.TrimDrop != drop {
		r.t.Errorf("switch %+v, Σ ports trim_sent %d trim_drop %d", all.Switch, sent, drop)
	}
}

// ---------------------------------------------------------------------------
// T1: size after trimming; all four probe types.

func TestTrimT1SizeAfterTrimming(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)

	// The blocked queue sent exactly its first fill packet (the shaper's
	// initial burst), untrimmed, from queue 1.
	if q := r.queue("Ethernet4", dataQueue); q.TxPackets != 1 || q.TxBytes != fillSize {
		t.Errorf("blocked queue sent %d packets / %d B, want its first fill packet only (1 / %d B)", q.TxPackets, q.TxBytes, fillSize)
	}
	untrimmed := 0
	for _, f := range r.got {
		if f.port == r.dev("Ethernet4") && f.qid == dataQueue {
			untrimmed++
			if f.length != fillSize || r.sent[f.id].src != fillSrc4 {
				t.Errorf("frame from queue 1: %d B from %v, want the first 1500 B fill packet from 9.9.9.9", f.length, r.sent[f.id].src)
			}
		}
	}
	if untrimmed != 1 {
		t.Errorf("%d frames left the blocked queue, want 1", untrimmed)
	}

	ids := r.t1("Ethernet4", trimDSCP)

	// Every type was trimmed: IPv4 and IPv6, TCP and UDP.
	frames := r.framesOf(allIDs(ids))
	for _, k := range allKinds {
		n := 0
		for _, id := range ids[k] {
			for _, f := range frames[id] {
				_, v, ok := packet.IPHeader(f.head)
				proto := f.head[ethLen+9]
				if k.v6() {
					proto = f.head[ethLen+6]
				}
				wantProto := byte(17)
				if k.tcp() {
					wantProto = 6
				}
				if ok && (v == 6) == k.v6() && proto == wantProto && f.length == trimSize {
					n++
				}
			}
		}
		if n != probesPerKind {
			t.Errorf("%s: %d probes came out trimmed, want %d", k, n, probesPerKind)
		}
	}
	// Nothing but the trimmed probes reached another port.
	for _, f := range r.got {
		if f.port != r.dev("Ethernet4") {
			t.Errorf("frame on device port %d (id %d)", f.port, f.id)
		}
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T2: jumbo — size 4084, probes of 5000 B.

func TestTrimT2Jumbo(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	r.mustPatch(`[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "4084"}]`)
	if got := r.agent.Config().Trimming.Size; got != 4084 {
		t.Fatalf("programmed size %d, want 4084", got)
	}
	r.trimBatch("Ethernet4", probesPerKind, 5000, r.trimmedTo("Ethernet4", 4084, trimDSCP))
	// A probe shorter than the new size is sent whole (T3's rule).
	r.trimBatch("Ethernet4", 2, 1500, r.trimmedTo("Ethernet4", 1500, trimDSCP))
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T3: a packet shorter than size is not cut but still remarked and sent
// from the trim queue.

func TestTrimT3ShortPacket(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	// 1500-byte probes: trimmed to 256, DSCP 48.
	r.trimBatch("Ethernet4", probesPerKind, 1500, r.trimmedTo("Ethernet4", trimSize, trimDSCP))
	// 100-byte probes (< 256): 100±4 B, DSCP 48, via the trim queue.
	r.trimBatch("Ethernet4", probesPerKind, 100, r.trimmedTo("Ethernet4", 100, trimDSCP))

	// Asymmetric mode: DSCP 10 on Ethernet4, 20 on Ethernet8.
	db := r.rt.DB()
	set(db, "SWITCH_TRIMMING", "GLOBAL", map[string]any{"dscp_value": "from-tc", "tc_value": "6"})
	asymTables(db)
	r.mustApply(db)
	r.fill("Ethernet8", probeDSCP)
	r.trimBatch("Ethernet4", probesPerKind, 100, r.trimmedTo("Ethernet4", 100, 10))
	r.trimBatch("Ethernet8", probesPerKind, 100, r.trimmedTo("Ethernet8", 100, 20))
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T4: ACL DISABLE_TRIM.

const aclDoc = `{
  "ACL_TABLE_TYPE": {
    "TRIMMING_L3": {
      "MATCHES": ["SRC_IP", "SRC_IPV6"],
      "ACTIONS": ["DISABLE_TRIM_ACTION", "COUNTER"],
      "BIND_POINTS": ["PORT"]
    }
  },
  "ACL_TABLE": {
    "TRIM_TABLE": {"POLICY_DESC": "Packet trimming", "TYPE": "TRIMMING_L3", "STAGE": "INGRESS", "PORTS": ["Ethernet0"]}
  },
  "ACL_RULE": {
    "TRIM_TABLE|TRIM_RULE": {"PRIORITY": "999", "SRC_IP": "8.8.8.8/32", "PACKET_ACTION": "DISABLE_TRIM"},
    "TRIM_TABLE|TRIM_RULE_ipv6": {"PRIORITY": "999", "SRC_IPV6": "8000::2/128", "PACKET_ACTION": "DISABLE_TRIM"}
  }
}`

func TestTrimT4ACLDisableTrim(t *testing.T) {
	r := newRig(t)
	db := baseDB(t)
	acl, err := sonic.Parse([]byte(aclDoc), "acl.json")
	if err != nil {
		t.Fatal(err)
	}
	for table, keys := range acl {
		db[table] = keys
	}
	r.mustApply(db)
	r.fill("Ethernet4", probeDSCP)

	hits := func() (v4, v6 int64) {
		t.Helper()
		v4, ok4 := r.agent.ACLRuleHits("TRIM_TABLE", "TRIM_RULE")
		v6, ok6 := r.agent.ACLRuleHits("TRIM_TABLE", "TRIM_RULE_ipv6")
		if !ok4 || !ok6 {
			t.Fatalf("ACL rules not programmed")
		}
		return v4, v6
	}

	// Matching probes: dropped, not trimmed; the rules count them.
	h4, h6 := hits()
	q0 := r.queue("Ethernet4", dataQueue)
	ids := r.sendProbes("Ethernet4", probesPerKind, 400, probeDSCP)
	r.expectNone(ids, "trimming disabled")
	a4, a6 := hits()
	if a4-h4 != 2*probesPerKind || a6-h6 != 2*probesPerKind {
		t.Errorf("ACL rule hits grew by %d (SRC_IP) and %d (SRC_IPV6), want %d each", a4-h4, a6-h6, 2*probesPerKind)
	}
	q1 := r.queue("Ethernet4", dataQueue)
	if d := q1.DropPackets - q0.DropPackets; d != 4*probesPerKind || q1.Trim != q0.Trim || q1.TrimSent != q0.TrimSent || q1.TrimDrop != q0.TrimDrop {
		t.Errorf("data queue %+v → %+v: want %d more dropped packets and no trim counter change", q0, q1, 4*probesPerKind)
	}

	// Non-matching sources 8.8.8.9 / 8000::3 are trimmed; the rules do not count them.
	h4, h6 = hits()
	ids = r.sendFrom("Ethernet4", probesPerKind, 400, probeDSCP, netip.MustParseAddr("8.8.8.9"), netip.MustParseAddr("8000::3"))
	r.expectTrimmed(ids, r.trimmedTo("Ethernet4", trimSize, trimDSCP))
	if a4, a6 := hits(); a4 != h4 || a6 != h6 {
		t.Errorf("ACL rule hits grew for non-matching sources: %d→%d, %d→%d", h4, a4, h6, a6)
	}

	// DISABLE_TRIM does nothing to a packet whose queue is not congested
	// (DSCP 4 → queue 4): it is forwarded whole.
	ids = r.sendProbes("Ethernet4", 2, 400, 4)
	r.expectTrimmed(ids, expect{ports: []string{"Ethernet4"}, size: 400, dscp: 4, queue: 4})

	// ACL tables removed: the probes from 8.8.8.8 / 8000::2 are trimmed again.
	r.mustPatch(`[{"op": "remove", "path": "/ACL_RULE"}, {"op": "remove", "path": "/ACL_TABLE"}, {"op": "remove", "path": "/ACL_TABLE_TYPE"}]`)
	if _, ok := r.agent.ACLRuleHits("TRIM_TABLE", "TRIM_RULE"); ok {
		t.Errorf("ACL rule still programmed after its removal")
	}
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T5: packet_discard_action toggles.

const (
	actionDrop = `[{"op": "replace", "path": "/BUFFER_PROFILE/queue1_uplink_lossy_profile/packet_discard_action", "value": "drop"}]`
	actionTrim = `[{"op": "replace", "path": "/BUFFER_PROFILE/queue1_uplink_lossy_profile/packet_discard_action", "value": "trim"}]`
)

// dropBatch sends n probes of every kind to a congested ifname whose
// queue drops: nothing egresses, each is dropped as "queue full", the data
// queue counts them as dropped and its trim counters do not move.
func (r *rig) dropBatch(ifname string, n int) {
	r.t.Helper()
	q0 := r.queue(ifname, dataQueue)
	ids := r.sendProbes(ifname, n, 400, probeDSCP)
	r.expectNone(ids, "traffic manager: queue full")
	q1 := r.queue(ifname, dataQueue)
	if q1.DropPackets-q0.DropPackets != int64(4*n) || q1.Trim != q0.Trim || q1.TrimSent != q0.TrimSent || q1.TrimDrop != q0.TrimDrop {
		r.t.Errorf("%s queue %d: %+v → %+v: want %d more dropped packets, trim counters unchanged", ifname, dataQueue, q0, q1, 4*n)
	}
}

func TestTrimT5ActionToggle(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	for i := 0; i < 10; i++ {
		r.mustPatch(actionDrop)
		if r.agent.Config().Profiles["queue1_uplink_lossy_profile"].DiscardTrim {
			t.Fatalf("toggle %d: profile still trims", i)
		}
		r.dropBatch("Ethernet4", 2)
		r.mustPatch(actionTrim)
		r.t1("Ethernet4", trimDSCP)
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T6: asymmetric DSCP.

// asymDB is the base config in asymmetric mode: dscp_value from-tc,
// tc_value 6, queue_index 6, spine_trim_map {6:10} on Ethernet4 and
// host_trim_map {6:20} on Ethernet8.
func asymDB(t *testing.T) sonic.DB {
	db := baseDB(t)
	set(db, "SWITCH_TRIMMING", "GLOBAL", map[string]any{"dscp_value": "from-tc", "tc_value": "6", "queue_index": "6"})
	asymTables(db)
	return db
}

func TestTrimT6Asymmetric(t *testing.T) {
	r := newRig(t)
	r.mustApply(asymDB(t))
	tr := r.agent.Config().Trimming
	if tr.DSCPMode != sonic.DSCPFromTC || tr.TC != 6 || tr.Queue != 6 || tr.Size != 256 {
		t.Fatalf("programmed trimming %+v", *tr)
	}
	r.fill("Ethernet4", probeDSCP)
	r.fill("Ethernet8", probeDSCP)
	r.t1("Ethernet4", 10)
	r.t1("Ethernet8", 20)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T7: untrimmed packets in asymmetric mode keep their DSCP.

func TestTrimT7UntrimmedInAsymMode(t *testing.T) {
	r := newRig(t)
	r.mustApply(asymDB(t))
	for _, port := range []string{"Ethernet4", "Ethernet8"} {
		ids := r.sendProbes(port, probesPerKind, 400, 4)
		r.expectTrimmed(ids, expect{ports: []string{port}, size: 400, dscp: 4, queue: 4})
		for q := 0; q < 8; q++ {
			if c := r.queue(port, q); c.Trim != 0 || c.DropPackets != 0 {
				t.Errorf("%s UC%d: %+v: nothing may be dropped or trimmed without congestion", port, q, c)
			}
		}
		if c := r.queue(port, 4); c.TxPackets != 4*probesPerKind || c.TxBytes != 4*probesPerKind*400 {
			t.Errorf("%s UC4 sent %d / %d B, want %d / %d B", port, c.TxPackets, c.TxBytes, 4*probesPerKind, 4*probesPerKind*400)
		}
	}
}

// ---------------------------------------------------------------------------
// T8: symmetric / asymmetric mode switch, 5 times.

const (
	toAsym = `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"}, {"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "6"}]`
	toSym  = `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "48"}]`
)

func TestTrimT8ModeSwitch(t *testing.T) {
	r := newRig(t)
	db := baseDB(t)
	asymTables(db) // the maps stay; only the mode changes
	r.mustApply(db)
	r.fill("Ethernet4", probeDSCP)
	r.fill("Ethernet8", probeDSCP)
	for i := 0; i < 5; i++ {
		r.t1("Ethernet4", trimDSCP)
		r.t1("Ethernet8", trimDSCP)
		r.mustPatch(toAsym)
		r.t1("Ethernet4", 10)
		r.t1("Ethernet8", 20)
		// Back to symmetric: tc_value stays in CONFIG_DB (a trimming
		// field cannot be removed once programmed) and is not used.
		r.mustPatch(toSym)
		if tr := r.agent.Config().Trimming; tr.DSCPMode != sonic.DSCPValue || tr.DSCP != trimDSCP {
			t.Fatalf("switch %d: programmed %+v, want symmetric DSCP 48", i, *tr)
		}
	}
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T9: from-tc configured before its TC_TO_DSCP_MAP exists.

func TestTrimT9MapAfterConfig(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.fill("Ethernet8", probeDSCP)
	r.mustPatch(toAsym)
	global := r.rt.DB()["SWITCH_TRIMMING"]["GLOBAL"]
	if global["dscp_value"] != "from-tc" || global["tc_value"] != "6" {
		t.Errorf("running config SWITCH_TRIMMING|GLOBAL = %v, want dscp_value from-tc, tc_value 6", global)
	}
	if tr := r.agent.Config().Trimming; tr.DSCPMode != sonic.DSCPFromTC || tr.TC != 6 {
		t.Fatalf("programmed %+v, want FROM_TC with TC 6", *tr)
	}
	// Without a map the probes are still trimmed (size, queue, TTL,
	// payload); the reference leaves their DSCP unspecified, so it is not
	// checked here.
	w := r.trimmedTo("Ethernet4", trimSize, 0)
	w.anyDSCP = true
	r.trimBatch("Ethernet4", 2, 400, w)

	r.mustPatch(`[
	  {"op": "add", "path": "/TC_TO_DSCP_MAP", "value": {"spine_trim_map": {"6": "10"}, "host_trim_map": {"6": "20"}}},
	  {"op": "add", "path": "/PORT_QOS_MAP/Ethernet4/tc_to_dscp_map", "value": "spine_trim_map"},
	  {"op": "add", "path": "/PORT_QOS_MAP/Ethernet8/tc_to_dscp_map", "value": "host_trim_map"}]`)
	r.t1("Ethernet4", 10)
	r.t1("Ethernet8", 20)
}

// ---------------------------------------------------------------------------
// T10: LAG egress.

// lagDB is the base config with PortChannel1 = {Ethernet4, Ethernet8}
// and routes to it; queue 1 of every member is blocked (base config).
func lagDB(t *testing.T) sonic.DB {
	db := baseDB(t)
	set(db, "PORTCHANNEL", "PortChannel1", map[string]any{"admin_status": "up", "min_links": "1", "mtu": "9100", "members": []string{"Ethernet4", "Ethernet8"}})
	set(db, "STATIC_ROUTE", "192.168.100.0/24", map[string]any{"ifname": "PortChannel1"})
	set(db, "STATIC_ROUTE", "2001:db8:0:100::/64", map[string]any{"ifname": "PortChannel1"})
	return db
}

func TestTrimT10LAG(t *testing.T) {
	r := newRig(t)
	r.mustApply(lagDB(t))
	r.fill("PortChannel1", probeDSCP) // checks that both members' queue 1 refuse
	ids := r.t1("PortChannel1", trimDSCP)
	perMember := map[int]int{}
	for _, fs := range r.framesOf(allIDs(ids)) {
		for _, f := range fs {
			perMember[f.port]++
		}
	}
	t.Logf("trimmed probes per member device port: %v", perMember)

	// The port channel's counters are its members'.
	rows, err := r.agent.QueueCounters("PortChannel1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 16 {
		t.Fatalf("PortChannel1 has %d queue rows, want 16 (8 per member)", len(rows))
	}
	for i, row := range rows {
		m := []string{"Ethernet4", "Ethernet8"}[i/8]
		if row.Port != m || row.Queue != fmt.Sprintf("UC%d", i%8) || row.QueueCounters != r.queue(m, i%8) {
			t.Errorf("PortChannel1 row %d = %+v, want %s UC%d %+v", i, row, m, i%8, r.queue(m, i%8))
		}
	}
	lag := r.portRow("PortChannel1")
	e4, e8 := r.portRow("Ethernet4"), r.portRow("Ethernet8")
	if lag.Trim != e4.Trim+e8.Trim || lag.TrimTx != e4.TrimTx+e8.TrimTx || lag.TrimDrp != e4.TrimDrp+e8.TrimDrp || lag.TxDrp != e4.TxDrp+e8.TxDrp {
		t.Errorf("PortChannel1 %+v is not the sum of %+v and %+v", lag, e4, e8)
	}
	if e4.Trim == 0 || e8.Trim == 0 {
		t.Errorf("both members must have trimmed (fill packets spread by sport): %+v %+v", e4, e8)
	}

	// Asymmetric mode with spine_trim_map on every member: DSCP 10 on
	// whichever member the probe leaves.
	r.mustPatch(`[
	  {"op": "add", "path": "/TC_TO_DSCP_MAP", "value": {"spine_trim_map": {"6": "10"}}},
	  {"op": "add", "path": "/PORT_QOS_MAP/Ethernet4/tc_to_dscp_map", "value": "spine_trim_map"},
	  {"op": "add", "path": "/PORT_QOS_MAP/Ethernet8/tc_to_dscp_map", "value": "spine_trim_map"},
	  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"},
	  {"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "6"}]`)
	r.t1("PortChannel1", 10)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T11: counters, with trimming on the DSCP-1 and the DSCP-3 queue.

func TestTrimT11Counters(t *testing.T) {
	r := newRig(t)
	db := baseDB(t)
	set(db, "BUFFER_QUEUE", "Ethernet4|3", map[string]any{"profile": "queue3_uplink_lossy_profile"})
	set(db, "QUEUE", "Ethernet4|3", map[string]any{"scheduler": "SCHEDULER_BLOCK_DATA_PLANE"})
	r.mustApply(db)
	r.fill("Ethernet4", 1)
	r.fill("Ethernet4", 3)

	before := map[int]tofinoQC{}
	for q := 0; q < 8; q++ {
		before[q] = r.queue("Ethernet4", q)
	}
	ids1 := r.sendProbes("Ethernet4", probesPerKind, 400, 1)
	ids3 := r.sendProbes("Ethernet4", probesPerKind, 400, 3)
	w := r.trimmedTo("Ethernet4", trimSize, trimDSCP)
	r.expectTrimmed(ids1, w)
	r.expectTrimmed(ids3, w)

	// Each queue counts its own originals: trimmed, sent, dropped.
	n := int64(4 * probesPerKind)
	for _, q := range []int{1, 3} {
		a, b := before[q], r.queue("Ethernet4", q)
		if b.Trim-a.Trim != n || b.TrimSent-a.TrimSent != n || b.TrimDrop != a.TrimDrop || b.DropPackets-a.DropPackets != n || b.DropBytes-a.DropBytes != n*400 || b.TxPackets != a.TxPackets {
			t.Errorf("UC%d %+v → %+v: want %d more trimmed, trim-sent and dropped (%d B) packets", q, a, b, n, n*400)
		}
	}
	if a, b := before[trimQueue], r.queue("Ethernet4", trimQueue); b.TxPackets-a.TxPackets != 2*n || b.TxBytes-a.TxBytes != 2*n*trimSize {
		t.Errorf("UC6 %+v → %+v: want %d more packets, %d B", a, b, 2*n, 2*n*trimSize)
	}

	all := r.agent.All()
	var ports []string
	for _, p := range all.Ports {
		ports = append(ports, p.Port)
	}
	if !slices.Equal(ports, []string{"Ethernet4"}) {
		t.Errorf("ports with activity %v, want [Ethernet4]", ports)
	}
	p := r.portRow("Ethernet4")
	var trim, sent, drop, tx6 int64
	for _, q := range all.Queues {
		if q.Port == "Ethernet4" {
			trim += q.Trim
			sent += q.TrimSent
			drop += q.TrimDrop
			if q.Queue == "UC6" {
				tx6 = q.TxPackets
			}
		}
	}
	if trim == 0 || trim != p.Trim {
		t.Errorf("Σ queue trimpacket %d, TRIM_PKTS %d: want equal and > 0", trim, p.Trim)
	}
	if all.Switch.TrimSent == 0 || all.Switch.TrimSent != p.TrimTx {
		t.Errorf("switch trim_sent %d, Σ TRIM_TX_PKTS %d: want equal and ≠ 0", all.Switch.TrimSent, p.TrimTx)
	}
	if sent != p.TrimTx || drop != p.TrimDrp || p.Trim != p.TrimTx+p.TrimDrp {
		t.Errorf("Σ trimsentpacket %d Σ trimdroppacket %d, port %+v", sent, drop, p)
	}
	// Every trimmed copy was sent, from the trim queue.
	if tx6 != sent {
		t.Errorf("UC6 sent %d packets, Σ trimsentpacket %d", tx6, sent)
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T12: TrimDrop — the trim queue is blocked too.

func TestTrimT12TrimDrop(t *testing.T) {
	r := newRig(t)
	db := baseDB(t)
	set(db, "QUEUE", "Ethernet4|6", map[string]any{"scheduler": "SCHEDULER_BLOCK_DATA_PLANE"})
	r.mustApply(db)
	r.fill("Ethernet4", probeDSCP) // its trimmed copies fill queue 6
	q6 := r.queue("Ethernet4", trimQueue)
	if q6.TxPackets != 1 {
		t.Errorf("blocked trim queue sent %d packets, want its first one only", q6.TxPackets)
	}
	if r.queue("Ethernet4", dataQueue).TrimDrop == 0 {
		t.Fatalf("the fill did not fill the trim queue: %+v", r.queue("Ethernet4", dataQueue))
	}

	d0 := r.queue("Ethernet4", dataQueue)
	ids := r.sendProbes("Ethernet4", probesPerKind, 400, probeDSCP)
	r.expectNone(ids, "trim queue full")
	d1 := r.queue("Ethernet4", dataQueue)
	n := int64(4 * probesPerKind)
	if d1.Trim-d0.Trim != n || d1.TrimDrop-d0.TrimDrop != n || d1.TrimSent != d0.TrimSent || d1.DropPackets-d0.DropPackets != n {
		t.Errorf("UC1 %+v → %+v: want %d more trimmed, trim-dropped and dropped, none trim-sent", d0, d1, n)
	}
	if c := r.queue("Ethernet4", trimQueue); c.TxPackets != q6.TxPackets {
		t.Errorf("the blocked trim queue sent %d more packets", c.TxPackets-q6.TxPackets)
	}
	p := r.portRow("Ethernet4")
	all := r.agent.All()
	var drop int64
	for _, q := range all.Queues {
		if q.Port == "Ethernet4" {
			drop += q.TrimDrop
		}
	}
	if p.TrimDrp == 0 || drop != p.TrimDrp || all.Switch.TrimDrop != p.TrimDrp {
		t.Errorf("TRIM_DRP_PKTS %d, Σ trimdroppacket %d, switch trim_drop %d: want equal and > 0", p.TrimDrp, drop, all.Switch.TrimDrop)
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T13: counters persist across feature toggles.

func TestTrimT13CountersPersist(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	// Make TrimDrop non-zero too: block the trim queue, fill it, probe.
	r.mustPatch(`[{"op": "add", "path": "/QUEUE/Ethernet4|6", "value": {"scheduler": "SCHEDULER_BLOCK_DATA_PLANE"}}]`)
	r.fill("Ethernet4", probeDSCP)
	r.expectNone(r.sendProbes("Ethernet4", 2, 400, probeDSCP), "trim queue full")
	// (Queue 6 stays blocked: nothing may move while the action toggles.)

	qBefore, err := r.agent.QueueCounters("Ethernet4")
	if err != nil {
		t.Fatal(err)
	}
	pBefore := r.portRow("Ethernet4")
	if pBefore.Trim == 0 || pBefore.TrimTx == 0 || pBefore.TrimDrp == 0 {
		t.Fatalf("want TRIM, TRIM_TX and TRIM_DRP all > 0 before the toggle: %+v", pBefore)
	}
	r.mustPatch(actionDrop)
	r.run()
	r.mustPatch(actionTrim)
	r.run()
	qAfter, _ := r.agent.QueueCounters("Ethernet4")
	if !reflect.DeepEqual(qBefore, qAfter) {
		t.Errorf("queue counters changed across the toggle:\n before %+v\n after  %+v", qBefore, qAfter)
	}
	if pAfter := r.portRow("Ethernet4"); pAfter != pBefore {
		t.Errorf("port counters changed across the toggle: %+v → %+v", pBefore, pAfter)
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T14: egress port admin toggles.

// adminPatch sets PORT|port admin_status.
func adminPatch(status string, ports ...string) string {
	var ops []string
	for _, p := range ports {
		ops = append(ops, fmt.Sprintf(`{"op": "replace", "path": "/PORT/%s/admin_status", "value": %s}`, p, jsonStr(status)))
	}
	return "[" + strings.Join(ops, ", ") + "]"
}

func TestTrimT14AdminToggle(t *testing.T) {
	r := setupBase(t)
	saved := r.rt.DB()
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	e4 := r.dev("Ethernet4")

	checkApplied := func(i int, asym bool) {
		t.Helper()
		cfg := r.agent.Config()
		if p := cfg.Profiles[cfg.Queues[sonic.PortQueue{Port: "Ethernet4", Queue: dataQueue}]]; !p.DiscardTrim || p.Pool != "egress_lossy_pool" {
			t.Errorf("toggle %d: Ethernet4|1 profile %+v", i, p)
		}
		if cfg.QueueSchedulers[sonic.PortQueue{Port: "Ethernet4", Queue: dataQueue}] != "SCHEDULER_BLOCK_DATA_PLANE" {
			t.Errorf("toggle %d: Ethernet4|1 scheduler lost", i)
		}
		q := cfg.PortQoSFor("Ethernet4")
		if q.DSCPToTC != "AZURE" || q.TCToQueue != "AZURE" || (asym && cfg.TCToDSCP[q.TCToDSCP][6] != 10) {
			t.Errorf("toggle %d: Ethernet4 QoS maps %+v", i, q)
		}
	}

	for i := 0; i < 10; i++ {
		r.mustPatch(adminPatch("down", "Ethernet4"))
		r.run()
		if r.sw.TM().PortUp(e4) {
			t.Fatalf("toggle %d: Ethernet4 still up", i)
		}
		// While down nothing leaves the port.
		r.expectNone(r.sendProbes("Ethernet4", 1, 400, probeDSCP), "port admin down")
		r.mustPatch(adminPatch("up", "Ethernet4"))
		if !r.sw.TM().PortUp(e4) {
			t.Fatalf("toggle %d: Ethernet4 still down", i)
		}
		if !reflect.DeepEqual(r.rt.DB(), saved) {
			t.Errorf("toggle %d: running config differs from the one before the toggles", i)
		}
		checkApplied(i, false)
		// Going down flushed the blocked queue: congest it again.
		r.fill("Ethernet4", probeDSCP)
		r.trimBatch("Ethernet4", 5, 400, r.trimmedTo("Ethernet4", trimSize, trimDSCP))
		r.checkCounterInvariants()
	}

	// Asymmetric mode, toggling the ingress and the egress port.
	r.mustPatch(`[
	  {"op": "add", "path": "/TC_TO_DSCP_MAP", "value": {"spine_trim_map": {"6": "10"}}},
	  {"op": "add", "path": "/PORT_QOS_MAP/Ethernet4/tc_to_dscp_map", "value": "spine_trim_map"}]`)
	r.mustPatch(toAsym)
	for i := 0; i < 10; i++ {
		r.mustPatch(adminPatch("down", "Ethernet0", "Ethernet4"))
		r.run()
		r.mustPatch(adminPatch("up", "Ethernet0", "Ethernet4"))
		checkApplied(i, true)
		r.fill("Ethernet4", probeDSCP)
		r.trimBatch("Ethernet4", 5, 400, r.trimmedTo("Ethernet4", trimSize, 10))
	}
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T15: config reload and cold reboot.

func TestTrimT15ReloadAndReboot(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	saved := r.rt.DB() // config save

	reload := func(what string) {
		t.Helper()
		// config reload: a new CONFIG_DB from the saved file and a
		// restarted orchagent programming the same switch.
		r.rt = sonic.NewRuntime(orch.Capabilities(r.chip))
		var err error
		if r.agent, err = orch.New(r.sw); err != nil {
			t.Fatal(err)
		}
		r.mustApply(saved)
		if !reflect.DeepEqual(r.rt.DB(), saved) {
			t.Errorf("%s: running config differs from the saved one", what)
		}
	}
	reboot := func(what string) {
		t.Helper()
		r.boot() // a new switch: nothing queued, counters zero
		for q := 0; q < 8; q++ {
			if c := r.queue("Ethernet4", q); c != (tofinoQC{}) {
				t.Errorf("%s: Ethernet4 UC%d counters %+v after a cold reboot", what, q, c)
			}
		}
		r.mustApply(saved)
		if !reflect.DeepEqual(r.rt.DB(), saved) {
			t.Errorf("%s: running config differs from the saved one", what)
		}
	}

	reload("config reload")
	r.fill("Ethernet4", probeDSCP) // sonic-mgmt re-creates the congestion
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()

	reboot("cold reboot")
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()

	// Asymmetric mode persists too.
	r.mustApply(asymDB(t))
	saved = r.rt.DB()
	reload("asym config reload")
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", 10)
	reboot("asym cold reboot")
	r.fill("Ethernet4", probeDSCP)
	r.fill("Ethernet8", probeDSCP)
	r.t1("Ethernet4", 10)
	r.t1("Ethernet8", 20)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// T16: an ERSPAN mirror session alongside trimming.
//
// MIRROR_SESSION is not modelled: sonic.Validate ignores tables it has no
// model for (as SONiC ignores tables without YANG), so the session is
// stored in CONFIG_DB and programs nothing. The test checks that the
// config is accepted and that trimming (T1) is unaffected with and without
// it.

func TestTrimT16MirrorSession(t *testing.T) {
	if slices.Contains(sonic.ModelledTables(), "MIRROR_SESSION") {
		t.Fatalf("MIRROR_SESSION is now modelled: extend this test to check the mirrored copies")
	}
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	r.mustPatch(`[{"op": "add", "path": "/MIRROR_SESSION", "value": {"test_session_1": {
	  "type": "ERSPAN", "src_ip": "1.1.1.1", "dst_ip": "2.2.2.2", "dscp": "8", "ttl": "64",
	  "gre_type": "0x8949", "queue": "0", "src_port": "Ethernet0", "direction": "BOTH"}}}]`)
	if s := r.rt.DB()["MIRROR_SESSION"]["test_session_1"]; s["type"] != "ERSPAN" || s["dst_ip"] != "2.2.2.2" {
		t.Errorf("running config MIRROR_SESSION|test_session_1 = %v", s)
	}
	r.t1("Ethernet4", trimDSCP)
	r.mustPatch(`[{"op": "remove", "path": "/MIRROR_SESSION"}]`)
	if _, ok := r.rt.DB()["MIRROR_SESSION"]; ok {
		t.Errorf("MIRROR_SESSION still in the running config")
	}
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// A refused change leaves the model's behaviour as it was.

func TestTrimRefusedChangeKeepsBehaviour(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)

	// Config reload with dscp_value 64 (swss VS negative case).
	db := r.rt.DB()
	set(db, "SWITCH_TRIMMING", "GLOBAL", map[string]any{"dscp_value": "64"})
	if err := r.apply(db); err == nil || !strings.Contains(err.Error(), "dscp_value") {
		t.Errorf("apply with dscp_value 64: error %v, want one naming dscp_value", err)
	}
	r.t1("Ethernet4", trimDSCP)

	// A patch mixing a valid change (DSCP 10, queue 5) with an invalid
	// one (size 5000 > 4084) is refused as a whole (GCU negative case).
	err := r.patch(`[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "10"},
	  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "5"},
	  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "5000"}]`)
	if err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("patch with size 5000: error %v, want one naming size", err)
	}
	// Removing SWITCH_TRIMMING once programmed is refused.
	if err := r.patch(`[{"op": "remove", "path": "/SWITCH_TRIMMING"}]`); err == nil {
		t.Errorf("removing SWITCH_TRIMMING|GLOBAL was accepted")
	}
	// A trim profile on a priority group is refused (bufferorch).
	if err := r.patch(`[{"op": "add", "path": "/BUFFER_PG", "value": {"Ethernet0|3": {"profile": "queue1_uplink_lossy_profile"}}}]`); err == nil {
		t.Errorf("a trimming profile on BUFFER_PG was accepted")
	}
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
}

// ---------------------------------------------------------------------------
// sonic-mgmt's teardown unblocks the queue: removing the scheduler must
// let the queued packets drain.

func TestTrimUnblockDrains(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	q := r.queue("Ethernet4", dataQueue)
	queued := int64(r.sw.TM().Queue(r.dev("Ethernet4"), dataQueue).Enqueued) - q.TxPackets
	if queued <= 0 {
		t.Fatalf("nothing queued: %+v", q)
	}
	r.mustPatch(`[{"op": "remove", "path": "/QUEUE/Ethernet4|1"}]`)
	r.run()
	if got := r.queue("Ethernet4", dataQueue).TxPackets - q.TxPackets; got != queued {
		t.Errorf("after the scheduler's removal queue 1 sent %d of its %d queued packets", got, queued)
	}
	// A queue that is no longer blocked forwards the probes whole.
	ids := r.sendProbes("Ethernet4", 2, 400, probeDSCP)
	r.expectTrimmed(ids, expect{ports: []string{"Ethernet4"}, size: 400, dscp: probeDSCP, queue: dataQueue})
}

// ---------------------------------------------------------------------------
// Beyond the reference's list.

// Dynamic queue mode (reference §1.4): the trimmed copy's queue is its new
// DSCP → DSCP_TO_TC (ingress port) → TC_TO_QUEUE (egress port).
func TestTrimDynamicQueue(t *testing.T) {
	r := setupBase(t)
	r.fill("Ethernet4", probeDSCP)
	r.mustPatch(`[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "dynamic"}]`)
	// The static index is kept (not programmed) while dynamic (switchorch).
	if tr := r.agent.Config().Trimming; tr.QueueMode != sonic.QueueDyn || tr.Queue != trimQueue {
		t.Fatalf("programmed %+v, want DYNAMIC keeping queue index 6", *tr)
	}
	// DSCP 48 → TC 6 → queue 6.
	r.trimBatch("Ethernet4", 5, 400, r.trimmedTo("Ethernet4", trimSize, trimDSCP))
	// DSCP 48 → TC 5 (no TC_TO_QUEUE entry: queue = TC) → queue 5.
	r.mustPatch(`[{"op": "replace", "path": "/DSCP_TO_TC_MAP/AZURE/48", "value": "5"}]`)
	w := r.trimmedTo("Ethernet4", trimSize, trimDSCP)
	w.queue = 5
	r.trimBatch("Ethernet4", 5, 400, w)
	// DSCP 48 → TC 5 → queue 7 (TC_TO_QUEUE of the egress port).
	r.mustPatch(`[{"op": "add", "path": "/TC_TO_QUEUE_MAP/AZURE/5", "value": "7"}]`)
	w.queue = 7
	r.trimBatch("Ethernet4", 5, 400, w)
	// Back to static: queue_index keeps its last static value, 6.
	r.mustPatch(`[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "6"}]`)
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
}

// An ACL rule's counter belongs to the rule: adding a rule of higher
// priority must not move another rule's count, and a rule created anew
// starts from 0 (aclorch creates a new SAI counter per rule).
func TestTrimACLCountersFollowRules(t *testing.T) {
	r := newRig(t)
	db := baseDB(t)
	acl, err := sonic.Parse([]byte(aclDoc), "acl.json")
	if err != nil {
		t.Fatal(err)
	}
	for table, keys := range acl {
		db[table] = keys
	}
	r.mustApply(db)
	// Only IPv4 probes: TRIM_RULE counts, TRIM_RULE_ipv6 does not.
	for i := 0; i < 5; i++ {
		r.inject(ingress, probe(ipv4UDP, "Ethernet4", 400, 4))
	}
	r.run()
	hits := func(rule string) int64 {
		t.Helper()
		n, ok := r.agent.ACLRuleHits("TRIM_TABLE", rule)
		if !ok {
			t.Fatalf("rule %s not programmed", rule)
		}
		return n
	}
	if hits("TRIM_RULE") != 5 || hits("TRIM_RULE_ipv6") != 0 {
		t.Fatalf("hits %d / %d, want 5 / 0", hits("TRIM_RULE"), hits("TRIM_RULE_ipv6"))
	}
	r.mustPatch(`[{"op": "add", "path": "/ACL_RULE/TRIM_TABLE|TRIM_RULE_hi", "value": {"PRIORITY": "1000", "SRC_IP": "7.7.7.7/32", "PACKET_ACTION": "DISABLE_TRIM"}}]`)
	if a, b, c := hits("TRIM_RULE"), hits("TRIM_RULE_ipv6"), hits("TRIM_RULE_hi"); a != 5 || b != 0 || c != 0 {
		t.Errorf("after adding a higher-priority rule: TRIM_RULE %d, TRIM_RULE_ipv6 %d, TRIM_RULE_hi %d; want 5, 0, 0", a, b, c)
	}
	r.mustPatch(`[{"op": "remove", "path": "/ACL_RULE/TRIM_TABLE|TRIM_RULE"}]`)
	r.mustPatch(`[{"op": "add", "path": "/ACL_RULE/TRIM_TABLE|TRIM_RULE", "value": {"PRIORITY": "999", "SRC_IP": "8.8.8.8/32", "PACKET_ACTION": "DISABLE_TRIM"}}]`)
	if a := hits("TRIM_RULE"); a != 0 {
		t.Errorf("a re-created rule starts with %d hits, want 0", a)
	}
}

// PORT_QOS_MAP on a PortChannel: the maps it names apply to the members
// that do not name their own (sonic.Config.PortQoSFor, per map), here the
// asymmetric tc_to_dscp_map while the members keep their own DSCP_TO_TC
// and TC_TO_QUEUE maps.
func TestTrimLAGPortQoSMap(t *testing.T) {
	r := newRig(t)
	db := lagDB(t)
	set(db, "TC_TO_DSCP_MAP", "spine_trim_map", map[string]any{"6": "10"})
	set(db, "PORT_QOS_MAP", "PortChannel1", map[string]any{"tc_to_dscp_map": "spine_trim_map"})
	set(db, "SWITCH_TRIMMING", "GLOBAL", map[string]any{"dscp_value": "from-tc", "tc_value": "6"})
	r.mustApply(db)
	if q := r.agent.Config().PortQoSFor("Ethernet4"); q.TCToDSCP != "spine_trim_map" || q.TCToQueue != "AZURE" {
		t.Fatalf("PortQoSFor(Ethernet4) = %+v", q)
	}
	r.fill("PortChannel1", probeDSCP)
	r.t1("PortChannel1", 10)
}

// With a run's packet pool, a packet the traffic manager trims lives on
// only as its trimmed copy and goes back to the pool, as do the packets
// it drops: T1's probes still come out trimmed as T1 says (a recycled
// original reused while still held would corrupt them), and the pool got
// one packet per trimmed original and one per drop.
func TestTrimOriginalsGoToThePool(t *testing.T) {
	r := setupBase(t)
	pool := &pooltest.Reusing{}
	r.sw.SetPacketPool(pool)
	r.fill("Ethernet4", probeDSCP)
	r.t1("Ethernet4", trimDSCP)
	r.checkCounterInvariants()
	sw := r.agent.All().Switch
	if sw.TrimSent < 4*probesPerKind {
		t.Fatalf("%d packets trimmed and sent, want at least the %d probes", sw.TrimSent, 4*probesPerKind)
	}
	// A copy no trim queue took goes back too, and its original is a drop.
	if want := int(sw.TrimSent+sw.TrimDrop) + len(r.drops); pool.Puts != want {
		t.Errorf("%d packets given back to the pool, want %d (%d trimmed originals, %d refused copies, %d drops)",
			pool.Puts, want, sw.TrimSent, sw.TrimDrop, len(r.drops))
	}
}
