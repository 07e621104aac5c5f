package experiments

import (
	"archsim/components/link"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/hosts"
	"archsim/components/packet"
	"archsim/job"
	"archsim/programs"
	"archsim/sonic"
	"archsim/sonic/orch"
)

// Run is one simulation: a variant, at one sweep point.
type Run struct {
	Scenario string            `json:"scenario"`
	Variant  string            `json:"variant"`
	Sweep    string            `json:"sweep_var,omitempty"`
	Value    string            `json:"sweep_value,omitempty"`
	Senders  int               `json:"senders"`
	Params   map[string]string `json:"params,omitempty"`
	Seed     int64             `json:"seed"`

	DataSent         int         `json:"data_sent"`
	DeliveredFull    int         `json:"delivered_full"`
	DeliveredTrimmed int         `json:"delivered_trimmed"`
	Dropped          int         `json:"dropped"`
	InFlight         int         `json:"in_flight_at_end"`
	DropReasons      []DropCount `json:"drop_reasons"`
	TrimsIngress     int         `json:"trims_ingress"`
	TrimsDoD         int         `json:"trims_dod"`
	TrimsQueue       int         `json:"trims_queue"` // ideal switch
	TrimsTM          int         `json:"trims_tm"`    // traffic-manager trimming (SONiC)
	Trims            int         `json:"trims"`
	MaxDoDQueue      int         `json:"max_dod_queue_pkts"`
	GoodputGbps      []float64   `json:"goodput_gbps"`
	MeanGoodputGbps  float64     `json:"mean_goodput_gbps"`
	MinGoodputGbps   float64     `json:"min_goodput_gbps"`
	MaxGoodputGbps   float64     `json:"max_goodput_gbps"`
	Events           int64       `json:"events"`
	EventsPerPacket  float64     `json:"events_per_packet"`
	WallMs           float64     `json:"-"`
	ConservationOK   bool        `json:"conservation_ok"`
	Sonic            *SonicRun   `json:"sonic,omitempty"`

	HeadersUs      []float64     `json:"-"`
	Modes          []ModeEvent   `json:"-"`
	Arrivals       []Arrival     `json:"-"`
	Queue          []QueueSample `json:"-"`
	FirstDeflectUs float64       `json:"-"`
	FlowSrc        []int         `json:"-"`
	FlowDst        []int         `json:"-"`
}

// SonicRun is a SONiC switch's trimming counters at the end of a run.
type SonicRun struct {
	Trim     int64 `json:"trim_packets"` // Σ queue trimpacket
	TrimSent int64 `json:"trim_sent"`    // switch trim_sent
	TrimDrop int64 `json:"trim_drop"`    // switch trim_drop
	TxDrops  int64 `json:"tx_drops"`     // Σ queue dropped packets (trimmed originals included)
	// NonTrimQueueDrops and TrimQueueTx are sonic-mgmt's snappi check
	// (T23): drops on every queue but the trim queue against packets the
	// trim queue transmitted.
	NonTrimQueueDrops int64 `json:"non_trim_queue_drops"`
	TrimQueueTx       int64 `json:"trim_queue_tx"`
}

func sonicSummary(c orch.Counters, trimQueue int) *SonicRun {
	sr := &SonicRun{TrimSent: c.Switch.TrimSent, TrimDrop: c.Switch.TrimDrop}
	tq := fmt.Sprintf("UC%d", trimQueue)
	for _, q := range c.Queues {
		sr.Trim += q.Trim
		sr.TxDrops += q.DropPackets
		if q.Queue == tq {
			sr.TrimQueueTx += q.TxPackets
		} else {
			sr.NonTrimQueueDrops += q.DropPackets
		}
	}
	return sr
}

// DropCount is packets dropped for one reason.
type DropCount struct {
	Reason  string `json:"reason"`
	Packets int    `json:"packets"`
}

// ModeEvent is one execution of the traced register action (e.g. a port
// switched to pessimistic mode in a pipe).
type ModeEvent struct {
	AtUs  float64
	Pipe  int
	Index int64
}

// Arrival is a data packet or header reaching a receiver (cbr workloads).
type Arrival struct {
	Flow    int
	Seq     int
	AtUs    float64
	Trimmed bool
	Flags   uint8
}

// QueueSample is the depth of a traced egress queue after a change.
type QueueSample struct {
	AtUs    float64
	Packets int
}

