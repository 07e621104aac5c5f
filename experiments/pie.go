package experiments

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"archsim/engine"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/aqm/pie"
	"archsim/components/hosts"
	"archsim/components/packet"
	"archsim/components/stats"
	"archsim/programs"
)

// AQMSetup names the bottleneck queue a udp-risefall or tcp scenario
// watches: the port of switch Switch towards host Host (the PIE paper's
// Tofino B towards the 10 Gb/s receiver, Fig. 4).
type AQMSetup struct {
	Switch string `yaml:"switch"`
	Host   int    `yaml:"host"`
	// SampleUs is how often the observer reads the drop probability: the
	// resolution of rise_s and fall_s.
	SampleUs float64 `yaml:"sample_us"`
	// PlotUs is the time-series resolution of the drop_prob/queue plot.
	PlotUs float64 `yaml:"plot_us"`
}

// VariantAQM says where a variant's bottleneck switch keeps its drop
// probability and what runs beside it.
type VariantAQM struct {
	// Register holds drop_prob as a 32-bit fraction of 2^32-1 (a program
	// register, index 0); empty for a chip that reports its own (the ideal
	// switch's reference PIE).
	Register string `yaml:"register"`
	// Updates are the register actions (register.action) that update it;
	// each run of one is one drop_prob update.
	Updates []string `yaml:"updates"`
	// Control is the control-plane program that runs on the switch CPU:
	// pie-cp (the PIE_CP loop), pie-table (fills PIE_TABLE's update table
	// at start-up, each range standing for its midpoint) or pie-table-p4t
	// (the same fill as pie-for-tofino's script computes it).
	Control string `yaml:"control"`
}

// aqmReporter is a chip that computes the drop probability itself (the
// ideal switch's reference PIE, arch/ideal/pie.go) rather than in a
// program register: the port's controller (nil until the port is used).
type aqmReporter interface {
	PIE(port int) *pie.PIE
}

// PIERun is what a udp-risefall or tcp run measures at the bottleneck;
// its keys sit at the top level of the run's JSON.
type PIERun struct {
	// RiseS is the simulated time from the start of the overload until
	// drop_prob first reaches 100 % (null: it never did); FallS from then
	// (the source drops to low_rate_gbps) until drop_prob is back at 0.
	RiseS         *float64 `json:"rise_s"`
	FallS         *float64 `json:"fall_s"`
	Updates       int      `json:"updates"`
	FinalDropProb float64  `json:"final_drop_prob"`
	MaxDropProb   float64  `json:"max_drop_prob"`
	// QueueDelayUs is the queueing delay of the packets that left the
	// bottleneck queue.
	QueueDelayUs Quantiles `json:"queue_delay_us"`
	// AQMDrops counts packets the program (or reference PIE) dropped;
	// TailDrops those the full queue refused.
	AQMDrops  int `json:"aqm_drops"`
	TailDrops int `json:"tail_drops"`
	// PacketsSent counts the data packets the hosts sent (UDP frames, TCP
	// segments with retransmissions).
	PacketsSent int `json:"packets_sent"`
	// TotalGoodputGbps is the bytes delivered in order to the receiving
	// applications over the run.
	TotalGoodputGbps float64 `json:"total_goodput_gbps"`
	// CPPeriodUs is the control-plane loop's measured period (PIE_CP).
	CPPeriodUs *float64 `json:"cp_update_period_us,omitempty"`
	// SimulatedS is how long the traffic ran (a rise/fall run ends when
	// drop_prob is back at 0); StartupS how long the control plane's
	// start-up work took before it started.
	SimulatedS float64     `json:"simulated_s"`
	StartupS   float64     `json:"startup_s"`
	Trace      []AQMSample `json:"-"`
	// DelayCDF is the queueing delay (us) at the quantiles 0, 0.01, ...,
	// 1: the delay_cdf plot's line.
	DelayCDF []float64 `json:"-"`
}

