package experiments

import (
	"fmt"
	"strconv"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/flowgen"
	"archsim/components/link"
	"archsim/components/rdma"
	"archsim/components/tcp"
	"archsim/configs"
)

// Protego's flow-completion-time experiments (workload kind protego-fct,
// the paper's §4.3-4.4): closed-loop fixed-size flows from a host behind
// the sender switch to a host behind the receiver switch, over the
// corrupting link, with DCTCP (or CUBIC) end hosts or RoCEv2 NICs doing
// RDMA WRITEs (components/flowgen). Data crosses the corrupting
// direction; ACKs come back over the clean one.

// TransportCounters sum what the finished flows' transports did.
type TransportCounters struct {
	Retransmits int `json:"retransmits"` // TCP segments / RDMA packets sent again
	Timeouts    int `json:"timeouts"`    // TCP RTO / RDMA transport-timer expiries
	LossProbes  int `json:"loss_probes"` // TCP tail loss probes
	NAKs        int `json:"naks"`        // RDMA sequence-error NAKs
}

// validateFCT checks the protego-fct workload's fields.
func (s *Scenario) validateFCT() error {
	w := s.Workload
	fct := w.Kind == "protego-fct"
	switch {
	case w.Transport != "dctcp" && w.Transport != "cubic" && w.Transport != "rdma":
		return s.need("workload.transport", "dctcp, cubic or rdma", w.Transport)
	case !fct && w.Transport == "rdma":
		return s.need("workload.transport", "dctcp or cubic (protego-bulk runs one TCP connection)", w.Transport)
	case !fct:
	case w.FlowBytes < 1 || w.FlowBytes > 1<<30:
		return s.need("workload.flow_bytes", "1..2^30", w.FlowBytes)
	case w.Flows < 0 || w.Flows > 10_000_000:
		return s.need("workload.flows", "0..10^7 (0: until duration_us)", w.Flows)
	case w.Parallel < 1 || w.Parallel > 64:
		return s.need("workload.parallel", "1..64", w.Parallel)
	case w.GapUs < 0 || w.GapUs > 1e6:
		return s.need("workload.gap_us", "0..10^6", w.GapUs)
	}
	switch {
	case w.HostDelayUs < 0 || w.HostDelayUs > 1e4:
		return s.need("workload.host_delay_us", "0..10^4", w.HostDelayUs)
	case w.RTOMinMs < 0 || w.RTOMinMs > 1e3:
		return s.need("workload.rto_min_ms", "0..1000 (0: configs/tcp.yaml's)", w.RTOMinMs)
	case w.SynRTTUs < 0 || w.SynRTTUs > 1e4:
		return s.need("workload.syn_rtt_us", "0..10^4", w.SynRTTUs)
	}
	return nil
}

// protegoFCTTraffic is the flow generator and its hosts.
type protegoFCTTraffic struct {
	client *flowgen.Client
	probe  *recoveryProbe
}

// fctStartPs is when the first flows start: after the switches' control
// planes have bootstrapped the dummy and explicit-ACK queues.
const fctStartPs = 10_000_000

func (s *Scenario) protegoFCT(spec runSpec, eng sim.Engine, net *network, gbps float64, trafficEnd, deadline int64, probe *recoveryProbe) (*protegoFCTTraffic, error) {
	w := s.Workload
	if vp := spec.variant.Protego; vp != nil {
		if vp.Transport != "" {
			w.Transport = vp.Transport
		}
		if vp.FlowBytes > 0 {
			w.FlowBytes = vp.FlowBytes
		}
	}
	src, dst := s.Pattern.Flows[0][0], s.Pattern.Flows[0][1]
	prop := int64(s.Link.PropNs * 1000)
	fc := flowgen.Config{Bytes: int64(w.FlowBytes), GapPs: int64(w.GapUs * 1e6), Flows: w.Flows, Parallel: w.Parallel,
		StartPs: fctStartPs, StaggerPs: 1_000_000, DeadlinePs: trafficEnd, SynRTTPs: int64(w.SynRTTUs * 1e6)}
	name := sim.BuildNameWithIndex("Net", "FlowGen", src)
	var client *flowgen.Client
	switch w.Transport {
	case "dctcp", "cubic":
		cfg, err := s.tcpConfig(w, gbps)
		if err != nil {
			return nil, err
		}
		hs, err := s.tcpPair(eng, net, cfg, deadline)
		if err != nil {
			return nil, err
		}
		if client, err = flowgen.NewTCP(name, fc, eng, hs[0], src, hs[1], dst); err != nil {
			return nil, fmt.Errorf("workload: %v", err)
		}
	case "rdma":
		data, err := configs.Read("rdma.yaml")
		if err != nil {
			return nil, err
		}
		cfg, err := rdma.ParseConfig("configs/rdma.yaml", data, rdma.DefaultConfig())
		if err != nil {
			return nil, err
		}
		cfg.NICGbps, cfg.PropPs, cfg.NICDelayPs = gbps, prop, int64(w.HostDelayUs*1e6)
		rb := rdma.MakeBuilder().WithEngine(eng).WithDeadline(deadline).WithConfig(cfg)
		hs, err := hostPair(s, net, "RDMAHost", func(h, port int, name string, up sim.Handler) (*rdma.Host, error) {
			return rb.WithHost(h, port).WithUplink(up).Build(name)
		})
		if err != nil {
			return nil, err
		}
		if client, err = flowgen.NewRDMA(name, fc, eng, hs[0], src, hs[1], dst); err != nil {
			return nil, fmt.Errorf("workload: %v", err)
		}
	}
	return &protegoFCTTraffic{client: client, probe: probe}, nil
}