// flows builds the scenario's flows for a number of senders.
func (s *Scenario) flows(senders int) ([]*hosts.Flow, error) {
	p := s.Pattern
	w := s.Workload
	size := w.FlowPackets
	if size <= 0 {
		size = 1 << 20 // longer than any run
	}
	var out []*hosts.Flow
	add := func(src, dst int, startUs float64) {
		n := size
		if i := len(out); p.Kind == "pairs" && i < len(p.Packets) && p.Packets[i] > 0 {
			n = p.Packets[i]
		}
		out = append(out, &hosts.Flow{ID: len(out), Src: src, Dst: dst, Packets: n, StartPs: int64(startUs * 1e6)})
	}
	switch p.Kind {
	case "incast":
		r := max(1, p.Receivers)
		for h := 0; h < senders; h++ {
			add(h, h%r, 0)
		}
	case "mod16":
		for h := 0; h < senders; h++ {
			add(h, h%16, 0)
		}
	case "fanin":
		// Hosts 1..senders all send to host 0 (none sends to itself).
		for h := 1; h <= senders; h++ {
			add(h, 0, 0)
		}
	case "shifted":
		for h := 0; h < senders; h++ {
			add(h, (h%16+1)%16, 0)
		}
	case "pairs":
		for i, f := range p.Flows {
			if len(f) != 2 || f[0] < 0 || f[1] < 0 || f[0] >= s.Hosts || f[1] >= s.Hosts {
				return nil, fmt.Errorf("pattern.flows[%d]: want [src, dst] hosts in 0..%d", i, s.Hosts-1)
			}
			start := 0.0
			if i < len(p.StartsUs) {
				start = p.StartsUs[i]
			}
			add(f[0], f[1], start)
		}
	}
	for _, f := range out {
		if f.Src >= s.Hosts || f.Dst >= s.Hosts {
			return nil, fmt.Errorf("pattern %s with %d senders needs more than %d hosts", p.Kind, senders, s.Hosts)
		}
	}
	return out, nil
}

// sonicConfig is the CONFIG_DB the run's switch gets ("" for none): the
// run's override (--sonic-config) for sonic-l3 variants, else the
// variant's own.
func (sp runSpec) sonicConfig() string {
	if sp.variant.SonicConfig != "" && sp.sonicOverride != "" {
		return sp.sonicOverride
	}
	return sp.variant.SonicConfig
}

// runSpec is one run to do.
type runSpec struct {
	variant Variant
	senders int
	value   string
	params  map[string]string
	seed    int64
	// sonicOverride replaces the sonic_config of sonic-l3 variants.
	sonicOverride string
}

