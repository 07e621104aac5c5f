package experiments

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/engine"
	"archsim/internal/mkdir"
	"archsim/job"
	"archsim/programs"
	"archsim/sonic"
	"archsim/sonic/orch"
)

// Run is one simulation: a variant, at one sweep point.
type Run struct {
	Scenario string            `json:"scenario"`
	Variant  string            `json:"variant"`
	Sweep    string            `json:"sweep_var"`
	Value    string            `json:"sweep_value"`
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
	// SwitchHops counts packets the switches sent out of a port (data,
	// trimmed headers and control packets alike): the unit of work `bench`
	// rates simulators by.
	SwitchHops     int       `json:"-"`
	ConservationOK bool      `json:"conservation_ok"`
	Sonic          *SonicRun `json:"sonic,omitempty"`
	// PIERun is what the udp-risefall and tcp workloads measure (its keys
	// sit at the top level; absent for other workloads).
	*PIERun
	// ProtegoRun is what a protego-stress run measures (protego.go).
	*ProtegoRun

	HeadersUs      []float64     `json:"-"`
	Modes          []ModeEvent   `json:"-"`
	Arrivals       []Arrival     `json:"-"`
	Queue          []QueueSample `json:"-"`
	FirstDeflectUs float64       `json:"-"`
	FlowSrc        []int         `json:"-"`
	FlowDst        []int         `json:"-"`
	pcapNote       string        // packet capture warning (--pcap)
	outputs        *runOutputs   // the files the run wrote as it went (--pcap, --records)
}

// SonicRun is a SONiC switch's trimming counters at the end of a run.
type SonicRun struct {
	Trim     int64 `json:"trim_packets"` // Σ queue trimpacket
	TrimSent int64 `json:"trim_sent"`    // switch trim_sent
	TrimDrop int64 `json:"trim_drop"`    // switch trim_drop
	TxDrops  int64 `json:"tx_drops"`     // Σ queue dropped packets (trimmed originals included)
	// TrimQueue is the queue trimmed packets go to ("UC4"), or
	// "dynamic" (each packet's own queue).
	TrimQueue string `json:"trim_queue"`
	// NonTrimQueueDrops and TrimQueueTx are sonic-mgmt's snappi check
	// (T23): drops on every queue but the trim queue against packets the
	// trim queue transmitted. With a dynamic trim queue there is no such
	// queue and both are null.
	NonTrimQueueDrops *int64 `json:"non_trim_queue_drops"`
	TrimQueueTx       *int64 `json:"trim_queue_tx"`
}