func (t *protegoFCTTraffic) start() error  { return t.client.Start() }
func (t *protegoFCTTraffic) failed() error { return t.client.Err() }

// finish reads the flows' completion times; the link's frames offered and
// unrecovered come from the probe at the receiver.
func (t *protegoFCTTraffic) finish(pr *ProtegoRun, r *Run, unrecovered int64) {
	f := t.client.FCT()
	pr.FCTUs = &f
	c := t.client.Counters()
	pr.Transport = &TransportCounters{Retransmits: c.Retransmits, Timeouts: c.Timeouts, LossProbes: c.LossProbes, NAKs: c.NAKs}
	if pr.Offered == 0 { // unprotected: the data frames the link carried or lost
		pr.Offered = t.probe.plain
		unrecovered = t.probe.plainLost
	}
	pr.Unrecovered = unrecovered
	pr.Delivered = pr.Offered - unrecovered
	r.DataSent = t.client.Started()
}

// tcpConfig is configs/tcp.yaml with the workload's transport, RTO_min,
// link rate and stack delay.
func (s *Scenario) tcpConfig(w Workload, gbps float64) (tcp.Config, error) {
	data, err := configs.Read("tcp.yaml")
	if err != nil {
		return tcp.Config{}, err
	}
	cfg, err := tcp.ParseConfig("configs/tcp.yaml", data, tcp.DefaultConfig())
	if err != nil {
		return tcp.Config{}, err
	}
	cfg.CC = w.Transport
	if w.Transport == "dctcp" {
		cfg.ECN = true // DCTCP needs ECN; the sender switch marks at 100 KB (§4)
	}
	if w.RTOMinMs > 0 {
		cfg.RTOMinPs = int64(w.RTOMinMs * 1e9)
	}
	cfg.NICGbps, cfg.PropPs, cfg.StackDelayPs = gbps, int64(s.Link.PropNs*1000), int64(w.HostDelayUs*1e6)
	return cfg, nil
}

// protegoBulkTraffic is one long-lived TCP connection (protego-bulk: the
// paper's Table 3, CUBIC goodput against the loss rate).
type protegoBulkTraffic struct {
	flow    *tcp.Flow
	probe   *recoveryProbe
	startPs int64
	endPs   int64
}

func (s *Scenario) protegoBulk(eng sim.Engine, net *network, gbps float64, trafficEnd, deadline int64, probe *recoveryProbe) (*protegoBulkTraffic, error) {
	w := s.Workload
	if w.Transport == "rdma" {
		return nil, fmt.Errorf("workload.transport: protego-bulk runs TCP (cubic or dctcp)")
	}
	cfg, err := s.tcpConfig(w, gbps)
	if err != nil {
		return nil, err
	}
	src, dst := s.Pattern.Flows[0][0], s.Pattern.Flows[0][1]
	hs, err := s.tcpPair(eng, net, cfg, trafficEnd)
	if err != nil {
		return nil, err
	}
	f := &tcp.Flow{ID: 0, Src: src, Dst: dst, StartPs: fctStartPs, SynRTTPs: int64(w.SynRTTUs * 1e6)}
	if err := hs[1].AddReceiver(f); err != nil {
		return nil, err
	}
	if err := hs[0].AddSender(f); err != nil {
		return nil, err
	}
	return &protegoBulkTraffic{flow: f, probe: probe, startPs: fctStartPs, endPs: trafficEnd}, nil
}

func (t *protegoBulkTraffic) start() error  { return nil }
func (t *protegoBulkTraffic) failed() error { return nil }

// finish reads the connection's goodput (bytes delivered in order to the
// receiving application over the traffic time).
func (t *protegoBulkTraffic) finish(pr *ProtegoRun, r *Run, unrecovered int64) {
	st := t.flow.Stats
	g := float64(st.Delivered) * 8 / (float64(t.endPs-t.startPs) / 1e12) / 1e9
	pr.GoodputGbps = &g
	pr.Transport = &TransportCounters{Retransmits: st.Retransmits, Timeouts: st.Timeouts, LossProbes: st.LossProbes}
	if pr.Offered == 0 {
		pr.Offered = t.probe.plain
		unrecovered = t.probe.plainLost
	}
	pr.Unrecovered = unrecovered
	pr.Delivered = pr.Offered - unrecovered
	r.DataSent = st.SegmentsSent
}