// runOne builds the network and simulates it.
func (s *Scenario) runOne(spec runSpec) (*Run, error) {
	start := time.Now()
	deadline := int64(s.DurationUs * 1e6)
	flows, err := s.flows(spec.senders)
	if err != nil {
		return nil, err
	}
	if s.Pattern.Kind == "pairs" {
		spec.senders = len(flows)
	}
	rec := hosts.NewRecorder(len(flows))
	engine := &packet.CountingEngine{Engine: sim.NewSerialEngine()}
	r := &Run{Scenario: s.Name, Variant: spec.variant.Name, Senders: spec.senders, Params: spec.params, Seed: spec.seed, Value: spec.value}
	if s.Sweep != nil {
		r.Sweep = s.Sweep.Var
	}

	w := s.Workload
	sw, agent, trimQueue, err := s.buildSwitch(spec, engine, deadline)
	if err != nil {
		return nil, err
	}
	sw.OnDrop(func(pkt *packet.Packet, reason string) { rec.Dropped(pkt.ID, reason) })
	if t, ok := sw.(arch.RegisterTracer); ok && s.Trace != "" {
		reg, act, _ := strings.Cut(s.Trace, ".")
		t.TraceRegister(func(unit int, ra *programs.RegisterAction, index int64, now int64) {
			if ra.Name == act && ra.Register.Name == reg {
				r.Modes = append(r.Modes, ModeEvent{AtUs: float64(now) / 1e6, Pipe: unit, Index: index})
			}
		})
	}
	front := sw.FrontPorts()
	if len(front) < s.Hosts {
		return nil, fmt.Errorf("variant %s: %s has %d front-panel ports, the scenario %d hosts", spec.variant.Name, sw.Name(), len(front), s.Hosts)
	}
	portOf := func(h int) int { return front[h] }
	if qt, ok := sw.(arch.QueueTracer); ok {
		sample := func(now int64, pkts int) {
			r.Queue = append(r.Queue, QueueSample{AtUs: float64(now) / 1e6, Packets: pkts})
		}
		if s.TraceQueue != nil {
			qt.TraceQueue(portOf(*s.TraceQueue), 0, sample)
		}
		if s.TraceDoD != nil {
			if err := qt.TraceDeflectQueue(*s.TraceDoD, sample); err != nil {
				return nil, fmt.Errorf("trace_dod_pipe: %v", err)
			}
		}
		r.FirstDeflectUs = -1
		qt.OnDeflect(func(now int64, _ *packet.Packet) {
			if r.FirstDeflectUs < 0 {
				r.FirstDeflectUs = float64(now) / 1e6
			}
		})
	}
	collect := func() {
		c := sw.Counters()
		r.TrimsIngress, r.TrimsDoD, r.TrimsTM, r.TrimsQueue = c.IngressMirrors, c.Deflected+c.DropMirrors, c.TMTrims, c.QueueTrims
		r.MaxDoDQueue = c.MaxDeflectQueue
		if agent != nil {
			r.Sonic = sonicSummary(agent.All(), trimQueue)
		}
	}
	ingress, attach := sw.IngressHandler, sw.Attach
	prop := int64(s.Link.PropNs * 1000)

	cfg := hosts.NDPConfig{NICGbps: s.Link.Gbps, PropPs: prop, MSS: w.MSS, CtrlBytes: w.Ctrl, CtrlDSCP: w.CtrlDSCP,
		InitialWindow: w.Window, PullRateMod: w.PullRate}
	hb := hosts.MakeBuilder().WithEngine(engine).WithRecorder(rec).WithDeadline(deadline)
	var ndps []*hosts.NDPHost
	var cbrs []*hosts.CBRHost
	for h := 0; h < s.Hosts; h++ {
		port := portOf(h)
		name := sim.BuildNameWithIndex("Net", "Host", h)
		if w.Kind == "ndp" {
			host := hb.WithHost(h, port).WithUplink(ingress(port)).BuildNDP(name, cfg)
			ndps = append(ndps, host)
			attach(port, link.To(host, port, prop))
		} else {
			host := hb.WithHost(h, port).WithUplink(ingress(port)).BuildCBR(name, hosts.CBRConfig{NICGbps: s.Link.Gbps, PropPs: prop, MSS: w.MSS, RateGbps: w.RateGbps})
			cbrs = append(cbrs, host)
			attach(port, link.To(host, port, prop))
		}
	}
	for _, f := range flows {
		if w.Kind == "ndp" {
			ndps[f.Src].AddSource(f)
			ndps[f.Dst].AddSink(f)
		} else {
			cbrs[f.Src].AddSource(f)
			cbrs[f.Dst].AddSink(f)
		}
		r.FlowSrc = append(r.FlowSrc, f.Src)
		r.FlowDst = append(r.FlowDst, f.Dst)
	}
	if err := engine.Run(); err != nil {
		return nil, err
	}
	collect()
	r.Trims = r.TrimsIngress + r.TrimsDoD + r.TrimsQueue + r.TrimsTM
	r.account(rec)
	durS := s.DurationUs * 1e-6
	for i := range flows {
		r.GoodputGbps = append(r.GoodputGbps, float64(rec.Goodput[i])*8/durS/1e9)
	}
	r.summarizeGoodput()
	for _, hd := range rec.Headers {
		r.HeadersUs = append(r.HeadersUs, float64(hd.AtPs)/1e6)
	}
	for _, a := range rec.Arrivals {
		r.Arrivals = append(r.Arrivals, Arrival{Flow: a.Flow, Seq: a.Seq, AtUs: float64(a.AtPs) / 1e6, Trimmed: a.Trimmed, Flags: a.Flags})
	}
	r.Events = engine.N
	if r.DataSent > 0 {
		r.EventsPerPacket = float64(r.Events) / float64(r.DataSent)
	}
	r.WallMs = float64(time.Since(start).Microseconds()) / 1000
	return r, nil
}

// account resolves every transmitted data packet to exactly one fate.
func (r *Run) account(rec *hosts.Recorder) {
	reasons := map[string]int{}
	for id := 1; id < len(rec.Fate); id++ {
		if !rec.IsData[id] {
			continue
		}
		r.DataSent++
		switch rec.Fate[id] {
		case hosts.FateDelivered:
			r.DeliveredFull++
		case hosts.FateTrimmed:
			r.DeliveredTrimmed++
		case hosts.FateDropped:
			r.Dropped++
			reasons[rec.Reason[id]]++
		default:
			r.InFlight++
		}
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.DropReasons = append(r.DropReasons, DropCount{k, reasons[k]})
	}
	r.ConservationOK = rec.Twice == 0 && rec.Both == 0 &&
		r.DeliveredFull+r.DeliveredTrimmed+r.Dropped+r.InFlight == r.DataSent
}

