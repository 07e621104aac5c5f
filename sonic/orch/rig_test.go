package orch_test

// The test rig for the SONiC packet-trimming integration tests
// (trimming_test.go): a Tofino switch running sonic-l3 on a serial Akita
// engine, a recording sink on every front-panel port, a drop hook, a
// SONiC runtime (CONFIG_DB) and the orch agent that programs the switch,
// packet builders for the sonic-mgmt probe and fill packets, and the
// sonic-mgmt congestion procedure (block a queue with a pir 1 scheduler,
// fill it past its dynamic threshold, then send probes).
//
// Reference: ../shared/references/sonic-trimming.md (§1 behaviour, §2.5
// counters, §3 test cases T1..T16) and sonic-mgmt tests/packet_trimming.

import (
	"archsim/components/link"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino"
	"archsim/arch/tofino/compiler"
	tofinotm "archsim/arch/tofino/tm"
	"archsim/components/packet"
	"archsim/programs"
	"archsim/sonic"
	"archsim/sonic/orch"
)

// The sonic-mgmt constants (reference §3 "Common setup").
const (
	trimSize   = 256 // SWITCH_TRIMMING size
	trimDSCP   = 48  // SWITCH_TRIMMING dscp_value
	trimQueue  = 6   // SWITCH_TRIMMING queue_index
	dataQueue  = 1   // DSCP 1 → TC 1 → queue 1 (the blocked, trim-eligible queue)
	dataQueue3 = 3   // DSCP 3 → TC 3 → queue 3 (T11's second trim-eligible queue)
	probeDSCP  = 1
	probeECN   = 2
	probeTTL   = 64
	probeSport = 4321
	probeDport = 1234
	fillSize   = 1500
	margin     = 4 // PACKET_SIZE_MARGIN: a frame length matches within ±4 B
	ingress    = "Ethernet0"
	portGbps   = 100
	deadlinePs = 1_000_000_000_000 // 1 s: far beyond every test's traffic
	payloadLen = 64                // the recognisable payload prefix of every frame
	poolBytes  = 1 << 20           // egress_lossy_pool size
	sinkPropPs = 1000
)

var (
	probeSrc4 = netip.MustParseAddr("8.8.8.8")
	probeSrc6 = netip.MustParseAddr("8000::2")
	fillSrc4  = netip.MustParseAddr("9.9.9.9")
	fillSrc6  = netip.MustParseAddr("9000::2")
)

// kind is one of sonic-mgmt's four probe packet types.
type kind int

const (
	ipv4TCP kind = iota
	ipv4UDP
	ipv6TCP
	ipv6UDP
)

var allKinds = []kind{ipv4TCP, ipv4UDP, ipv6TCP, ipv6UDP}

func (k kind) v6() bool  { return k == ipv6TCP || k == ipv6UDP }
func (k kind) tcp() bool { return k == ipv4TCP || k == ipv6TCP }

func (k kind) String() string {
	return [...]string{"ipv4_tcp", "ipv4_udp", "ipv6_tcp", "ipv6_udp"}[k]
}

// spec is a frame to build: Ethernet + IPv4/IPv6 + TCP/UDP + payload.
type spec struct {
	kind         kind
	src, dst     netip.Addr
	dscp, ecn    int
	ttl          int // TTL or hop limit
	sport, dport int
	size         int // frame length (pkt.Len), without FCS
}

const (
	ethLen  = 14
	ipv4Len = 20
	ipv6Len = 40
	tcpLen  = 20
	udpLen  = 8
)

func (s spec) ipLen() int {
	if s.kind.v6() {
		return ipv6Len
	}
	return ipv4Len
}

func (s spec) l4Len() int {
	if s.kind.tcp() {
		return tcpLen
	}
	return udpLen
}

// hdrLen is the length of the headers (Ethernet, IP, L4).
func (s spec) hdrLen() int { return ethLen + s.ipLen() + s.l4Len() }