// Quantiles summarises a distribution.
type Quantiles struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// MarshalJSON writes quantiles of no samples as null values, so that no
// reader takes their zeros for measured ones.
func (q Quantiles) MarshalJSON() ([]byte, error) {
	if q.N == 0 {
		return []byte(`{"n":0,"mean":null,"p50":null,"p90":null,"p99":null,"max":null}`), nil
	}
	type plain Quantiles
	return json.Marshal(plain(q))
}

func quantilesOf(s *stats.Samples, scale float64) Quantiles {
	if s.N() == 0 {
		return Quantiles{}
	}
	return Quantiles{N: s.N(), Mean: s.Mean() / scale, P50: s.Quantile(0.5) / scale, P90: s.Quantile(0.9) / scale,
		P99: s.Quantile(0.99) / scale, Max: float64(s.Max()) / scale}
}

// AQMSample is one point of the drop_prob and queueing-delay time series
// (AtS: seconds since the traffic started).
type AQMSample struct {
	AtS          float64
	DropProb     float64
	QueueDelayUs float64
}

// bound prints a bound as the scenario files write it (1e6, 6e7).
func bound(x float64) string {
	e := int(math.Floor(math.Log10(x)))
	return fmt.Sprintf("%ge%d", x/math.Pow10(e), e)
}

// maxDurationUs bounds a scenario's simulated time: the PIE workloads run
// for seconds (the paper's 10 s TCP runs), the others for at most 1 s.
func (s *Scenario) maxDurationUs() float64 {
	switch s.Workload.Kind {
	case "udp-risefall", "tcp":
		return 60e6
	}
	return 1e6
}

// maxStartupUs bounds the control plane's start-up work (PIE_TABLE's fill
// of ~90 000 entries takes about a second of CPU time).
const maxStartupUs = 10e6

// tcpFrameOverhead is a TCP segment's frame bytes beyond its payload:
// Ethernet 14, IPv4 20, TCP 20 and the 12-byte timestamps option.
const tcpFrameOverhead = 66

// maxConnections bounds a tcp scenario's concurrent connections.
const maxConnections = 1000

// validateAQM checks what the PIE workloads need.
func (s *Scenario) validateAQM() error {
	w := s.Workload
	a := s.AQM
	switch {
	case a == nil:
		return fieldErr("aqm", "missing (a %s workload needs the bottleneck switch and host)", w.Kind)
	case s.topology().index(a.Switch) < 0:
		return fieldErr("aqm.switch", "no switch %q in the topology (allowed: %s)", a.Switch, s.topology().names())
	case a.Host < 0 || a.Host >= s.Hosts:
		return fieldErr("aqm.host", "got %d (allowed: 0..%d)", a.Host, s.Hosts-1)
	case !slices.Contains(newPlan(s.topology()).hostsOf[s.topology().index(a.Switch)], a.Host):
		return fieldErr("aqm.host", "host %d is not behind switch %s (its hosts: %v): the bottleneck is the port of aqm.switch that leads to aqm.host", a.Host, a.Switch, newPlan(s.topology()).hostsOf[s.topology().index(a.Switch)])
	case a.SampleUs <= 0 || a.SampleUs > 1e4:
		return fieldErr("aqm.sample_us", "got %g (allowed: 0 < sample_us ≤ 10000)", a.SampleUs)
	case a.PlotUs < 0 || a.PlotUs > 1e6:
		return fieldErr("aqm.plot_us", "got %g (allowed: 0..1e6)", a.PlotUs)
	}
	if w.Kind == "udp-risefall" {
		switch {
		case !rateOK(w.RateGbps, false, 3200):
			return fieldErr("workload.rate_gbps", "got %g (allowed: %g ≤ rate_gbps ≤ 3200)", w.RateGbps, MinGbps)
		case !rateOK(w.LowRateGbps, false, w.RateGbps) || w.LowRateGbps == w.RateGbps:
			return fieldErr("workload.low_rate_gbps", "got %g (allowed: %g ≤ low_rate_gbps < rate_gbps)", w.LowRateGbps, MinGbps)
		case w.FrameBytes < 64 || w.FrameBytes > maxUDPFrameBytes:
			return fieldErr("workload.frame_bytes", "got %d (allowed: 64..%d: an IP packet of at most 9000 bytes behind a 14-byte Ethernet header)", w.FrameBytes, maxUDPFrameBytes)
		}
	}
	if w.Kind == "tcp" {
		switch {
		case w.MSS < 536 || w.MSS > 9000:
			return fieldErr("workload.mss", "got %d (allowed: 536..9000 for tcp)", w.MSS)
		case w.HostDelayUs < 0 || w.HostDelayUs > 1e5:
			return fieldErr("workload.host_delay_us", "got %g (allowed: 0..1e5)", w.HostDelayUs)
		case s.Pattern.Kind != "pairs" || len(s.Pattern.Flows) != 1:
			return fieldErr("pattern", "a tcp workload needs kind pairs with one [sender, receiver] (its connections, senders of them, share it)")
		}
	}
	for i, v := range s.Variants {
		at := fmt.Sprintf("variants[%d].aqm", i)
		va := v.AQM
		if va == nil {
			return fieldErr(at, "missing (register, or {} for a chip with its own AQM)")
		}
		switch va.Control {
		case "", "pie-cp", "pie-table", "pie-table-p4t":
		default:
			return fieldErr(at+".control", "got %q (allowed: pie-cp, pie-table, pie-table-p4t)", va.Control)
		}
		setup := v.setupOf(a.Switch)
		if va.Register == "" && setup.Program != "" {
			return fieldErr(at+".register", "missing: switch %s runs %s, name the register holding drop_prob", a.Switch, setup.Program)
		}
		if va.Register != "" && setup.Program == "" {
			return fieldErr(at+".register", "%s: switch %s runs no program", va.Register, a.Switch)
		}
	}
	return nil
}

