package experiments

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/flowgen"
	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/components/stats"
	"archsim/engine"
	"archsim/programs"
)

// Protego runs (workload kind protego-stress): link-local retransmission
// over a corrupting link between a sender switch running protego-sender
// and a receiver switch running protego-receiver (Joshi et al.), with a
// UDP source on the sender's side sending frames at a fixed rate to a sink
// behind the receiver, as the paper's §4.1 stress test does with sw2's
// packet generator. Every frame is executed by both programs; the runner
// only sets the control plane up (Eq. 1's copies, the mode), measures at
// the hosts and the link, and reads the switches' counters.

// ProtegoSetup is a scenario's protected link.
type ProtegoSetup struct {
	// Link is the protected link (index into topology.links): its first
	// switch runs protego-sender, its second protego-receiver, and its
	// loss process corrupts frames from the first to the second.
	Link int `yaml:"link"`
	// TargetLoss is the operator's target effective loss rate; Eq. 1 gives
	// the retransmitted copies from it and the link's loss rate.
	TargetLoss float64 `yaml:"target_loss"`
	// Copies overrides Eq. 1 (0: from Eq. 1), to measure the effective
	// loss where the packet count allows it.
	Copies int `yaml:"copies"`
	// DrainUs is how long the switches run after the source stops, so
	// every frame offered to the link is delivered or lost for good.
	DrainUs float64 `yaml:"drain_us"`
}

// VariantProtego is how a variant runs Protego.
type VariantProtego struct {
	// Mode is "ordered" (Protego), "nb" (ProtegoNB) or "off" (the link is
	// not protected: the sender adds no header and buffers nothing).
	Mode string `yaml:"mode"`
	// SwitchAtUs, if > 0, switches the receiver between ordered and nb at
	// that time through its control plane (the paper's run-time option).
	SwitchAtUs float64 `yaml:"switch_at_us"`
	// Loss replaces the protected link's loss process for this variant.
	Loss *link.CorruptionConfig `yaml:"loss"`
	// Copies overrides the scenario's copies (0: the scenario's).
	Copies int `yaml:"copies"`
	// Gbps runs the protected link and both hosts' links at this rate
	// (0: the topology's).
	Gbps float64 `yaml:"gbps"`
	// Transport and FlowBytes override a protego-fct workload's.
	Transport string `yaml:"transport"`
	FlowBytes int    `yaml:"flow_bytes"`
	// Tail (default true) bootstraps the sender's dummy queue, Protego's
	// tail-loss detection (§3.2); false is Table 2's "no Tail" ablation.
	Tail *bool `yaml:"tail"`
}

// ProtegoRun is what a Protego run measures (the JSON keys are a
// contract, see README "Protego").
type ProtegoRun struct {
	// LinkLoss is the configured loss rate of the link; LinkLossMeasured
	// the fraction of frames it corrupted (data, retransmissions, dummies).
	LinkLoss         float64 `json:"link_loss"`
	LinkLossMeasured float64 `json:"link_loss_measured"`
	Copies           int     `json:"copies"`
	// Offered counts data frames sent on the protected link (sequence
	// numbers assigned); Delivered those that reached the sink, each
	// counted once; Unrecovered the rest (lost with all their copies, or
	// dropped at the receiver); Duplicates and Reordered what the sink saw
	// beyond once and out of order.
	Offered     int64 `json:"offered"`
	Delivered   int64 `json:"delivered"`
	Unrecovered int64 `json:"unrecovered"`
	Duplicates  int64 `json:"duplicates"`
	Reordered   int64 `json:"reordered"`
	// EffectiveLoss is Unrecovered/Offered with its 95 % confidence
	// interval (exact Poisson limits: rare events); EffectiveLossExpected
	// is the i.i.d. analytic value p^(1+copies); Measurable says whether
	// the run saw enough frames for the expected value (n·p ≥ 3) — when
	// not, the expected value is an extrapolation, not a measurement.
	EffectiveLoss         float64    `json:"effective_loss"`
	EffectiveLossCI       [2]float64 `json:"effective_loss_ci95"`
	EffectiveLossExpected float64    `json:"effective_loss_expected"`
	Measurable            bool       `json:"effective_loss_measurable"`
	// EffectiveGbps is the sink's delivered frames over the traffic time,
	// counted as wire bits (frame, FCS, preamble and gap): what the link
	// carries for the application at most is the line rate.
	EffectiveGbps float64 `json:"effective_gbps"`
	// TxBufferMaxBytes and RxBufferMaxBytes are the most the sender's Tx
	// buffer queue and the receiver's Rx buffer queue (recirculation port
	// queues) held, in buffer bytes (80-byte cells).
	TxBufferMaxBytes int64 `json:"tx_buffer_max_bytes"`
	RxBufferMaxBytes int64 `json:"rx_buffer_max_bytes"`
	// RecoveryUs is, per corrupted data frame, the time from the receiver
	// seeing the gap (the next frame or dummy arrives) to the first
	// retransmitted copy arriving.
	RecoveryUs Quantiles `json:"recovery_us"`
	// AckTimeouts counts ackNo advances past a frame that never came.
	AckTimeouts int64 `json:"ack_timeouts"`
	// PFC frames the sender's MAC obeyed and the time its normal queue
	// was paused.
	PFCPauses  int     `json:"pfc_pauses"`
	PFCResumes int     `json:"pfc_resumes"`
	PausedUs   float64 `json:"paused_us"`
	// SenderQueueDrops are frames the sender switch dropped before the
	// link (congestion, not corruption).
	SenderQueueDrops int `json:"sender_queue_drops"`
	// ReceiverQueueDrops are the source's frames the receiver's traffic
	// manager dropped after the link (counted in Unrecovered). (Until
	// 2026-11-29 the traffic manager paced a port by the queued frame,
	// the Protego header the egress strips included, and dropped frames
	// at line rate; a port now drains at the rate of the frames its MAC
	// sends.)
	ReceiverQueueDrops int `json:"receiver_queue_drops"`
	// Recirculation passes of each switch as a share of its pipe's packet
	// capacity (one packet per clock) over the run (paper Table 4).
	TxRecircShare float64 `json:"tx_recirc_share"`
	RxRecircShare float64 `json:"rx_recirc_share"`
	// HeaderOverhead is the Protego header's share of the protected
	// link's data bytes on the wire.
	HeaderOverhead float64 `json:"header_overhead"`
	// TimerMpps is the receiver's packet-generator rate (timer packets).
	TimerMpps float64 `json:"timer_mpps"`
	// FCTUs is the flows' completion times (protego-fct runs) and
	// Transport what their transports did to recover.
	FCTUs *flowgen.Summary `json:"fct_us,omitempty"`
	// GoodputGbps is a protego-bulk connection's goodput.
	GoodputGbps *float64           `json:"tcp_goodput_gbps,omitempty"` // not goodput_gbps: the run's per-flow list has that key
	Transport   *TransportCounters `json:"transport,omitempty"`
}