// hostPair builds the pattern's two hosts with build and attaches each to
// its switch port.
func hostPair[H sim.Handler](s *Scenario, net *network, kind string, build func(h, port int, name string, uplink sim.Handler) (H, error)) ([2]H, error) {
	var hs [2]H
	prop := int64(s.Link.PropNs * 1000)
	for i, h := range s.Pattern.Flows[0] {
		sw, port := net.hostPort(h)
		host, err := build(h, port, sim.BuildNameWithIndex("Net", kind, h), sw.IngressHandler(port))
		if err != nil {
			return hs, fmt.Errorf("workload: %v", err)
		}
		sw.Attach(port, link.To(host, port, prop))
		hs[i] = host
	}
	return hs, nil
}

// tcpPair builds the pattern's two TCP hosts.
func (s *Scenario) tcpPair(eng sim.Engine, net *network, cfg tcp.Config, deadline int64) ([2]*tcp.Host, error) {
	tb := tcp.MakeBuilder().WithEngine(eng).WithDeadline(deadline).WithConfig(cfg)
	return hostPair(s, net, "TCPHost", func(h, port int, name string, up sim.Handler) (*tcp.Host, error) {
		return tb.WithHost(h, port).WithUplink(up).Build(name)
	})
}

// protegoRunRows are runs.csv's rows for Protego scenarios (the JSON keys
// that are numbers, flattened; columns added later go at the end).
func (r *Result) protegoRunRows() [][]string {
	rows := [][]string{{"variant", "sweep_value", "link_loss", "link_loss_measured", "copies", "offered", "delivered", "unrecovered",
		"duplicates", "reordered", "effective_loss", "effective_loss_ci95_lo", "effective_loss_ci95_hi", "effective_loss_expected",
		"effective_gbps", "tx_buffer_max_bytes", "rx_buffer_max_bytes", "recovery_us_p50", "recovery_us_p99", "recovery_us_max",
		"ack_timeouts", "pfc_pauses", "paused_us", "tx_recirc_share", "rx_recirc_share", "fct_us_p50", "fct_us_p99", "fct_us_p999",
		"tcp_goodput_gbps", "events", "conservation_ok",
		"effective_loss_measurable", "recovery_us_n", "recovery_us_mean", "recovery_us_p90", "pfc_resumes",
		"sender_queue_drops", "receiver_queue_drops", "header_overhead", "timer_mpps", "fct_us_p9999"}}
	i64 := func(x int64) string { return strconv.FormatInt(x, 10) }
	for _, run := range r.Runs {
		p := run.ProtegoRun
		if p == nil {
			continue
		}
		fct, fct4 := []string{"", "", ""}, ""
		if f := p.FCTUs; f != nil && f.N > 0 {
			fct, fct4 = []string{f2s(f.P50), f2s(f.P99), f2s(f.P999)}, f2s(f.P9999)
		}
		rec := func(x float64) string { // empty when no frame was recovered
			if p.RecoveryUs.N == 0 {
				return ""
			}
			return f2s(x)
		}
		good := ""
		if p.GoodputGbps != nil {
			good = f2s(*p.GoodputGbps)
		}
		rows = append(rows, append(append([]string{run.Variant, run.Value, f2s(p.LinkLoss), f2s(p.LinkLossMeasured), strconv.Itoa(p.Copies),
			i64(p.Offered), i64(p.Delivered), i64(p.Unrecovered), i64(p.Duplicates), i64(p.Reordered), f2s(p.EffectiveLoss),
			f2s(p.EffectiveLossCI[0]), f2s(p.EffectiveLossCI[1]), f2s(p.EffectiveLossExpected), f2s(p.EffectiveGbps),
			i64(p.TxBufferMaxBytes), i64(p.RxBufferMaxBytes), rec(p.RecoveryUs.P50), rec(p.RecoveryUs.P99), rec(p.RecoveryUs.Max),
			i64(p.AckTimeouts), strconv.Itoa(p.PFCPauses), f2s(p.PausedUs), f2s(p.TxRecircShare), f2s(p.RxRecircShare)}, fct...),
			good, i64(run.Events), strconv.FormatBool(run.ConservationOK),
			strconv.FormatBool(p.Measurable), strconv.Itoa(p.RecoveryUs.N), rec(p.RecoveryUs.Mean), rec(p.RecoveryUs.P90),
			strconv.Itoa(p.PFCResumes), strconv.Itoa(p.SenderQueueDrops), strconv.Itoa(p.ReceiverQueueDrops),
			f2s(p.HeaderOverhead), f2s(p.TimerMpps), fct4))
	}
	return rows
}