// aqmProbe reads the bottleneck's drop probability and counts its
// updates, on any chip.
type aqmProbe struct {
	sw      arch.Switch
	port    int
	reg     string
	rep     aqmReporter
	updates int
	// base is the count when the traffic started: updates during the
	// control plane's start-up are not the run's.
	base int
}

// fullScale is a drop probability of 1 in the programs' 32-bit registers.
const fullScale = 1<<32 - 1

func newAQMProbe(va *VariantAQM, sw arch.Switch, port int) (*aqmProbe, error) {
	p := &aqmProbe{sw: sw, port: port, reg: va.Register}
	if va.Register == "" {
		rep, ok := sw.(aqmReporter)
		if !ok {
			return nil, fmt.Errorf("aqm: %s keeps no drop probability of its own; name the program register", sw.Name())
		}
		p.rep = rep
		return p, nil
	}
	prog := sw.Program()
	if prog == nil || prog.Register(va.Register) == nil {
		return nil, fmt.Errorf("aqm.register: the bottleneck switch's program has no register %q", va.Register)
	}
	if len(va.Updates) == 0 {
		return p, nil
	}
	want := map[*programs.RegisterAction]bool{}
	for _, u := range va.Updates {
		reg, act, ok := cutDot(u)
		r := prog.Register(reg)
		if !ok || r == nil {
			return nil, fmt.Errorf("aqm.updates: %q is not register.action of %s", u, prog.Name)
		}
		var ra *programs.RegisterAction
		for _, a := range r.Actions {
			if a.Name == act {
				ra = a
			}
		}
		if ra == nil {
			return nil, fmt.Errorf("aqm.updates: register %s has no action %q", reg, act)
		}
		want[ra] = true
	}
	t, ok := sw.(arch.RegisterTracer)
	if !ok {
		return nil, fmt.Errorf("aqm.updates: %s cannot trace register actions", sw.Name())
	}
	t.TraceRegister(func(_ int, ra *programs.RegisterAction, _ int64, _ int64) {
		if want[ra] {
			p.updates++
		}
	})
	return p, nil
}

func cutDot(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return s[:i], s[i+1:], i > 0 && i < len(s)-1
		}
	}
	return s, "", false
}