// Protego programs' constants the runner reads (the programs' own names).
const (
	protegoEtype      = 0x88B5
	protegoORIG       = 1
	protegoRETX       = 2
	protegoDUMMY      = 3
	protegoHeaderSize = 3
)

// eq1Copies is Eq. 1 of the Protego paper: the copies to retransmit so a
// frame is lost for good with at most the target probability.
func eq1Copies(target, loss float64) int {
	if loss <= 0 || target <= 0 || target >= loss {
		return 0
	}
	return int(math.Ceil(math.Log10(target)/math.Log10(loss) - 1 - 1e-9))
}

func (s *Scenario) validateProtego() error {
	p := s.Protego
	if p == nil {
		return s.need("protego", "the protected link: {link, target_loss, copies, drain_us}", "nothing")
	}
	t := s.topology()
	if p.Link < 0 || p.Link >= len(t.Links) {
		return s.need("protego.link", fmt.Sprintf("a topology.links index (0..%d)", len(t.Links)-1), p.Link)
	}
	loss := 0.0
	if l := t.Links[p.Link].Loss; l != nil {
		loss = l.Rate
	}
	switch {
	case !(p.TargetLoss > 0 && p.TargetLoss < 1):
		return s.need("protego.target_loss", "0 < target_loss < 1", p.TargetLoss)
	case loss > 0 && p.TargetLoss > loss:
		return s.need("protego.target_loss", fmt.Sprintf("at most the link's loss rate %g (a higher target needs no retransmission)", loss), p.TargetLoss)
	case p.Copies < 0 || p.Copies > maxCopies:
		return s.need("protego.copies", fmt.Sprintf("0..%d (0: Eq. 1)", maxCopies), p.Copies)
	case p.DrainUs < 0 || p.DrainUs > 10000:
		return s.need("protego.drain_us", "0..10000", p.DrainUs)
	}
	w := s.Workload
	switch {
	case len(s.Pattern.Flows) != 1:
		return s.need("pattern.flows", "one [src, dst] pair across the protected link", len(s.Pattern.Flows))
	case w.Kind == "protego-fct" || w.Kind == "protego-bulk":
		if err := s.validateFCT(); err != nil {
			return err
		}
	case w.FrameBytes < 64 || w.FrameBytes > maxUDPFrameBytes:
		return s.need("workload.frame_bytes", fmt.Sprintf("64..%d", maxUDPFrameBytes), w.FrameBytes)
	case !rateOK(w.RateGbps, false, MaxLinkGbps):
		return s.need("workload.rate_gbps", fmt.Sprintf("%g ≤ rate_gbps ≤ %d", MinGbps, MaxLinkGbps), w.RateGbps)
	}
	for i, v := range s.Variants {
		if v.Protego == nil {
			continue
		}
		switch v.Protego.Mode {
		case "ordered", "nb", "off":
		default:
			return s.need(fmt.Sprintf("variants[%d].protego.mode", i), "ordered, nb or off", v.Protego.Mode)
		}
		vp := v.Protego
		at := fmt.Sprintf("variants[%d].protego", i)
		if vp.SwitchAtUs < 0 || vp.SwitchAtUs > s.DurationUs {
			return s.need(at+".switch_at_us", "0..duration_us", vp.SwitchAtUs)
		}
		if vp.SwitchAtUs > 0 && vp.Mode == "off" {
			return fieldErr(at+".switch_at_us", "switches the receiver between ordered and nb, and mode off has neither")
		}
		if k := s.Workload.Kind; k == "protego-stress" && (vp.FlowBytes != 0 || vp.Transport != "") {
			key := "flow_bytes"
			if vp.Transport != "" {
				key = "transport"
			}
			return fieldErr(at+"."+key, "not used by kind %s (the protego-fct and protego-bulk flows read it)", k)
		}
		if vp.Loss != nil {
			if err := vp.Loss.Validate(); err != nil {
				return fieldErr(at+".loss", "%v", err)
			}
			if vp.Loss.Rate > 0 && p.TargetLoss > vp.Loss.Rate {
				return s.need("protego.target_loss", fmt.Sprintf("at most variant %s's loss rate %g", v.Name, vp.Loss.Rate), p.TargetLoss)
			}
		}
		if vp.Copies < 0 || vp.Copies > maxCopies {
			return s.need(at+".copies", fmt.Sprintf("0..%d (0: the scenario's)", maxCopies), vp.Copies)
		}
		if vp.Transport != "" && vp.Transport != "dctcp" && vp.Transport != "cubic" && vp.Transport != "rdma" {
			return s.need(at+".transport", "dctcp, cubic or rdma (empty: the workload's)", vp.Transport)
		}
		if vp.FlowBytes < 0 || vp.FlowBytes > 1<<30 {
			return s.need(at+".flow_bytes", "0..2^30 (0: the workload's)", vp.FlowBytes)
		}
		if !rateOK(vp.Gbps, true, MaxLinkGbps) {
			return s.need(at+".gbps", fmt.Sprintf("%g..%d, or 0 for the topology's", MinGbps, MaxLinkGbps), vp.Gbps)
		}
	}
	// Eq. 1 sizes the copies where none are given: as the loss rate
	// nears 1 it asks for more than a multicast group holds.
	for i, v := range s.Variants {
		copies, rate, at := p.Copies, loss, "protego.target_loss"
		if vp := v.Protego; vp != nil {
			if vp.Copies > 0 {
				copies = vp.Copies
			}
			if vp.Loss != nil {
				rate, at = link.NewCorruption(*vp.Loss, 1).Rate(), fmt.Sprintf("variants[%d].protego.loss", i)
			}
		}
		if n := eq1Copies(p.TargetLoss, rate); copies == 0 && n > maxCopies {
			return fieldErr(at, "Eq. 1 asks for %d copies at loss rate %g and target_loss %g (allowed: at most %d; give copies, or a lower loss rate or a higher target)", n, rate, p.TargetLoss, maxCopies)
		}
	}
	return nil
}