// head builds the frame's stored bytes: the headers and a payload prefix
// of up to payloadLen bytes (never more than the frame). Lengths come from
// size (IPv4 total_len, IPv6 payload_len, UDP len); the IPv4 checksum is
// computed; L4 checksums are 0.
func (s spec) head() []byte {
	hl := s.hdrLen()
	n := min(s.size, hl+payloadLen)
	b := make([]byte, n)
	copy(b[0:6], []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55})  // dst MAC (the router)
	copy(b[6:12], []byte{0x00, 0x66, 0x77, 0x88, 0x99, 0xaa}) // src MAC (the PTF host)
	tc := byte(s.dscp<<2 | s.ecn&3)
	off := ethLen
	proto := byte(17)
	if s.kind.tcp() {
		proto = 6
	}
	if s.kind.v6() {
		binary.BigEndian.PutUint16(b[12:], 0x86dd)
		b[off] = 0x60 | tc>>4
		b[off+1] = tc << 4
		binary.BigEndian.PutUint16(b[off+4:], uint16(s.size-ethLen-ipv6Len))
		b[off+6] = proto
		b[off+7] = byte(s.ttl)
		src, dst := s.src.As16(), s.dst.As16()
		copy(b[off+8:], src[:])
		copy(b[off+24:], dst[:])
	} else {
		binary.BigEndian.PutUint16(b[12:], 0x0800)
		b[off] = 0x45
		b[off+1] = tc
		binary.BigEndian.PutUint16(b[off+2:], uint16(s.size-ethLen))
		binary.BigEndian.PutUint16(b[off+4:], 1)      // identification
		binary.BigEndian.PutUint16(b[off+6:], 0x4000) // DF
		b[off+8] = byte(s.ttl)
		b[off+9] = proto
		src, dst := s.src.As4(), s.dst.As4()
		copy(b[off+12:], src[:])
		copy(b[off+16:], dst[:])
		binary.BigEndian.PutUint16(b[off+10:], ipv4Checksum(b[off:off+ipv4Len]))
	}
	off += s.ipLen()
	binary.BigEndian.PutUint16(b[off:], uint16(s.sport))
	binary.BigEndian.PutUint16(b[off+2:], uint16(s.dport))
	if s.kind.tcp() {
		binary.BigEndian.PutUint32(b[off+4:], 1) // seq
		b[off+12] = 5 << 4                       // data offset
		b[off+13] = 0x02                         // SYN (ptf simple_tcp_packet's default)
		binary.BigEndian.PutUint16(b[off+14:], 8192)
	} else {
		binary.BigEndian.PutUint16(b[off+4:], uint16(s.size-ethLen-s.ipLen()))
	}
	// Payload: "TRIM" then an incrementing pattern.
	for i := hl; i < n; i++ {
		b[i] = byte(0x80 + i - hl)
	}
	copy(b[hl:], "TRIM")
	return b
}