// prob is the current drop probability in [0, 1].
func (p *aqmProbe) prob() float64 {
	if p.rep != nil {
		if c := p.rep.PIE(p.port); c != nil {
			return math.Min(c.Prob(), 1) // ns-3.31's default flavour does not bound drop_prob above
		}
		return 0
	}
	v, err := p.sw.ReadRegister(p.reg, 0)
	if err != nil {
		return math.NaN()
	}
	return float64(uint32(v)) / fullScale
}

// count is the updates performed since the traffic started.
func (p *aqmProbe) count() int { return p.total() - p.base }

// total is the updates performed since the run began.
func (p *aqmProbe) total() int {
	if p.rep != nil {
		if c := p.rep.PIE(p.port); c != nil {
			return c.Updates()
		}
		return 0
	}
	return p.updates
}

// kindSample is the observer's timer.
const kindSample = packet.KindLocal

// rateSetter is a source whose rate the rise/fall experiment changes.
type rateSetter interface {
	SetRateGbps(nowPs int64, gbps float64)
}

// riseFall is the observer of the rise/fall experiment (PIE paper §VII.A):
// every SampleUs it reads drop_prob; when drop_prob first reaches 100 %
// it turns the source down to the low rate, and when drop_prob is back at
// 0 it ends the run.
type riseFall struct {
	*sim.ComponentBase
	engine   sim.Engine
	probe    *aqmProbe
	every    int64
	plot     int64
	nextPlot int64
	startPs  int64
	lowGbps  float64
	sources  []rateSetter
	// lastDelayPs is the queueing delay of the last packet that left the
	// bottleneck (the plot's queue series).
	lastDelayPs *int64
	stopAtEnd   bool
	deadline    int64

	riseAt, fallAt int64
	phase          int
	maxProb        float64
	trace          []AQMSample
}

// NotifyRecv is unused.
func (o *riseFall) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (o *riseFall) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (o *riseFall) start(ps int64) {
	packet.Schedule(o.engine, o, ps, kindSample, nil, 0)
}

// Handle samples drop_prob.
func (o *riseFall) Handle(e sim.Event) error {
	now := e.(*packet.Event).AtPs()
	p := o.probe.prob()
	o.maxProb = max(o.maxProb, p)
	if o.plot > 0 && now >= o.nextPlot {
		o.trace = append(o.trace, AQMSample{AtS: float64(now-o.startPs) / 1e12, DropProb: p, QueueDelayUs: float64(*o.lastDelayPs) / 1e6})
		o.nextPlot = now + o.plot
	}
	switch {
	case o.phase == 0 && p >= 1:
		o.riseAt, o.phase = now, 1
		for _, s := range o.sources {
			s.SetRateGbps(now, o.lowGbps)
		}
	case o.phase == 1 && p == 0:
		o.fallAt, o.phase = now, 2
		if o.stopAtEnd {
			o.engine.Pause()
			return nil
		}
	}
	if now >= o.deadline {
		o.engine.Pause() // the traffic is over: timers (pktgen, the control plane) need not run on
		return nil
	}
	packet.Schedule(o.engine, o, min(now+o.every, o.deadline), kindSample, nil, 0)
	return nil
}

// result fills a run's rise and fall times.
func (o *riseFall) result(r *PIERun) {
	if o.phase >= 1 {
		v := float64(o.riseAt-o.startPs) / 1e12
		r.RiseS = &v
	}
	if o.phase >= 2 {
		v := float64(o.fallAt-o.riseAt) / 1e12
		r.FallS = &v
	}
	r.MaxDropProb = o.maxProb
	r.Trace = o.trace
}