// maxCopies bounds a protected frame's copies (protego.copies, Eq. 1's).
const maxCopies = 16

// protegoFits checks, before any run, that a switch at an end of the
// protected link runs the right Protego program for the port the link
// sits on: its protected port, and a buffer that holds a frame: on a
// Tofino a recirculation port in the port's pipe and a queue cap, on a
// run-to-completion chip (Trio) a packet buffer (txbuf, rxbuf).
func (s *Scenario) protegoFits(switchName string, target arch.Target, prog *programs.Program) error {
	t := s.topology()
	li := s.Protego.Link
	l := t.Links[li]
	end := -1
	for i, n := range l.Between {
		if n == switchName {
			end = i
		}
	}
	if end < 0 {
		return nil
	}
	role, portName, capName, bufName := "protego-sender", "PROTECTED", "TXBUF_CELLS", "txbuf"
	if end == 1 {
		role, portName, capName, bufName = "protego-receiver", "LINK", "RXBUF_CELLS", "rxbuf"
	}
	if prog == nil || !strings.HasPrefix(prog.Name, role) {
		return fmt.Errorf("protego.link %d: switch %s must run %s", li, switchName, role)
	}
	ft, ok := target.(interface{ FrontPorts() []int })
	if !ok {
		return fmt.Errorf("protego.link %d: switch %s is %s, which has no front-panel ports to protect", li, switchName, target.Name())
	}
	front := ft.FrontPorts()
	local := newPlan(t).linkLocal[li][end]
	if local >= len(front) {
		return fmt.Errorf("protego.link %d: switch %s has %d front-panel ports, the link needs port index %d", li, switchName, len(front), local)
	}
	port := front[local]
	if keepsPackets(prog) {
		// Buffers in the packet memory: the program's packet buffer.
		v, err := constOf(prog, portName)
		if err != nil {
			return err
		}
		if v != int64(port) {
			return fmt.Errorf("protego.link %d: the link sits on port %d of %s, but %s's %s is %d (set it in the variant's params)", li, port, switchName, prog.Name, portName, v)
		}
		if bufferOf(prog, bufName) == nil {
			return fmt.Errorf("protego.link %d: %s keeps packets but has no packet buffer %s", li, prog.Name, bufName)
		}
		return nil
	}
	tt, ok := target.(interface{ RecircPortOf(port int) int })
	if !ok {
		return fmt.Errorf("protego.link %d: switch %s is %s; %s buffers by recirculation, on a Tofino switch (on a chip that keeps packets, run %s-trio)", li, switchName, target.Name(), prog.Name, role)
	}
	got := map[string]int64{}
	for _, name := range []string{portName, "RECIRC", capName} {
		v, err := constOf(prog, name)
		if err != nil {
			return err
		}
		got[name] = v
	}
	switch {
	case got[portName] != int64(port):
		return fmt.Errorf("protego.link %d: the link sits on port %d of %s, but %s's %s is %d (set it in the variant's params)", li, port, switchName, prog.Name, portName, got[portName])
	case got["RECIRC"] != int64(tt.RecircPortOf(port)):
		return fmt.Errorf("protego.link %d: %s's RECIRC is %d, but the protected port %d has no recirculation port there: its pipe's is %d", li, prog.Name, got["RECIRC"], port, tt.RecircPortOf(port))
	case got[capName] <= 0:
		return fmt.Errorf("protego.link %d: %s's %s is %d: the buffer needs room for at least one frame", li, prog.Name, capName, got[capName])
	}
	return nil
}