func ipv4Checksum(h []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(h); i += 2 {
		if i == 10 {
			continue
		}
		sum += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// maskedOffsets are the header bytes sonic-mgmt's expected packets mask
// (reference §1.5): IPv4 total_len, identification and checksum; IPv6
// payload_len; UDP length and checksum; TCP checksum. The model does not
// recompute them after trimming (testplan limitation 4), and TTL
// decrement leaves the IPv4 checksum stale.
func (s spec) maskedOffsets() map[int]bool {
	m := map[int]bool{}
	add := func(from, n int) {
		for i := from; i < from+n; i++ {
			m[i] = true
		}
	}
	ip := ethLen
	if s.kind.v6() {
		add(ip+4, 2)
	} else {
		add(ip+2, 4) // total_len, identification
		add(ip+10, 2)
	}
	l4 := ip + s.ipLen()
	if s.kind.tcp() {
		add(l4+16, 2)
	} else {
		add(l4+4, 4)
	}
	return m
}

// frame is a packet a sink received.
type frame struct {
	at      int64
	port    int // device port
	length  int // pkt.Len
	qid     int
	id      uint64
	trimmed bool
	head    []byte
}

type dropRec struct {
	id     uint64
	reason string
}

// rig is one switch with its SONiC control plane.
type rig struct {
	t     *testing.T
	chip  *tofino.Config
	place *compiler.Placement
	eng   *sim.SerialEngine
	sw    *tofino.Switch
	rt    *sonic.Runtime
	agent *orch.Agent

	got    []frame
	drops  []dropRec
	sent   map[uint64]spec
	lastID uint64
	nextTx map[int]int64 // per ingress device port: when its line is free
}

type sink struct{ r *rig }

func (s *sink) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	p := ev.Pkt
	s.r.got = append(s.r.got, frame{at: packet.SecToPs(ev.T), port: ev.Port, length: p.Len, qid: p.Qid, id: p.ID,
		trimmed: p.Trimmed, head: append([]byte(nil), p.Head...)})
	return nil
}

var (
	chipOnce  sync.Once
	chipCfg   *tofino.Config
	chipPlace *compiler.Placement
	chipErr   error
)

// defaultChip is the default tofino config with sonic-l3 placed on it
// (built once: the placement is read-only).
func defaultChip(t testing.TB) (*tofino.Config, *compiler.Placement) {
	t.Helper()
	chipOnce.Do(func() {
		var err error
		if chipCfg, err = tofino.LoadArch("tofino"); err != nil {
			chipErr = err
			return
		}
		prog, err := programs.Resolve(orch.Program, nil)
		if err != nil {
			chipErr = err
			return
		}
		chipPlace, chipErr = compiler.Place(chipCfg, prog)
	})
	if chipErr != nil {
		t.Fatal(chipErr)
	}
	return chipCfg, chipPlace
}

// newRig builds a switch with nothing configured.
func newRig(t *testing.T) *rig {
	t.Helper()
	c, place := defaultChip(t)
	if c.PortGbps != portGbps || c.TM.CellBytes != 80 || c.TM.QueuesPerPort != 8 || c.Pipes*c.FrontPortsPerPipe != 64 {
		t.Fatalf("the rig assumes 64 100G ports, 80-byte cells and 8 queues per port: %+v", c.TM)
	}
	r := &rig{t: t, chip: c, place: place, sent: map[uint64]spec{}}
	r.boot()
	return r
}

// boot builds a fresh switch, runtime and agent (a cold start): the sent
// and received records are kept, the switch's state is not.
func (r *rig) boot() {
	r.t.Helper()
	c := r.chip
	r.eng = sim.NewSerialEngine()
	r.sw = tofino.MakeBuilder().WithEngine(r.eng).WithConfig(c).WithPlacement(r.place).WithSeed(1).Build("Tofino")
	r.sw.SetDeadline(deadlinePs)
	s := &sink{r}
	for pipe := 0; pipe < c.Pipes; pipe++ {
		for local := 0; local < c.FrontPortsPerPipe; local++ {
			r.sw.Attach(c.DevPort(pipe, local), link.To(s, c.DevPort(pipe, local), sinkPropPs))
		}
	}
	r.sw.OnDrop(func(p *packet.Packet, reason string) { r.drops = append(r.drops, dropRec{p.ID, reason}) })
	r.rt = sonic.NewRuntime(orch.Capabilities(c))
	var err error
	if r.agent, err = orch.New(r.sw); err != nil {
		r.t.Fatal(err)
	}
	r.nextTx = map[int]int64{}
}

// now is the simulation time (ps).
func (r *rig) now() int64 { return packet.SecToPs(r.eng.CurrentTime()) }

// dev is a port name's device port.
func (r *rig) dev(name string) int {
	r.t.Helper()
	d, ok := orch.DevPort(r.chip, name)
	if !ok {
		r.t.Fatalf("%s is not a port", name)
	}
	return d
}

// apply is a config reload with db, then the agent programs the switch.
// A refused db must leave the runtime and the agent as they were.
func (r *rig) apply(db sonic.DB) error {
	r.t.Helper()
	return r.change(func() error { return r.rt.Apply(db) })
}

// patch is `config apply-patch`, then the agent programs the switch.
func (r *rig) patch(p string) error {
	r.t.Helper()
	return r.change(func() error { return r.rt.ApplyPatch([]byte(p)) })
}

func (r *rig) change(f func() error) error {
	r.t.Helper()
	dbBefore, cfgBefore, genBefore, agentBefore := r.rt.DB(), r.rt.Config(), r.rt.Generation(), r.agent.Config()
	if err := f(); err != nil {
		if !reflect.DeepEqual(r.rt.DB(), dbBefore) || r.rt.Config() != cfgBefore || r.rt.Generation() != genBefore || r.agent.Config() != agentBefore {
			r.t.Fatalf("a refused change (%v) changed the running configuration", err)
		}
		return err
	}
	if err := r.agent.Program(r.rt.Config(), r.now()); err != nil {
		r.t.Fatalf("agent.Program: %v", err)
	}
	if r.agent.Config() != r.rt.Config() {
		r.t.Fatalf("the agent did not program the runtime's configuration")
	}
	return nil
}

func (r *rig) mustApply(db sonic.DB) {
	r.t.Helper()
	if err := r.apply(db); err != nil {
		r.t.Fatalf("apply: %v", err)
	}
}

func (r *rig) mustPatch(p string) {
	r.t.Helper()
	if err := r.patch(p); err != nil {
		r.t.Fatalf("patch %s: %v", p, err)
	}
}

// inject sends a frame into an ingress port at the earliest time the
// port's line is free (and not before now); it returns the packet's id.
func (r *rig) inject(in string, s spec) uint64 {
	r.t.Helper()
	d := r.dev(in)
	at := max(r.nextTx[d], r.now())
	r.lastID++
	p := &packet.Packet{ID: r.lastID, Head: s.head(), Len: s.size, InPort: d, BornPs: at, Passes: 1}
	packet.Schedule(r.eng, r.sw.IngressHandler(d), at, packet.KindArrive, p, d)
	r.nextTx[d] = at + packet.SerializationPs(s.size, portGbps)
	r.sent[r.lastID] = s
	return r.lastID
}

// run runs the engine until nothing is left to do.
func (r *rig) run() {
	r.t.Helper()
	if err := r.eng.Run(); err != nil {
		r.t.Fatal(err)
	}
}

// Destinations: each egress interface has an IPv4 /24 and an IPv6 /64
// routed to it by the base config (PortChannel1 by T10's).
func dst4(ifname string) netip.Addr {
	switch ifname {
	case "Ethernet4":
		return netip.MustParseAddr("192.168.4.1")
	case "Ethernet8":
		return netip.MustParseAddr("192.168.8.1")
	case "PortChannel1":
		return netip.MustParseAddr("192.168.100.1")
	}
	panic("no destination for " + ifname)
}

func dst6(ifname string) netip.Addr {
	switch ifname {
	case "Ethernet4":
		return netip.MustParseAddr("2001:db8:0:4::1")
	case "Ethernet8":
		return netip.MustParseAddr("2001:db8:0:8::1")
	case "PortChannel1":
		return netip.MustParseAddr("2001:db8:0:100::1")
	}
	panic("no destination for " + ifname)
}

// probe is sonic-mgmt's probe packet of a kind to an interface: from
// 8.8.8.8 / 8000::2, TTL 64, ECN 2, sport 4321, dport 1234.
func probe(k kind, to string, size, dscp int) spec {
	s := spec{kind: k, src: probeSrc4, dst: dst4(to), dscp: dscp, ecn: probeECN, ttl: probeTTL, sport: probeSport, dport: probeDport, size: size}
	if k.v6() {
		s.src, s.dst = probeSrc6, dst6(to)
	}
	return s
}

// sendProbes sends n probes of every kind (interleaved) and runs the
// engine; it returns the ids by kind.
func (r *rig) sendProbes(to string, n, size, dscp int) map[kind][]uint64 {
	return r.sendFrom(to, n, size, dscp, probeSrc4, probeSrc6)
}

// sendFrom is sendProbes from other source addresses.
func (r *rig) sendFrom(to string, n, size, dscp int, src4, src6 netip.Addr) map[kind][]uint64 {
	r.t.Helper()
	ids := map[kind][]uint64{}
	for i := 0; i < n; i++ {
		for _, k := range allKinds {
			s := probe(k, to, size, dscp)
			if k.v6() {
				s.src = src6
			} else {
				s.src = src4
			}
			ids[k] = append(ids[k], r.inject(ingress, s))
		}
	}
	r.run()
	return ids
}

// queueOf is the data queue of a DSCP under the base maps.
func queueOf(dscp int) int { return dscp }

// fillCount is sonic-mgmt's fill: 3 × the queue's threshold in 1500-byte
// packets, where threshold = reserve + α/(1+α)·pool and α = 2^dynamic_th.
func (r *rig) fillCount(port string, q int) int {
	r.t.Helper()
	cfg := r.rt.Config()
	name, ok := cfg.Queues[sonic.PortQueue{Port: port, Queue: q}]
	if !ok {
		r.t.Fatalf("%s|%d has no BUFFER_QUEUE profile", port, q)
	}
	prof := cfg.Profiles[name]
	if prof.DynamicTh == nil {
		r.t.Fatalf("profile %s has no dynamic_th", name)
	}
	alpha := math.Pow(2, float64(*prof.DynamicTh))
	pool := float64(cfg.Pools[prof.Pool].Bytes)
	threshold := float64(prof.Bytes) + alpha/(1+alpha)*pool
	return int(math.Ceil(3 * threshold / fillSize))
}

// fill congests the data queue a DSCP maps to on an egress interface (a
// port, or every member of a PortChannel): sonic-mgmt's fill packets
// (1500 B UDP from 9.9.9.9 / 9000::2, alternately, with the DSCP and ECN
// 2, sport 4321+i so that they spread over LAG members), 3 × the queue's
// dynamic threshold; then 32 one-cell (64 B) fill packets per member, so
// that the queue has no room left for even the smallest probe (a 1500-byte
// fill leaves up to 18 cells free under the threshold, enough to admit a
// short probe). The queue must already be blocked (SCHEDULER_BLOCK_DATA_
// PLANE); its first packet still leaves (the shaper's initial burst).
// fill checks that the queue started refusing (trimming or dropping).
func (r *rig) fill(to string, dscp int) {
	r.t.Helper()
	members := []string{to}
	if ms, ok := r.rt.Config().PortChannels[to]; ok {
		members = ms
	}
	q := queueOf(dscp)
	before := map[string]tofinotm.QueueCounters{}
	for _, m := range members {
		before[m] = r.queue(m, q)
	}
	n := r.fillCount(members[0], q) * len(members)
	sport := probeSport
	for i := 0; i < n; i++ {
		k := ipv4UDP
		src, dst := fillSrc4, dst4(to)
		if i%2 == 1 {
			k, src, dst = ipv6UDP, fillSrc6, dst6(to)
		}
		r.inject(ingress, spec{kind: k, src: src, dst: dst, dscp: dscp, ecn: probeECN, ttl: probeTTL, sport: sport, dport: probeDport, size: fillSize})
		sport++
	}
	for i := 0; i < 32*len(members); i++ {
		r.inject(ingress, spec{kind: ipv4UDP, src: fillSrc4, dst: dst4(to), dscp: dscp, ecn: probeECN, ttl: probeTTL, sport: sport, dport: probeDport, size: 64})
		sport++
	}
	r.run()
	for _, m := range members {
		if after := r.queue(m, q); after.DropPackets == before[m].DropPackets {
			r.t.Fatalf("fill: %s queue %d refused nothing (before %+v, after %+v): not congested", m, q, before[m], after)
		}
	}
}

// queue is one queue's counters.
func (r *rig) queue(port string, q int) tofinotm.QueueCounters {
	r.t.Helper()
	rows, err := r.agent.QueueCounters(port)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, row := range rows {
		if row.Port == port && row.Queue == fmt.Sprintf("UC%d", q) {
			return row.QueueCounters
		}
	}
	r.t.Fatalf("no counters for %s UC%d", port, q)
	return tofinotm.QueueCounters{}
}

func (r *rig) portRow(port string) orch.PortRow {
	r.t.Helper()
	row, err := r.agent.PortCounters(port)
	if err != nil {
		r.t.Fatal(err)
	}
	return row
}

// framesOf returns the received frames of the given packet ids.
func (r *rig) framesOf(ids []uint64) map[uint64][]frame {
	want := map[uint64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[uint64][]frame{}
	for _, f := range r.got {
		if want[f.id] {
			out[f.id] = append(out[f.id], f)
		}
	}
	return out
}

// dropsOf returns the drop reasons of the given packet ids.
func (r *rig) dropsOf(ids []uint64) map[uint64][]string {
	want := map[uint64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[uint64][]string{}
	for _, d := range r.drops {
		if want[d.id] {
			out[d.id] = append(out[d.id], d.reason)
		}
	}
	return out
}

func allIDs(ids map[kind][]uint64) []uint64 {
	var out []uint64
	for _, k := range allKinds {
		out = append(out, ids[k]...)
	}
	return out
}

// expect is what a received frame must look like.
type expect struct {
	ports []string // the egress port, or any of these (LAG members)
	size  int      // frame length, ± margin
	dscp  int      // DSCP of the frame (ECN must stay as sent)
	queue int      // the queue it left from
	// anyDSCP: the DSCP is not checked (ECN still is).
	anyDSCP bool
}

// tofinoQC is a queue's counters.
type tofinoQC = tofinotm.QueueCounters

// ttlOf and the address / port readers decode a received frame.
func ttlOf(h []byte, v6 bool) int {
	if v6 {
		return int(h[ethLen+7])
	}
	return int(h[ethLen+8])
}

// checkFrame compares a received frame with the expected one (the sent
// frame with the expected DSCP and TTL 63): the length within ±4 B, the
// DSCP, ECN, TTL/hop limit, addresses and L4 ports, and every byte of the
// kept head (headers and payload prefix) except the masked fields. It
// returns the problems found.
func (r *rig) checkFrame(f frame, sent spec, w expect) []string {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	portOK := false
	for _, p := range w.ports {
		if f.port == r.dev(p) {
			portOK = true
		}
	}
	if !portOK {
		bad("egressed on device port %d, want %v", f.port, w.ports)
	}
	if f.length < w.size-margin || f.length > w.size+margin {
		bad("frame length %d, want %d±%d", f.length, w.size, margin)
	}
	if f.qid != w.queue {
		bad("left from queue %d, want %d", f.qid, w.queue)
	}
	dscp, ecn, ok := packet.DSCPECN(f.head)
	if !ok {
		bad("not an IP frame: % x", f.head)
		return errs
	}
	if w.anyDSCP {
		w.dscp = dscp
	}
	if dscp != w.dscp || ecn != sent.ecn {
		bad("DSCP %d ECN %d, want DSCP %d ECN %d", dscp, ecn, w.dscp, sent.ecn)
	}
	if ttl := ttlOf(f.head, sent.kind.v6()); ttl != sent.ttl-1 {
		bad("TTL/hop limit %d, want %d", ttl, sent.ttl-1)
	}
	want := sent
	want.dscp, want.ttl = w.dscp, sent.ttl-1
	wh := want.head()
	if len(f.head) != len(wh) {
		bad("kept %d head bytes, want %d (headers and payload prefix)", len(f.head), len(wh))
	}
	mask := sent.maskedOffsets()
	n := min(len(f.head), len(wh), f.length-margin)
	var diff []string
	for i := 0; i < n; i++ {
		if !mask[i] && f.head[i] != wh[i] {
			diff = append(diff, fmt.Sprintf("[%d] %#02x want %#02x", i, f.head[i], wh[i]))
		}
	}
	if len(diff) > 0 {
		bad("bytes differ from the expected packet: %s", strings.Join(diff, ", "))
	}
	return errs
}

// expectTrimmed checks that every probe egressed exactly once, as w says,
// and was not dropped.
func (r *rig) expectTrimmed(ids map[kind][]uint64, w expect) {
	r.t.Helper()
	all := allIDs(ids)
	frames := r.framesOf(all)
	drops := r.dropsOf(all)
	failed := 0
	for _, k := range allKinds {
		for _, id := range ids[k] {
			fs := frames[id]
			var errs []string
			if len(fs) != 1 {
				errs = append(errs, fmt.Sprintf("received %d times, want once (drops: %q)", len(fs), drops[id]))
			} else {
				errs = r.checkFrame(fs[0], r.sent[id], w)
			}
			if len(drops[id]) > 0 && len(fs) == 1 {
				errs = append(errs, fmt.Sprintf("also dropped: %q", drops[id]))
			}
			if len(errs) > 0 {
				failed++
				if failed <= 8 {
					r.t.Errorf("%s probe %d: %s", k, id, strings.Join(errs, "; "))
				}
			}
		}
	}
	if failed > 8 {
		r.t.Errorf("... %d probes failed in all", failed)
	}
}

// expectNone checks that no probe egressed; every one must have been
// dropped once with a reason containing reason.
func (r *rig) expectNone(ids map[kind][]uint64, reason string) {
	r.t.Helper()
	all := allIDs(ids)
	frames := r.framesOf(all)
	drops := r.dropsOf(all)
	failed := 0
	for _, id := range all {
		var errs []string
		if fs := frames[id]; len(fs) > 0 {
			errs = append(errs, fmt.Sprintf("egressed %d times (port %d, %d B, DSCP head % x)", len(fs), fs[0].port, fs[0].length, fs[0].head[:min(len(fs[0].head), 24)]))
		}
		if ds := drops[id]; len(ds) != 1 || !strings.Contains(ds[0], reason) {
			errs = append(errs, fmt.Sprintf("drop reasons %q, want one containing %q", ds, reason))
		}
		if len(errs) > 0 {
			failed++
			if failed <= 8 {
				r.t.Errorf("%s probe %d: %s", r.sent[id].kind, id, strings.Join(errs, "; "))
			}
		}
	}
	if failed > 8 {
		r.t.Errorf("... %d probes failed in all", failed)
	}
}

// ---------------------------------------------------------------------------
// CONFIG_DB

// baseDoc is the common setup (reference §3): trimming size 256, DSCP 48,
// trim queue 6; the blocked queue 1 of Ethernet4 and Ethernet8 (DSCP 1 →
// TC 1 → queue 1) with a trim profile; queue 6 with sonic-mgmt's
// trim_queue_test_profile; SCHEDULER_BLOCK_DATA_PLANE on queue 1; routes
// to both ports; ingress on Ethernet0.
//
// egress_lossy_pool is 1 MiB and the data queues' dynamic_th is -2 (α =
// 1/4): a queue alone holds α/(1+α) = 1/5 of the pool, about 210 kB.
const baseDoc = `{
  "PORT": {
    "Ethernet0": {"admin_status": "up", "mtu": "9100", "speed": "100000"},
    "Ethernet4": {"admin_status": "up", "mtu": "9100", "speed": "100000"},
    "Ethernet8": {"admin_status": "up", "mtu": "9100", "speed": "100000"}
  },
  "BUFFER_POOL": {
    "egress_lossy_pool": {"mode": "dynamic", "type": "egress", "size": "1048576"}
  },
  "BUFFER_PROFILE": {
    "queue1_uplink_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "-2", "packet_discard_action": "trim"},
    "queue3_uplink_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "-2", "packet_discard_action": "trim"},
    "trim_queue_test_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "-7"}
  },
  "BUFFER_QUEUE": {
    "Ethernet4|1": {"profile": "queue1_uplink_lossy_profile"},
    "Ethernet4|6": {"profile": "trim_queue_test_profile"},
    "Ethernet8|1": {"profile": "queue1_uplink_lossy_profile"},
    "Ethernet8|6": {"profile": "trim_queue_test_profile"}
  },
  "DSCP_TO_TC_MAP": {
    "AZURE": {"0": "0", "1": "1", "3": "3", "4": "4", "48": "6"}
  },
  "TC_TO_QUEUE_MAP": {
    "AZURE": {"0": "0", "1": "1", "3": "3", "4": "4", "6": "6"}
  },
  "PORT_QOS_MAP": {
    "Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"},
    "Ethernet4": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"},
    "Ethernet8": {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE"}
  },
  "SCHEDULER": {
    "SCHEDULER_BLOCK_DATA_PLANE": {"type": "DWRR", "weight": "15", "pir": "1", "cir": "1"}
  },
  "QUEUE": {
    "Ethernet4|1": {"scheduler": "SCHEDULER_BLOCK_DATA_PLANE"},
    "Ethernet8|1": {"scheduler": "SCHEDULER_BLOCK_DATA_PLANE"}
  },
  "STATIC_ROUTE": {
    "192.168.4.0/24": {"ifname": "Ethernet4"},
    "192.168.8.0/24": {"ifname": "Ethernet8"},
    "2001:db8:0:4::/64": {"ifname": "Ethernet4"},
    "2001:db8:0:8::/64": {"ifname": "Ethernet8"}
  },
  "SWITCH_TRIMMING": {
    "GLOBAL": {"size": "256", "dscp_value": "48", "queue_index": "6"}
  }
}`

// baseDB parses baseDoc.
func baseDB(t testing.TB) sonic.DB {
	t.Helper()
	db, err := sonic.Parse([]byte(baseDoc), "base.json")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// set sets fields of TABLE|key (creating them).
func set(db sonic.DB, table, key string, fields map[string]any) {
	if db[table] == nil {
		db[table] = map[string]map[string]any{}
	}
	if db[table][key] == nil {
		db[table][key] = map[string]any{}
	}
	for f, v := range fields {
		db[table][key][f] = v
	}
}

// asymTables adds sonic-mgmt's asymmetric maps: spine_trim_map {6:10} on
// Ethernet4 and host_trim_map {6:20} on Ethernet8.
func asymTables(db sonic.DB) {
	set(db, "TC_TO_DSCP_MAP", "spine_trim_map", map[string]any{"6": "10"})
	set(db, "TC_TO_DSCP_MAP", "host_trim_map", map[string]any{"6": "20"})
	set(db, "PORT_QOS_MAP", "Ethernet4", map[string]any{"tc_to_dscp_map": "spine_trim_map"})
	set(db, "PORT_QOS_MAP", "Ethernet8", map[string]any{"tc_to_dscp_map": "host_trim_map"})
}

// setupBase is a rig with the base config applied.
func setupBase(t *testing.T) *rig {
	t.Helper()
	r := newRig(t)
	r.mustApply(baseDB(t))
	return r
}

// jsonStr quotes s for a patch.
func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