func sonicSummary(c orch.Counters, trimQueue int) *SonicRun {
	sr := &SonicRun{TrimSent: c.Switch.TrimSent, TrimDrop: c.Switch.TrimDrop, TrimQueue: "dynamic"}
	tq := fmt.Sprintf("UC%d", trimQueue)
	var drops, tx int64
	for _, q := range c.Queues {
		sr.Trim += q.Trim
		sr.TxDrops += q.DropPackets
		if q.Queue == tq {
			tx += q.TxPackets
		} else {
			drops += q.DropPackets
		}
	}
	if trimQueue >= 0 {
		sr.TrimQueue, sr.NonTrimQueueDrops, sr.TrimQueueTx = tq, &drops, &tx
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
	const apartBase = 32 // mod16-apart's first receiver host
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
	case "mod16-apart":
		// mod16 with the receivers on hosts of their own: sender h sends
		// to host 32 + h % 16 (pipe 2 of a Tofino), so no receiver also
		// sends and no sender sends to itself.
		for h := 0; h < senders; h++ {
			add(h, apartBase+h%16, 0)
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
	if p.Kind == "mod16-apart" && senders > apartBase {
		return nil, fmt.Errorf("pattern mod16-apart with %d senders: at most %d (its receivers are hosts %d..%d)", senders, apartBase, apartBase, apartBase+15)
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
	params  map[string]string // what the run reports: the variant's constants and the sweep's
	// sweepParams are the constants the sweep sets (every switch with a
	// program gets them).
	sweepParams map[string]string
	seed        int64
	// sonicOverride replaces the sonic_config of sonic-l3 variants.
	sonicOverride string
	// records is the directory the run's per-packet events go to ("": none).
	records string
	// pcap is the directory the run's packet captures go to ("": none),
	// pcapMax their size limit in bytes (0: pcap.DefaultMaxBytes).
	pcap    string
	pcapMax int64
	// out collects the files the run writes as it goes (set by runOne).
	out *runOutputs
}

// runOne simulates one run of the scenario. A run that fails leaves none
// of the files it writes as it goes (--records, --pcap) behind; a run that
// finishes keeps them with it (Run.outputs) for a command that fails
// later.
func (s *Scenario) runOne(spec runSpec) (r *Run, err error) {
	if spec.out == nil {
		spec.out = &runOutputs{}
	}
	defer func() {
		if err != nil {
			discardOutputs([]*runOutputs{spec.out})
			return
		}
		if r != nil {
			r.outputs = spec.out
		}
	}()
	switch s.Workload.Kind {
	case "udp-risefall", "tcp":
		return s.runAQM(spec)
	case "protego-stress", "protego-fct", "protego-bulk":
		return s.runProtego(spec)
	}
	return s.runNetwork(spec)
}

// runNetwork builds the network of an ndp or cbr workload and simulates
// it.
func (s *Scenario) runNetwork(spec runSpec) (*Run, error) {
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
	// Per-packet records only for the outputs that need them.
	rec.KeepHeaders, rec.KeepArrivals = s.plots("header_cdf"), s.plots("arrivals")
	engine := engine.New()
	closeRecords, err := s.streamRecords(spec, rec, engine)
	if err != nil {
		return nil, err
	}
	defer closeRecords()
	r := &Run{Scenario: s.Name, Variant: spec.variant.Name, Senders: spec.senders, Params: spec.params, Seed: spec.seed, Value: spec.value}
	if s.Sweep != nil {
		r.Sweep = s.Sweep.Var
	}

	w := s.Workload
	net, sonicSw, err := s.buildNetwork(spec, engine, deadline)
	if err != nil {
		return nil, err
	}
	for _, sw := range net.switches {
		sw.OnDrop(func(pkt *packet.Packet, reason string) { rec.Dropped(pkt.ID, reason) })
	}
	net.onLinkLoss(s.topology(), func(pkt *packet.Packet, reason string) { rec.Dropped(pkt.ID, reason) })
	capture, err := s.startPcap(spec, net)
	if err != nil {
		return nil, err
	}
	traced := net.switches[0]
	if t, ok := traced.(arch.RegisterTracer); ok && s.Trace != "" {
		reg, act, _ := strings.Cut(s.Trace, ".")
		t.TraceRegister(func(unit int, ra *programs.RegisterAction, index int64, now int64) {
			if ra.Name == act && ra.Register.Name == reg {
				r.Modes = append(r.Modes, ModeEvent{AtUs: float64(now) / 1e6, Pipe: unit, Index: index})
			}
		})
	}
	if s.TraceQueue != nil {
		traced, _ = net.hostPort(*s.TraceQueue)
	}
	if qt, ok := traced.(arch.QueueTracer); ok {
		sample := func(now int64, pkts int) {
			r.Queue = append(r.Queue, QueueSample{AtUs: float64(now) / 1e6, Packets: pkts})
		}
		if s.TraceQueue != nil {
			_, port := net.hostPort(*s.TraceQueue)
			qt.TraceQueue(port, 0, sample)
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
		for _, sw := range net.switches {
			c := sw.Counters()
			r.TrimsIngress += c.IngressMirrors
			r.TrimsDoD += c.Deflected + c.DropMirrors
			r.TrimsTM += c.TMTrims
			r.TrimsQueue += c.QueueTrims
			r.MaxDoDQueue = max(r.MaxDoDQueue, c.MaxDeflectQueue)
			r.SwitchHops += c.Delivered
		}
		if sonicSw != nil {
			r.Sonic = sonicSummary(sonicSw.agent.All(), sonicSw.trimQueue)
		}
	}
	prop := int64(s.Link.PropNs * 1000)

	cfg := hosts.NDPConfig{PropPs: prop, MSS: w.MSS, CtrlBytes: w.Ctrl, CtrlDSCP: w.CtrlDSCP,
		InitialWindow: w.Window, PullRateMod: w.PullRate, Framing: s.Link.framing()}
	hb := hosts.MakeBuilder().WithEngine(engine).WithRecorder(rec).WithDeadline(deadline)
	// Switches that can share the hosts' packet pool take their copies
	// from it and give it the packets they drop (the drop hook above
	// reads only the id).
	for _, sw := range net.switches {
		if p, ok := sw.(arch.PacketPooler); ok {
			p.SetPacketPool(hb.Pool())
		}
	}
	var ndps []*hosts.NDPHost
	var cbrs []*hosts.CBRHost
	for h := 0; h < s.Hosts; h++ {
		sw, port := net.hostPort(h)
		name := sim.BuildNameWithIndex("Net", "Host", h)
		hb := hb.WithHost(h, port).WithUplink(sw.IngressHandler(port))
		gbps := s.hostGbps(h)
		var host sim.Handler
		if w.Kind == "ndp" {
			cfg.NICGbps = gbps
			nh := hb.BuildNDP(name, cfg)
			ndps, host = append(ndps, nh), nh
		} else {
			ch := hb.BuildCBR(name, hosts.CBRConfig{NICGbps: gbps, PropPs: prop, MSS: w.MSS, RateGbps: w.RateGbps})
			cbrs, host = append(cbrs, ch), ch
		}
		sw.Attach(port, link.To(host, port, prop))
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
	if err := s.finishPcap(spec, capture, r); err != nil {
		return nil, err
	}
	for _, sw := range net.switches {
		if err := arch.FaultOf(sw); err != nil {
			return nil, err
		}
	}
	if err := rec.Flush(); err != nil {
		return nil, fmt.Errorf("records: %v", err)
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
	r.Events = engine.Scheduled()
	if r.DataSent > 0 {
		r.EventsPerPacket = float64(r.Events) / float64(r.DataSent)
	}
	r.WallMs = float64(time.Since(start).Microseconds()) / 1000
	return r, nil
}

// streamRecords streams a run's per-packet events into its records file
// (--records; nothing without it); close closes the file.
func (s *Scenario) streamRecords(spec runSpec, rec *hosts.Recorder, eng sim.Engine) (close func(), err error) {
	if spec.records == "" || rec == nil {
		return func() {}, nil
	}
	f, err := s.recordsFile(spec)
	if err != nil {
		return nil, err
	}
	if err := rec.Stream(f, func() int64 { return packet.SecToPs(eng.CurrentTime()) }); err != nil {
		f.Close()
		return nil, fmt.Errorf("records: %v", err)
	}
	return func() { f.Close() }, nil
}

// recordsFile creates the file a run's per-packet events go to.
func (s *Scenario) recordsFile(spec runSpec) (*os.File, error) {
	made, err := mkdir.All(spec.records)
	if err != nil {
		return nil, fmt.Errorf("records: %v", err)
	}
	spec.out.made = append(spec.out.made, made...)
	f, err := os.Create(s.recordsPath(spec))
	if err != nil {
		return nil, fmt.Errorf("records: %v", err)
	}
	spec.out.records = f.Name()
	return f, nil
}

// plots reports whether the scenario draws a plot of this kind.
func (s *Scenario) plots(kind string) bool {
	for _, p := range s.Plots {
		if p.Kind == kind {
			return true
		}
	}
	return false
}

// account resolves every transmitted data packet to exactly one fate.
func (r *Run) account(rec *hosts.Recorder) {
	t := rec.Tally()
	r.DataSent, r.DeliveredFull, r.DeliveredTrimmed, r.Dropped, r.InFlight = t.DataSent, t.Delivered, t.Trimmed, t.Dropped, t.InFlight
	reasons := t.DropReasons
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	r.DropReasons = []DropCount{} // a list in the JSON even when empty
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

// sonicSwitch is the switch a SONiC configuration programmed: its agent and
// the static trim queue (-1 if none).
type sonicSwitch struct {
	agent     *orch.Agent
	trimQueue int
}

// buildSwitch loads a switch's chip, compiles its program (if any) and
// builds it for its place in the network, with the run's SONiC
// configuration programmed if it runs sonic-l3.
func (s *Scenario) buildSwitch(spec runSpec, setup SwitchSetup, name string, engine sim.Engine, deadline int64, net *arch.Net) (arch.Switch, *sonicSwitch, error) {
	v := spec.variant
	o := arch.Overrides{Sets: setup.Set}
	if setup.QueuePackets > 0 {
		o.Knobs = append(o.Knobs, arch.KnobValue{Knob: arch.KnobQueuePackets, Value: fmt.Sprint(setup.QueuePackets), Origin: "variant " + v.Name + ": queue_packets"})
	}
	target, err := job.Load(setup.Chip, o)
	if err != nil {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	var prog *programs.Program
	if setup.Program != "" {
		params := map[string]string{}
		for k, val := range setup.Params {
			params[k] = val
		}
		for k, val := range spec.sweepParams {
			params[k] = val
		}
		if prog, err = s.checkedProgram(setup.Program, params); err != nil {
			return nil, nil, err
		}
	}
	c, err := target.Compile(prog)
	if err != nil {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	if !c.Fits {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, c.Err)
	}
	sw, err := target.Build(arch.BuildSpec{Engine: engine, Compiled: c, Seed: spec.seed, Name: name, Net: net})
	if err != nil {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	sw.SetDeadline(deadline)
	cfgName := spec.sonicConfig()
	if cfgName == "" || setup.Program != orch.Program {
		return sw, nil, nil
	}
	chip, ok := orch.ChipOf(target)
	if !ok {
		return nil, nil, fmt.Errorf("variant %s: a SONiC configuration programs a Tofino switch, not %s", v.Name, target.Name())
	}
	cfg, err := orch.LoadConfig(cfgName, chip)
	if err != nil {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	agent, err := orch.Attach(sw)
	if err != nil {
		return nil, nil, fmt.Errorf("variant %s: %v", v.Name, err)
	}
	if err := agent.Program(cfg, 0); err != nil {
		return nil, nil, fmt.Errorf("variant %s: %s: %v", v.Name, cfgName, err)
	}
	ss := &sonicSwitch{agent: agent, trimQueue: -1}
	if t := cfg.Trimming; t != nil && t.QueueMode == sonic.QueueStatic {
		ss.trimQueue = t.Queue
	}
	return sw, ss, nil
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
			if paramSweep && !v.runsProgram() {
				// A switch without a program has no constants: run it once.
				if vi > 0 {
					continue
				}
				val = ""
			}
			spec := runSpec{variant: v, senders: s.Pattern.Senders, value: val, params: map[string]string{}, sweepParams: map[string]string{}, seed: seed}
			val = values[vi]
			for _, k := range sortedKeys(v.Params) {
				spec.params[k] = v.Params[k]
			}
			if s.Sweep != nil {
				if s.Sweep.Var == "senders" {
					spec.senders, _ = strconv.Atoi(val)
				} else if v.runsProgram() {
					spec.sweepParams[s.Sweep.Var] = val
					for _, k := range sortedKeys(s.Sweep.Derived) {
						spec.sweepParams[k] = sweepX.ReplaceAllLiteralString(s.Sweep.Derived[k], "("+val+")")
					}
					for k, x := range spec.sweepParams {
						spec.params[k] = x
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