// runAQM runs a udp-risefall or tcp scenario: the network, the hosts, the
// control plane beside the bottleneck switch, and the observer.
func (s *Scenario) runAQM(spec runSpec) (*Run, error) {
	start := time.Now()
	// The switches run until the traffic's end plus the longest start-up
	// the control plane may take.
	netDeadline := int64((s.DurationUs + maxStartupUs) * 1e6)
	eng := engine.New()
	r := &Run{Scenario: s.Name, Variant: spec.variant.Name, Senders: spec.senders, Params: spec.params, Seed: spec.seed, Value: spec.value, PIERun: &PIERun{}}
	if s.Sweep != nil {
		r.Sweep = s.Sweep.Var
	}
	if s.Pattern.Kind == "pairs" && (s.Sweep == nil || s.Sweep.Var != "senders") {
		// The flows listed, as runNetwork counts them (not the hosts).
		r.Senders = len(s.Pattern.Flows)
	}
	net, _, err := s.buildNetwork(spec, eng, netDeadline)
	if err != nil {
		return nil, err
	}
	// The hosts' packets that a switch drops go back to their pool (at
	// 100 Gb/s into a 10 Gb/s port, nine in ten are dropped).
	// A switch that shares the pool (arch.PacketPooler) recycles them
	// itself, and takes its copies from it.
	hb := hosts.MakeBuilder().WithEngine(eng)
	// The data frames' ledger (UDP frames, TCP data segments): each frame
	// a host sends is delivered, dropped or still in flight at the end
	// (conservation_ok). A frame is never copied, so its first fate is its
	// last and the ledger keeps only the frames around those in flight
	// (hosts.Recorder.FinalFates).
	var rec *hosts.Recorder
	if s.Workload.Kind == "udp-risefall" || s.Workload.Kind == "tcp" {
		rec = hosts.NewRecorder(len(s.Pattern.Flows))
		rec.KeepHeaders, rec.KeepArrivals = false, false
		rec.FinalFates()
		hb = hb.WithRecorder(rec)
	}
	capture, err := s.startPcap(spec, net)
	if err != nil {
		return nil, err
	}
	closeRecords, err := s.streamRecords(spec, rec, eng)
	if err != nil {
		return nil, err
	}
	defer closeRecords()
	var reasons arch.DropCounter
	drop := func(pkt *packet.Packet, reason string) {
		reasons.Add(reason)
		if rec != nil {
			rec.Dropped(pkt.ID, reason)
		}
	}
	for _, sw := range net.switches {
		if p, ok := sw.(arch.PacketPooler); ok {
			p.SetPacketPool(hb.Pool())
			sw.OnDrop(drop)
			continue
		}
		sw.OnDrop(func(pkt *packet.Packet, reason string) {
			drop(pkt, reason)
			hb.Recycle(pkt)
		})
	}
	// A frame a lossy link corrupts is a drop too (it was the hosts'; no
	// switch holds it).
	net.onLinkLoss(s.topology(), func(pkt *packet.Packet, reason string) {
		drop(pkt, reason)
		hb.Recycle(pkt)
	})
	defer func() {
		r.DropReasons = []DropCount{} // a list in the JSON even when empty
		for _, d := range reasons.Sorted() {
			k, n := d.Reason, d.Packets
			r.DropReasons = append(r.DropReasons, DropCount{Reason: k, Packets: n})
			switch {
			case strings.HasPrefix(k, "traffic manager:") || strings.Contains(k, "queue full"):
				r.TailDrops += n
			case strings.Contains(k, "parser reject"):
				// neither: a frame the program cannot parse
			default:
				r.AQMDrops += n
			}
			r.Dropped += n
		}
	}()
	bsw, bport := net.hostPort(s.AQM.Host)
	probe, err := newAQMProbe(spec.variant.AQM, bsw, bport)
	if err != nil {
		return nil, fmt.Errorf("variant %s: %v", spec.variant.Name, err)
	}
	// The control plane starts first; traffic starts when its start-up
	// work (PIE_TABLE's table fill) is installed.
	var startPs int64
	ready := false
	ctl, err := startControl(spec.variant.AQM.Control, bsw, eng, netDeadline, func() {
		ready, startPs = true, packet.SecToPs(eng.CurrentTime())
		eng.Pause()
	})
	if err != nil {
		return nil, fmt.Errorf("variant %s: aqm.control %s: %v", spec.variant.Name, spec.variant.AQM.Control, err)
	}
	if !ready {
		if err := eng.Run(); err != nil {
			return nil, err
		}
		if !ready {
			return nil, fmt.Errorf("variant %s: aqm.control %s: the start-up work did not finish within %g s", spec.variant.Name, spec.variant.AQM.Control, maxStartupUs/1e6)
		}
	}
	r.StartupS = float64(startPs) / 1e12
	probe.base = probe.total()
	deadline := startPs + int64(s.DurationUs*1e6)
	var lastDelay int64
	delays := &stats.Samples{}
	tap := func(pkt *packet.Packet) {
		lastDelay = pkt.DeqDeltaPs
		delays.Add(pkt.DeqDeltaPs)
	}
	hs, err := s.aqmHosts(spec, hb, eng, net, startPs, deadline, tap)
	if err != nil {
		return nil, err
	}
	obs := &riseFall{ComponentBase: sim.NewComponentBase("Net.AQMObserver"), engine: eng, probe: probe, startPs: startPs,
		every: int64(s.AQM.SampleUs * 1e6), plot: int64(s.AQM.PlotUs * 1e6), nextPlot: startPs, lowGbps: s.Workload.LowRateGbps,
		sources: hs.sources, lastDelayPs: &lastDelay, stopAtEnd: s.Workload.Kind == "udp-risefall", deadline: deadline}
	obs.start(startPs)
	if err := eng.Run(); err != nil {
		return nil, err
	}
	if err := s.finishPcap(spec, capture, r); err != nil {
		return nil, err
	}
	if rec != nil {
		if err := rec.Flush(); err != nil {
			return nil, fmt.Errorf("records: %v", err)
		}
	}
	end := packet.SecToPs(eng.CurrentTime())
	obs.result(r.PIERun)
	r.Updates = probe.count()
	if ctl != nil {
		if err := ctl.failed(); err != nil {
			return nil, fmt.Errorf("variant %s: aqm.control %s: %v", spec.variant.Name, spec.variant.AQM.Control, err)
		}
		r.Updates = max(r.Updates, ctl.updates())
		if p := ctl.periodUs(); p > 0 {
			r.CPPeriodUs = &p
		}
	}
	r.FinalDropProb = probe.prob()
	r.QueueDelayUs = quantilesOf(delays, 1e6)
	if delays.N() > 0 {
		for k := 0; k <= 100; k++ {
			r.DelayCDF = append(r.DelayCDF, delays.Quantile(float64(k)/100)/1e6)
		}
	}
	r.SimulatedS = float64(end-startPs) / 1e12
	if end > startPs {
		r.TotalGoodputGbps = float64(hs.goodputBytes()) * 8 / (float64(min(end, deadline)-startPs) / 1e12) / 1e9
	}
	r.PacketsSent = hs.sent()
	if rec != nil {
		// Every frame a switch dropped is one of the sources' (the four
		// counts add up) and none was resolved twice.
		t := rec.Tally()
		dropped := 0
		for _, d := range reasons.Sorted() {
			dropped += d.Packets
		}
		r.DataSent, r.DeliveredFull, r.InFlight = t.DataSent, t.Delivered, t.InFlight
		r.ConservationOK = rec.Late == 0 && rec.Twice == 0 && t.Delivered+t.Dropped+t.InFlight == t.DataSent
		if s.Workload.Kind == "udp-risefall" {
			// Only the sources' frames are dropped, and each was sent
			// (TCP's ACKs may be dropped too, and are not in the ledger;
			// its segment count includes segments due after the deadline,
			// which are never sent).
			r.ConservationOK = r.ConservationOK && t.DataSent == r.PacketsSent && t.Dropped == dropped
		}
	}
	for _, sw := range net.switches {
		r.SwitchHops += sw.Counters().Delivered
	}
	r.Events = eng.Scheduled()
	r.WallMs = float64(time.Since(start).Microseconds()) / 1000
	return r, nil
}