func (r *Run) summarizeGoodput() {
	if len(r.GoodputGbps) == 0 {
		return
	}
	r.MinGoodputGbps = r.GoodputGbps[0]
	for _, g := range r.GoodputGbps {
		r.MeanGoodputGbps += g
		r.MinGoodputGbps = min(r.MinGoodputGbps, g)
		r.MaxGoodputGbps = max(r.MaxGoodputGbps, g)
	}
	r.MeanGoodputGbps /= float64(len(r.GoodputGbps))
}

// chipOf is the chip a variant runs on: its chip, or, in the older form,
// its switch (tofino with an optional arch, or ideal).
func (v Variant) chipOf() string {
	switch {
	case v.Chip != "":
		return v.Chip
	case v.Switch == "ideal":
		return "ideal"
	case v.Arch != "":
		return v.Arch
	}
	return "tofino"
}

// buildSwitch loads the variant's chip, compiles its program (if any) and
// builds the switch for the scenario's network, with its SONiC
// configuration programmed if it has one (the agent and the static trim
// queue, -1 if none).
func (s *Scenario) buildSwitch(spec runSpec, engine sim.Engine, deadline int64) (arch.Switch, *orch.Agent, int, error) {
	v := spec.variant
	o := arch.Overrides{Sets: v.Set}
	if v.QueuePackets > 0 {
		o.Knobs = append(o.Knobs, arch.KnobValue{Knob: arch.KnobQueuePackets, Value: fmt.Sprint(v.QueuePackets), Origin: "variant " + v.Name + ": queue_packets"})
	}
	target, err := job.Load(v.chipOf(), o)
	if err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	var prog *programs.Program
	if v.Program != "" {
		if prog, err = programs.Resolve(v.Program, spec.params); err != nil {
			return nil, nil, -1, err
		}
	}
	c, err := target.Compile(prog)
	if err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	if !c.Fits {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, c.Err)
	}
	w := s.Workload
	sw, err := target.Build(arch.BuildSpec{Engine: engine, Compiled: c, Seed: spec.seed, Net: &arch.Net{
		Hosts: s.Hosts, LinkGbps: s.Link.Gbps, MSS: w.MSS, HeaderBytes: w.Ctrl,
		IsHeader: hosts.IsHeader, Trim: func(pkt *packet.Packet) { hosts.Trim(pkt, w.Ctrl) }, DstHost: hosts.DstHost,
	}})
	if err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	sw.SetDeadline(deadline)
	name := spec.sonicConfig()
	if name == "" {
		return sw, nil, -1, nil
	}
	chip, ok := orch.ChipOf(target)
	if !ok {
		return nil, nil, -1, fmt.Errorf("variant %s: a SONiC configuration programs a Tofino switch, not %s", v.Name, target.Name())
	}
	cfg, err := orch.LoadConfig(name, chip)
	if err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	agent, err := orch.Attach(sw)
	if err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	if err := agent.Program(cfg, 0); err != nil {
		return nil, nil, -1, fmt.Errorf("variant %s: %s: %v", v.Name, name, err)
	}
	trimQueue := -1
	if t := cfg.Trimming; t != nil && t.QueueMode == sonic.QueueStatic {
		trimQueue = t.Queue
	}
	return sw, agent, trimQueue, nil
}

// specs expands the scenario into runs: variants x sweep values.
func (s *Scenario) specs(seed int64) ([]runSpec, error) {
	values := []string{""}
	if s.Sweep != nil {
		values = s.Sweep.Values
	}
	var out []runSpec
	paramSweep := s.Sweep != nil && s.Sweep.Var != "senders"
	for vi, val := range values {
		for _, v := range s.Variants {
			if paramSweep && v.Program == "" {
				// A switch without a program has no constants: run it once.
				if vi > 0 {
					continue
				}
				val = ""
			}
			spec := runSpec{variant: v, senders: s.Pattern.Senders, value: val, params: map[string]string{}, seed: seed}
			val = values[vi]
			for _, k := range sortedKeys(v.Params) {
				spec.params[k] = v.Params[k]
			}
			if s.Sweep != nil {
				if s.Sweep.Var == "senders" {
					spec.senders, _ = strconv.Atoi(val)
				} else if v.Program != "" {
					spec.params[s.Sweep.Var] = val
					for _, k := range sortedKeys(s.Sweep.Derived) {
						spec.params[k] = strings.ReplaceAll(s.Sweep.Derived[k], "x", "("+val+")")
					}
				}
			}
			if spec.senders == 0 {
				spec.senders = s.Hosts
			}
			out = append(out, spec)
		}
	}
	return out, nil
}