// protegoEnds is the protected link's two switches and ports.
type protegoEnds struct {
	tx, rx         arch.Switch
	txPort, rxPort int
	// The buffers: a recirculation port and queue (Tofino), or, when the
	// program keeps packets (txKeeps, rxKeeps), its packet buffer.
	txRecirc, txQueue int
	rxRecirc, rxQueue int
	txKeeps, rxKeeps  bool
}

// keepsPackets tells whether a Protego program keeps its buffer in a
// packet buffer (the run-to-completion variants) rather than by
// recirculation.
func keepsPackets(prog *programs.Program) bool { return len(prog.Buffers) > 0 }

// bufferOf is a program's packet buffer of that name (nil: none).
func bufferOf(prog *programs.Program, name string) *programs.PacketBuffer {
	for _, b := range prog.Buffers {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// constOf is a program constant's value.
func constOf(prog *programs.Program, name string) (int64, error) {
	for _, c := range prog.Constants {
		if c.Name == name {
			return c.Value, nil
		}
	}
	return 0, fmt.Errorf("program %s has no constant %s", prog.Name, name)
}

func (s *Scenario) protegoEnds(net *network) (*protegoEnds, error) {
	t := s.topology()
	li := s.Protego.Link
	l := t.Links[li]
	a, b := t.index(l.Between[0]), t.index(l.Between[1])
	e := &protegoEnds{tx: net.switches[a], rx: net.switches[b],
		txPort: net.front[a][net.plan.linkLocal[li][0]], rxPort: net.front[b][net.plan.linkLocal[li][1]]}
	for _, c := range []struct {
		sw                    arch.Switch
		prog, portName, qName string
		port, recirc, queue   *int
		sender                bool
	}{{e.tx, "protego-sender", "PROTECTED", "TXBUF_Q", &e.txPort, &e.txRecirc, &e.txQueue, true},
		{e.rx, "protego-receiver", "LINK", "RXBUF_Q", &e.rxPort, &e.rxRecirc, &e.rxQueue, false}} {
		prog := c.sw.Program()
		if prog == nil || !strings.HasPrefix(prog.Name, c.prog) {
			return nil, fmt.Errorf("protego.link %d: switch %s must run %s", li, c.sw.Name(), c.prog)
		}
		port, err := constOf(prog, c.portName)
		if err != nil {
			return nil, err
		}
		if int(port) != *c.port {
			return nil, fmt.Errorf("protego.link %d: the link sits on port %d of %s, but %s's %s is %d (set it in the variant's params)", li, *c.port, c.sw.Name(), prog.Name, c.portName, port)
		}
		if keepsPackets(prog) {
			if c.sender {
				e.txKeeps = true
			} else {
				e.rxKeeps = true
			}
			continue
		}
		r, err := constOf(prog, "RECIRC")
		if err != nil {
			return nil, err
		}
		q, err := constOf(prog, c.qName)
		if err != nil {
			return nil, err
		}
		*c.recirc, *c.queue = int(r), int(q)
	}
	return e, nil
}

// stopGenerators stops what a switch's program runs on its own from the
// start of the run: its packet-generator applications and timer threads.
func stopGenerators(sw arch.Switch) error {
	prog := sw.Program()
	if gen, ok := sw.(arch.PacketGenerator); ok {
		for _, a := range prog.Pktgen {
			if err := gen.DisablePktGen(a.Name, 0); err != nil {
				return err
			}
		}
	}
	if ts, ok := sw.(arch.TimerSwitch); ok && len(prog.Timers) > 0 {
		ts.StopTimers(-1) // none starts after -1: not even at time 0
	}
	return nil
}

// setMode writes the variant's mode into the switches' tables (what the
// paper's corruptd pushes when it activates Protego, App. C).
func setMode(e *protegoEnds, mode string) error {
	tp := e.tx.Program()
	if mode == "off" {
		if err := e.tx.WriteTable("protected_ports", nil); err != nil {
			return err
		}
	} else {
		t := tp.Table("protected_ports")
		en, err := t.NewEntry([]programs.Match{{Value: int64(e.txPort)}}, "set_protected", nil, 0)
		if err != nil {
			return err
		}
		if err := e.tx.WriteTable(t.Name, []*programs.Entry{en}); err != nil {
			return err
		}
	}
	rp := e.rx.Program()
	t := rp.Table("link_mode")
	nb := int64(0)
	if mode == "nb" {
		nb = 1
	}
	var es []*programs.Entry
	names := []string{"LINK", "RECIRC", "PKTGEN_PORT"}
	if e.rxKeeps {
		names = []string{"LINK", "PKTGEN_PORT"} // no recirculation port
	}
	for _, name := range names {
		port, err := constOf(rp, name)
		if err != nil {
			return err
		}
		en, err := t.NewEntry([]programs.Match{{Value: port}}, "set_link", []int64{int64(e.rxPort), nb}, 0)
		if err != nil {
			return err
		}
		es = append(es, en)
	}
	return e.rx.WriteTable(t.Name, es)
}

// protegoSeq reads a Protego frame's 17-bit (era, seq) and type.
func protegoSeq(head []byte) (seq int, ptype int, ok bool) {
	if len(head) < 17 || binary.BigEndian.Uint16(head[12:]) != protegoEtype {
		return 0, 0, false
	}
	v := int(head[14])<<16 | int(head[15])<<8 | int(head[16])
	return v >> 7, v & 0x7f, true
}

// serialLess is a < b in 17-bit serial-number arithmetic.
func serialLess(a, b int) bool {
	d := (b - a) & (1<<17 - 1)
	return d != 0 && d < 1<<16
}

// recoveryProbe times the recovery of each corrupted data frame at the
// receiver's link port.
type recoveryProbe struct {
	// plain and plainLost count frames without a Protego header (an
	// unprotected link's data) that reached the receiver or were lost.
	plain, plainLost int64
	// pending are corrupted data frames the receiver has not yet seen a
	// gap for; lost maps the ones it has to when it saw it.
	pending []int
	lost    map[int]int64
	samples stats.Samples
	inner   sim.Handler
	*sim.ComponentBase
}

func (p *recoveryProbe) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (p *recoveryProbe) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// corrupted notes a data frame the link lost.
func (p *recoveryProbe) corrupted(pkt *packet.Packet, _ int64) {
	if seq, pt, ok := protegoSeq(pkt.Head); ok && pt == protegoORIG {
		p.pending = append(p.pending, seq)
	} else if isIPv4(pkt.Head) {
		p.plain++
		p.plainLost++
	}
}

// isIPv4 reports whether a frame is plain Ethernet/IPv4.
func isIPv4(head []byte) bool { return len(head) >= 14 && binary.BigEndian.Uint16(head[12:]) == 0x0800 }

// Handle sees a frame arriving at the receiver from the link, then hands
// it on.
func (p *recoveryProbe) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	if isIPv4(ev.Pkt.Head) {
		p.plain++
	}
	if len(p.pending) > 0 || len(p.lost) > 0 {
		if seq, pt, ok := protegoSeq(ev.Pkt.Head); ok {
			now := ev.AtPs()
			switch pt {
			case protegoORIG, protegoDUMMY:
				// A later frame (or a dummy carrying the lost frame's own
				// number) shows the receiver the gap.
				keep := p.pending[:0]
				for _, x := range p.pending {
					if serialLess(x, seq) || (pt == protegoDUMMY && x == seq) {
						p.lost[x] = now
					} else {
						keep = append(keep, x)
					}
				}
				p.pending = keep
			case protegoRETX:
				if at, ok := p.lost[seq]; ok {
					p.samples.Add(now - at)
					delete(p.lost, seq)
				}
			}
		}
	}
	return p.inner.Handle(e)
}

// idSet tracks which frame ids (sequence numbers from 1) arrived.
type idSet struct {
	bits       []uint64
	maxSeen    uint64
	unique     int64
	dups, late int64
}

func (s *idSet) add(id uint64) {
	w := int(id / 64)
	for w >= len(s.bits) {
		s.bits = append(s.bits, 0)
	}
	if s.bits[w]&(1<<(id%64)) != 0 {
		s.dups++
		return
	}
	s.bits[w] |= 1 << (id % 64)
	s.unique++
	if id < s.maxSeen {
		s.late++
	}
	s.maxSeen = max(s.maxSeen, id)
}

// poissonCI95 is the exact (Garwood) 95 % interval of a Poisson mean
// given k events. Above 100 events it is the Wilson–Hilferty
// approximation of the same chi-square quantiles (within 0.05 of the
// exact limits there, TestPoissonCI), since the exact sums would
// underflow (e^-lambda is 0 past lambda ≈ 745) and cost k terms per step.
func poissonCI95(k int64) (lo, hi float64) {
	if k > 100 {
		return poissonCI95WH(k)
	}
	return poissonCI95Exact(k)
}

// poissonCI95WH is Wilson and Hilferty's cube-root approximation of the
// chi-square quantiles that bound a Poisson mean.
func poissonCI95WH(k int64) (lo, hi float64) {
	const z = 1.959963984540054
	wh := func(n, sign float64) float64 {
		return n * math.Pow(1-1/(9*n)+sign*z/(3*math.Sqrt(n)), 3)
	}
	return wh(float64(k), -1), wh(float64(k+1), 1)
}

// poissonCI95Exact is Garwood's interval by bisection on the Poisson
// distribution function (k ≤ a few hundred: e^-lambda underflows past
// lambda ≈ 745).
func poissonCI95Exact(k int64) (lo, hi float64) {
	cdf := func(lambda float64, k int64) float64 { // P(X <= k)
		term, sum := math.Exp(-lambda), 0.0
		for i := int64(0); i <= k; i++ {
			if i > 0 {
				term *= lambda / float64(i)
			}
			sum += term
		}
		return sum
	}
	solve := func(f func(float64) float64) float64 { // f increasing in lambda, root
		a, b := 0.0, float64(k)+10+10*math.Sqrt(float64(k)+1)
		for i := 0; i < 200; i++ {
			m := (a + b) / 2
			if f(m) < 0 {
				a = m
			} else {
				b = m
			}
		}
		return (a + b) / 2
	}
	if k > 0 {
		lo = solve(func(l float64) float64 { return 0.975 - cdf(l, k-1) }) // P(X >= k) = 0.025
	}
	hi = solve(func(l float64) float64 { return 0.025 - cdf(l, k) })
	return lo, hi
}

func (s *Scenario) runProtego(spec runSpec) (*Run, error) {
	start := time.Now()
	trafficEnd := int64(s.DurationUs * 1e6)
	deadline := trafficEnd + int64(s.Protego.DrainUs*1e6)
	eng := engine.New()
	pr := &ProtegoRun{}
	r := &Run{Scenario: s.Name, Variant: spec.variant.Name, Senders: 1, Params: spec.params, Seed: spec.seed, Value: spec.value, ProtegoRun: pr}
	if s.Sweep != nil {
		r.Sweep = s.Sweep.Var
	}
	net, _, err := s.buildNetwork(spec, eng, deadline)
	if err != nil {
		return nil, err
	}
	capture, err := s.startPcap(spec, net)
	if err != nil {
		return nil, err
	}
	ends, err := s.protegoEnds(net)
	if err != nil {
		return nil, fmt.Errorf("variant %s: %v", spec.variant.Name, err)
	}
	mode := "ordered"
	vp := spec.variant.Protego
	if vp == nil {
		vp = &VariantProtego{Mode: mode}
	}
	mode = vp.Mode
	srcGbps := s.hostGbps(s.Pattern.Flows[0][0])
	if vp.Gbps > 0 {
		for _, h := range s.Pattern.Flows[0] {
			sw, port := net.hostPort(h)
			if err := setPortGbps(sw, port, vp.Gbps); err != nil {
				return nil, err
			}
		}
		for _, end := range []struct {
			sw   arch.Switch
			port int
		}{{ends.tx, ends.txPort}, {ends.rx, ends.rxPort}} {
			if err := setPortGbps(end.sw, end.port, vp.Gbps); err != nil {
				return nil, err
			}
		}
		srcGbps = vp.Gbps
	}
	if err := setMode(ends, mode); err != nil {
		return nil, fmt.Errorf("variant %s: %v", spec.variant.Name, err)
	}
	if mode == "off" && vp.SwitchAtUs == 0 {
		// Unprotected for the whole run: Protego is not deployed on the
		// link (corruptd activates it by pushing the link's entries,
		// App. C), so the control plane starts neither the sender's dummy
		// loop (§3.2) nor the receiver's timer packets or timer thread
		// (§3.5): the link carries the traffic alone.
		for _, sw := range []arch.Switch{ends.tx, ends.rx} {
			if err := stopGenerators(sw); err != nil {
				return nil, fmt.Errorf("variant %s: %v", spec.variant.Name, err)
			}
		}
	}
	if vp.Tail != nil && !*vp.Tail {
		d, ok := ends.tx.(arch.PacketGenerator)
		if !ok {
			return nil, fmt.Errorf("variant %s: %s cannot disable a packet-generator application", spec.variant.Name, ends.tx.Name())
		}
		if err := d.DisablePktGen("dummy", 0); err != nil {
			return nil, fmt.Errorf("variant %s: tail: false: %v", spec.variant.Name, err)
		}
	}
	loss := net.losses[s.Protego.Link]
	if vp.Loss != nil {
		loss = link.NewCorruption(*vp.Loss, spec.seed*7919+int64(s.Protego.Link)+1)
	}
	if loss != nil {
		pr.LinkLoss = loss.Rate()
	}
	pr.Copies = s.Protego.Copies
	if vp.Copies > 0 {
		pr.Copies = vp.Copies
	}
	if pr.Copies == 0 {
		pr.Copies = eq1Copies(s.Protego.TargetLoss, pr.LinkLoss)
	}
	group, err := constOf(ends.tx.Program(), "RETX_GROUP")
	if err != nil {
		return nil, err
	}
	ports := make([]int, pr.Copies)
	for i := range ports {
		ports[i] = ends.txPort
	}
	rep, ok := ends.tx.(arch.Replicator)
	if !ok {
		return nil, fmt.Errorf("variant %s: %s cannot set multicast groups", spec.variant.Name, ends.tx.Name())
	}
	if err := rep.SetMulticastGroup(int(group), ports); err != nil {
		return nil, err
	}
	// The probe sits between the link and the receiver's ingress.
	probe := &recoveryProbe{ComponentBase: sim.NewComponentBase("Net.ProtegoProbe"), lost: map[int]int64{}, inner: ends.rx.IngressHandler(ends.rxPort)}
	prop := int64(s.Topology.Links[s.Protego.Link].PropNs * 1000)
	ends.tx.Attach(ends.txPort, link.To(probe, ends.rxPort, prop).WithLoss(loss))
	if loss != nil {
		loss.OnLoss(probe.corrupted)
	}
	if sw := vp; sw.SwitchAtUs > 0 {
		other := map[string]string{"ordered": "nb", "nb": "ordered", "off": "off"}[mode]
		var failed error
		at := &timerFunc{ComponentBase: sim.NewComponentBase("Net.ProtegoControl"), f: func(int64) { failed = setMode(ends, other) }}
		packet.Schedule(eng, at, int64(sw.SwitchAtUs*1e6), packet.KindLocal, nil, 0)
		defer func() {
			if failed != nil {
				err = failed
			}
		}()
	}
	var drops arch.DropCounter
	srcTag := uint64(s.Pattern.Flows[0][0]+1) << 40 // hosts.UDPSource ids: (host+1) << 40 | seq
	for _, sw := range net.switches {
		sender := sw == ends.tx
		sw.OnDrop(func(pkt *packet.Packet, reason string) {
			// The source's frames the traffic managers dropped: at the
			// sender before the link (no Protego header yet: not a Tx
			// buffer copy), at the receiver after it.
			if !pkt.Mirrored && pkt.ID&^(1<<40-1) == srcTag && (strings.HasPrefix(reason, "traffic manager:") || reason == "output queue full") {
				if !sender {
					pr.ReceiverQueueDrops++
				} else if len(pkt.Head) < 14 || binary.BigEndian.Uint16(pkt.Head[12:]) != protegoEtype {
					pr.SenderQueueDrops++
				}
			}
			drops.Add(reason)
		})
	}
	// The switches that can share a packet pool (arch.PacketPooler) take
	// their copies and generated packets (the receiver's timer packets,
	// millions per run) from the run's pool and give it the packets they
	// drop; the UDP traffic shares it (its sink gives back what arrives).
	// The drop hooks above read a packet before it goes back.
	hb := hosts.MakeBuilder().WithEngine(eng).WithDeadline(deadline)
	for _, sw := range net.switches {
		if p, ok := sw.(arch.PacketPooler); ok {
			p.SetPacketPool(hb.Pool())
		}
	}
	var tr protegoTraffic
	switch s.Workload.Kind {
	case "protego-fct":
		tr, err = s.protegoFCT(spec, eng, net, srcGbps, trafficEnd, deadline, probe)
	case "protego-bulk":
		tr, err = s.protegoBulk(eng, net, srcGbps, trafficEnd, deadline, probe)
	default:
		tr, err = s.protegoStress(hb, net, srcGbps, trafficEnd)
	}
	if err != nil {
		return nil, err
	}
	if err := tr.start(); err != nil {
		return nil, err
	}
	if err := eng.Run(); err != nil {
		return nil, err
	}
	if err := s.finishPcap(spec, capture, r); err != nil {
		return nil, err
	}
	for _, sw := range net.switches {
		if err := arch.FaultOf(sw); err != nil {
			return nil, err
		}
	}
	if err := tr.failed(); err != nil {
		return nil, fmt.Errorf("variant %s: %v", spec.variant.Name, err)
	}
	// Rates are over the run up to its deadline (a pending PFC pause
	// timer may keep the engine going past it).
	span := min(packet.SecToPs(eng.CurrentTime()), deadline)

	// What the switches' control planes read: the frames the sender
	// sequenced (none when unprotected: the traffic counts them).
	if mode != "off" {
		v, err := ends.tx.ReadRegister("seq_reg", ends.txPort)
		if err != nil {
			return nil, err
		}
		pr.Offered = v
	}
	if loss != nil && loss.Frames > 0 {
		pr.LinkLossMeasured = float64(loss.Lost) / float64(loss.Frames)
	}
	if mode == "off" {
		pr.EffectiveLossExpected = pr.LinkLoss
		pr.Copies = 0 // an unprotected link sends no copies (the group waits unused)
	} else {
		pr.EffectiveLossExpected = link.ExpectedUnrecovered(pr.LinkLoss, pr.Copies)
	}
	tr.finish(pr, r, int64(len(probe.lost)+len(probe.pending)))
	if pr.Offered > 0 {
		n := float64(pr.Offered)
		pr.EffectiveLoss = float64(pr.Unrecovered) / n
		lo, hi := poissonCI95(pr.Unrecovered)
		// A loss rate: the Poisson interval of the count, capped at 1.
		pr.EffectiveLossCI = [2]float64{min(lo/n, 1), min(hi/n, 1)}
	}
	pr.Measurable = float64(pr.Offered)*pr.EffectiveLossExpected >= 3
	// The ledger of the frames offered to the protected link: each is
	// delivered once (in order with Protego) or counted as unrecovered.
	r.ConservationOK = pr.Delivered+pr.Unrecovered == pr.Offered && pr.Duplicates == 0 && (mode != "ordered" || vp.SwitchAtUs > 0 || pr.Reordered == 0)
	if ends.txKeeps {
		if bu, ok := ends.tx.(arch.BufferUser); ok {
			tx, _ := bu.BufferUse("txbuf")
			pr.TxBufferMaxBytes = tx.PeakBytes
		}
		if bu, ok := ends.rx.(arch.BufferUser); ok && ends.rxKeeps {
			rx, _ := bu.BufferUse("rxbuf")
			pr.RxBufferMaxBytes = rx.PeakBytes
		}
	} else if qu, ok := ends.tx.(arch.QueueUser); ok {
		tx, _ := qu.QueueUse(ends.txRecirc, ends.txQueue)
		rx, _ := ends.rx.(arch.QueueUser).QueueUse(ends.rxRecirc, ends.rxQueue)
		pr.TxBufferMaxBytes, pr.RxBufferMaxBytes = tx.PeakBytes, rx.PeakBytes
		if c, ok := ends.tx.(interface{ PipePacketsPerSecond() float64 }); ok && span > 0 {
			capacity := c.PipePacketsPerSecond() * float64(span) / 1e12
			pr.TxRecircShare = float64(tx.Enqueued) / capacity
			pr.RxRecircShare = float64(rx.Enqueued) / capacity
		}
	}
	pr.RecoveryUs = quantilesOf(&probe.samples, 1e6)
	if c, err := constOf(ends.rx.Program(), "LINK"); err == nil {
		pr.AckTimeouts = ends.rx.CounterValue("ack_timeouts", int(c))
	}
	if pc, ok := ends.tx.(arch.PauseCounter); ok {
		var ps int64
		pr.PFCPauses, pr.PFCResumes, ps = pc.PFCFrames()
		pr.PausedUs = float64(ps) / 1e6
	}
	if loss != nil && loss.Bytes > 0 && mode != "off" {
		pr.HeaderOverhead = float64(pr.Offered*protegoHeaderSize) / float64(loss.Bytes)
	}
	if tr, ok := ends.rx.(interface{ TimerRuns() int64 }); ok && ends.rxKeeps && span > 0 {
		// A timer thread's runs stand for the timer packets.
		pr.TimerMpps = float64(tr.TimerRuns()) / (float64(span) / 1e12) / 1e6
	} else if g, ok := ends.rx.(arch.PacketGenerator); ok && span > 0 {
		pr.TimerMpps = float64(g.PktGenerated()) / (float64(span) / 1e12) / 1e6
	}
	r.DropReasons = []DropCount{} // a list in the JSON even when empty
	for _, d := range drops.Sorted() {
		r.DropReasons = append(r.DropReasons, DropCount{Reason: d.Reason, Packets: d.Packets})
		r.Dropped += d.Packets
	}
	for _, sw := range net.switches {
		r.SwitchHops += sw.Counters().Delivered
	}
	r.Events = eng.Scheduled()
	if r.DataSent > 0 {
		r.EventsPerPacket = float64(r.Events) / float64(r.DataSent)
	}
	r.WallMs = float64(time.Since(start).Microseconds()) / 1000
	return r, err
}

// timerFunc runs f when its event fires.
type timerFunc struct {
	*sim.ComponentBase
	f func(now int64)
}

func (t *timerFunc) NotifyRecv(sim.VTimeInSec, sim.Port)     {}
func (t *timerFunc) NotifyPortFree(sim.VTimeInSec, sim.Port) {}
func (t *timerFunc) Handle(e sim.Event) error {
	t.f(e.(*packet.Event).AtPs())
	return nil
}

// protegoTraffic is what runs over the protected link: line-rate frames
// (protego-stress) or closed-loop flows (protego-fct).
type protegoTraffic interface {
	start() error
	// failed is an error the traffic found while running (nil: none).
	failed() error
	// finish fills the traffic's measurements; unrecovered is the number of
	// corrupted data frames no copy repaired (the probe's count).
	finish(pr *ProtegoRun, r *Run, unrecovered int64)
}

// protegoStressTraffic is the stress test's UDP source and sink.
type protegoStressTraffic struct {
	u          *hosts.UDPSource
	sink       *hosts.UDPSink
	seen       *idSet
	frameBytes int
}

func (s *Scenario) protegoStress(hb hosts.Builder, net *network, srcGbps float64, trafficEnd int64) (*protegoStressTraffic, error) {
	w := s.Workload
	src, dst := s.Pattern.Flows[0][0], s.Pattern.Flows[0][1]
	ssw, sport := net.hostPort(src)
	hprop := int64(s.Link.PropNs * 1000)
	u, err := hb.WithHost(src, sport).WithUplink(ssw.IngressHandler(sport)).BuildUDP(sim.BuildNameWithIndex("Net", "UDPSource", src), hosts.UDPConfig{
		NICGbps: srcGbps, PropPs: hprop, IPBytes: w.FrameBytes - 14, RateGbps: min(w.RateGbps, srcGbps), StopPs: trafficEnd,
		Src: hosts.HostIP(src), Dst: hosts.HostIP(dst), SrcPort: 10000, DstPort: 5001, Batch: udpBatch})
	if err != nil {
		return nil, fmt.Errorf("pattern.flows[0]: %v", err)
	}
	ssw.Attach(sport, link.To(u, sport, hprop))
	dsw, dport := net.hostPort(dst)
	sink := hb.WithHost(dst, dport).BuildUDPSink(sim.BuildNameWithIndex("Net", "UDPSink", dst))
	seen := &idSet{}
	sink.OnReceive(func(_ int64, pkt *packet.Packet) {
		seen.add(pkt.ID & (1<<40 - 1)) // the source's sequence number (hosts.UDPSource ids)
	})
	dsw.Attach(dport, link.To(sink, dport, hprop))
	return &protegoStressTraffic{u: u, sink: sink, seen: seen, frameBytes: w.FrameBytes}, nil
}

func (t *protegoStressTraffic) start() error  { t.u.Start(); return nil }
func (t *protegoStressTraffic) failed() error { return nil }

// finish counts, at the sink, each frame the source sent once: delivered,
// duplicated, out of order; the rest of the frames offered to the link
// were never recovered.
func (t *protegoStressTraffic) finish(pr *ProtegoRun, r *Run, _ int64) {
	if pr.Offered == 0 { // unprotected: every frame that passed the sender's queue
		pr.Offered = int64(t.u.Sent) - int64(pr.SenderQueueDrops)
	}
	pr.Delivered, pr.Duplicates, pr.Reordered = t.seen.unique, t.seen.dups, t.seen.late
	pr.Unrecovered = max(0, pr.Offered-pr.Delivered)
	if k := t.sink; k.Packets > 0 && k.LastPs > k.FirstPs && t.seen.unique > 1 {
		// The receive rate: n frames arriving from first to last are n-1
		// frame times apart (n over that span read above the line rate
		// when only a few frames got through).
		wire := float64(t.seen.unique-1) * float64(t.frameBytes+24) * 8
		pr.EffectiveGbps = wire / (float64(k.LastPs-k.FirstPs) / 1e12) / 1e9
	}
	r.DataSent = int(t.u.Sent)
}
