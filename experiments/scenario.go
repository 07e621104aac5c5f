// Package experiments runs network scenarios: a modelled switch (Tofino
// with a program, or the ideal trimming switch) with hosts on its ports,
// traffic from a pattern, variants side by side and sweeps over a
// parameter; it writes summaries, CSV and PNG plots.
package experiments

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"archsim/arch"
	_ "archsim/arch/chips" // the chips variants name
	"archsim/arch/ideal"
	"archsim/components/hosts"
	"archsim/components/packet"
	"archsim/configs"
	"archsim/internal/yamlfile"
	"archsim/programs"
)

// Scenario is one experiment, read from configs/scenarios/NAME.yaml.
type Scenario struct {
	Name       string    `yaml:"scenario"`
	Doc        string    `yaml:"doc"`
	Source     string    `yaml:"source"`
	Seed       int64     `yaml:"seed"`
	DurationUs float64   `yaml:"duration_us"`
	Hosts      int       `yaml:"hosts"`
	Topology   *Topology `yaml:"topology"` // several switches joined by links (default: one switch with every host)
	Link       Link      `yaml:"link"`
	Workload   Workload  `yaml:"workload"`
	Pattern    Pattern   `yaml:"pattern"`
	Sweep      *Sweep    `yaml:"sweep"`
	Variants   []Variant `yaml:"variants"`
	Plots      []Plot    `yaml:"plots"`
	Trace      string    `yaml:"trace_register"` // register action to trace, e.g. t0_reg.arm
	TraceQueue *int      `yaml:"trace_queue"`    // host whose egress data queue (qid 0) depth is recorded
	TraceDoD   *int      `yaml:"trace_dod_pipe"` // pipe whose deflect-on-drop queue depth is recorded instead
	// AQM names the bottleneck queue whose active queue management the
	// udp-risefall and tcp workloads observe (pie.go).
	AQM *AQMSetup `yaml:"aqm"`
	// Protego names the protected link of a protego-stress run (protego.go).
	Protego *ProtegoSetup `yaml:"protego"`
	file    string
	ix      *yamlIndex // lines of the fields, for errors
	// checked holds the programs loaded for the scenario, by program and
	// constants: Preflight, Estimate and every run share them (a Program
	// is read only once loaded; a run's state and compiled code are its
	// own). Runs in parallel use it, hence the lock.
	checked *programMemo
	// variantAt is, after KeepVariant, the kept variant's index in the
	// file (for errors' FILE:LINE and paths).
	variantAt map[string]int
}

// programMemo is a scenario's loaded programs, safe for use by runs in
// parallel.
type programMemo struct {
	mu    sync.Mutex
	progs map[string]*programs.Program
}

// Link is the host links' rate and one-way propagation delay, and what
// they send per frame besides the frame.
type Link struct {
	Gbps   float64 `yaml:"gbps"`
	PropNs float64 `yaml:"prop_ns"`
	// Framing: "ethernet" (the default: FCS, preamble and inter-frame gap,
	// 24 bytes per frame; a data packet's payload is the frame less the
	// modelled Ethernet/IP/UDP/NDP headers) or "htsim" (htsim's links: a
	// packet holds the link for its size alone, and a data packet's
	// payload is its size less htsim's 64-byte NDP header). htsim framing
	// applies to every link of the network, switches' ports included; it
	// is for the NDP workload on ideal and Tofino switches, reproducing
	// the trimming paper's simulated experiments.
	Framing string `yaml:"framing"`
}

// framing is the links' framing (validate has checked the name).
func (l Link) framing() packet.Framing {
	if l.Framing == packet.Bare.String() {
		return packet.Bare
	}
	return packet.Ethernet
}

// Workload is what the hosts run.
type Workload struct {
	Kind        string  `yaml:"kind"` // ndp, cbr, udp-risefall or tcp
	MSS         int     `yaml:"mss"`
	Ctrl        int     `yaml:"ctrl"`
	Window      int     `yaml:"window"`
	FlowPackets int     `yaml:"flow_packets"`
	PullRate    float64 `yaml:"pull_rate"`
	CtrlDSCP    int     `yaml:"ctrl_dscp"` // DSCP of ACK/NACK/PULL packets (a SONiC switch queues them by DSCP)
	RateGbps    float64 `yaml:"rate_gbps"` // cbr senders; udp-risefall: the overload rate
	// LowRateGbps is the udp-risefall source's rate once drop_prob first
	// reaches 100 %.
	LowRateGbps float64 `yaml:"low_rate_gbps"`
	// FrameBytes is the udp-risefall source's frame length (at most
	// maxUDPFrameBytes).
	FrameBytes int `yaml:"frame_bytes"`
	// HostDelayUs is a tcp host's stack delay, each way (the base RTT);
	// protego-fct: the TCP stack's or the RDMA NIC's delay per frame sent.
	HostDelayUs float64 `yaml:"host_delay_us"`
	// protego-fct (protego_fct.go): the transport (dctcp, cubic, rdma),
	// the flows' size, how many (0: until duration_us), how many loops
	// run at once and their gap between flows, TCP's minimum RTO (0:
	// configs/tcp.yaml's) and the handshake's RTT sample.
	Transport string  `yaml:"transport"`
	FlowBytes int     `yaml:"flow_bytes"`
	Flows     int     `yaml:"flows"`
	Parallel  int     `yaml:"parallel"`
	GapUs     float64 `yaml:"gap_us"`
	RTOMinMs  float64 `yaml:"rto_min_ms"`
	SynRTTUs  float64 `yaml:"syn_rtt_us"`
}

// checkSections refuses the sections and keys only other workloads read
// (each would be ignored without a word): aqm outside the PIE workloads,
// protego outside Protego's, the traces outside ndp and cbr runs, a
// senders sweep where the flows are listed pairs (except tcp, whose
// senders are connections).
func (s *Scenario) checkSections() error {
	k := s.Workload.Kind
	pie := k == "udp-risefall" || k == "tcp"
	protego := strings.HasPrefix(k, "protego-")
	traced := k == "ndp" || k == "cbr"
	switch {
	case s.AQM != nil && !pie:
		return fieldErr("aqm", "only the udp-risefall and tcp workloads have a bottleneck AQM (workload.kind is %s)", k)
	case s.Protego != nil && !protego:
		return fieldErr("protego", "only the protego-* workloads have a protected link (workload.kind is %s)", k)
	case s.Trace != "" && !traced:
		return fieldErr("trace_register", "only ndp and cbr runs trace a register (workload.kind is %s)", k)
	case s.TraceQueue != nil && !traced:
		return fieldErr("trace_queue", "only ndp and cbr runs trace a queue (workload.kind is %s)", k)
	case s.TraceDoD != nil && !traced:
		return fieldErr("trace_dod_pipe", "only ndp and cbr runs trace a queue (workload.kind is %s)", k)
	case s.Sweep != nil && s.Sweep.Var == "senders" && s.Pattern.Kind == "pairs" && k != "tcp":
		return fieldErr("sweep.var", "senders does not change a run whose pattern lists its flows (kind pairs); sweep a program constant")
	}
	for i, v := range s.Variants {
		switch {
		case v.AQM != nil && !pie:
			return fieldErr(fmt.Sprintf("variants[%d].aqm", i), "only the udp-risefall and tcp workloads have a bottleneck AQM (workload.kind is %s)", k)
		case v.Protego != nil && !protego:
			return fieldErr(fmt.Sprintf("variants[%d].protego", i), "only the protego-* workloads have a protected link (workload.kind is %s)", k)
		}
	}
	return nil
}

// workloadFields are the workload keys each kind reads (besides kind).
var workloadFields = map[string][]string{
	"ndp":            {"mss", "ctrl", "window", "flow_packets", "pull_rate", "ctrl_dscp"},
	"cbr":            {"mss", "flow_packets", "rate_gbps"},
	"udp-risefall":   {"rate_gbps", "low_rate_gbps", "frame_bytes"},
	"tcp":            {"mss", "host_delay_us"},
	"protego-stress": {"rate_gbps", "frame_bytes"},
	"protego-fct":    {"transport", "flow_bytes", "flows", "parallel", "gap_us", "host_delay_us", "rto_min_ms", "syn_rtt_us"},
	"protego-bulk":   {"transport", "host_delay_us", "rto_min_ms", "syn_rtt_us"},
}

// checkFields refuses a workload key its kind does not read (a window
// given to a UDP source would otherwise be ignored without a word). A
// kind that is not known is left to the kind's own check.
func (w Workload) checkFields() error {
	used, ok := workloadFields[w.Kind]
	if !ok {
		return nil
	}
	v := reflect.ValueOf(w)
	for i := 0; i < v.NumField(); i++ {
		key := v.Type().Field(i).Tag.Get("yaml")
		if key == "kind" || v.Field(i).IsZero() || slices.Contains(used, key) {
			continue
		}
		return fieldErr("workload."+key, "not used by kind %s (its keys: %s)", w.Kind, strings.Join(used, ", "))
	}
	return nil
}

// Pattern says who sends to whom.
type Pattern struct {
	Kind      string    `yaml:"kind"` // incast, mod16, mod16-apart, shifted, fanin, pairs
	Senders   int       `yaml:"senders"`
	Receivers int       `yaml:"receivers"`
	Flows     [][]int   `yaml:"flows"`     // pairs: [src, dst]
	StartsUs  []float64 `yaml:"starts_us"` // pairs: start time of each flow
	Packets   []int     `yaml:"packets"`   // pairs: size of each flow in packets (default: the workload's)
}

// Sweep runs the scenario once per value of a variable: "senders" or a
// program constant (e.g. T0_NS), which every Tofino variant gets.
type Sweep struct {
	Var    string   `yaml:"var"`
	Values []string `yaml:"values"`
	// Derived sets other program constants from the swept value, e.g.
	// T1_NS: "4 * x".
	Derived map[string]string `yaml:"derived"`
}

// Variant is one switch setup compared in the scenario.
type Variant struct {
	Name         string            `yaml:"name"`
	Chip         string            `yaml:"chip"`   // a registered chip (archsim list)
	Switch       string            `yaml:"switch"` // older form: tofino (with arch) or ideal
	Arch         string            `yaml:"arch"`
	Program      string            `yaml:"program"`
	Params       map[string]string `yaml:"params"`
	Set          []string          `yaml:"set"`
	QueuePackets int               `yaml:"queue_packets"` // ideal switch data queue (x MSS bytes)
	SonicConfig  string            `yaml:"sonic_config"`  // tofino running sonic-l3: CONFIG_DB file or configs/sonic name
	// Switches gives a topology's switches their own chip and program,
	// replacing the variant's (by switch name).
	Switches map[string]SwitchSetup `yaml:"switches"`
	// AQM says where the bottleneck switch's program keeps its drop
	// probability and which control-plane program runs beside it (pie.go).
	AQM *VariantAQM `yaml:"aqm"`
	// Protego is how the variant runs Protego (protego.go).
	Protego *VariantProtego `yaml:"protego"`
}

// runsProgram reports whether any switch of the variant runs a program.
func (v Variant) runsProgram() bool {
	if v.Program != "" {
		return true
	}
	for _, o := range v.Switches {
		if o.Program != "" {
			return true
		}
	}
	return false
}

// Plot is one figure the scenario draws.
type Plot struct {
	Kind  string `yaml:"kind"` // header_cdf, sweep, modes, arrivals, queue
	Y     string `yaml:"y"`    // sweep: any numeric run key (mean_goodput_gbps, trims, max_dod_queue_pkts, ...)
	Title string `yaml:"title"`
	File  string `yaml:"file"`
	// Value restricts the plot to the runs at one sweep value.
	Value string `yaml:"value"`
	// WindowUs (modes): draw each arm as the window it opens, merged per
	// port, instead of a dot per arm.
	WindowUs float64 `yaml:"window_us"`
	// Variant restricts a delay_cdf plot to one variant's runs (a line per
	// sweep value).
	Variant string `yaml:"variant"`
}

// Load reads a scenario by name (configs/scenarios) or path.
func Load(nameOrPath string) (*Scenario, error) {
	var data []byte
	var err error
	file := nameOrPath
	if strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml") || strings.ContainsRune(nameOrPath, '/') {
		data, err = os.ReadFile(nameOrPath)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read scenario: %v", nameOrPath, err)
		}
	} else {
		data, err = configs.Read("scenarios/" + nameOrPath + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("unknown scenario %q (scenarios: %s)", nameOrPath, strings.Join(configs.Scenarios(), ", "))
		}
		file = "configs/scenarios/" + nameOrPath + ".yaml"
	}
	ix, err := newYAMLIndex(file, data)
	if err != nil {
		return nil, err
	}
	if err := yamlfile.OneDocument(data, file); err != nil {
		return nil, err
	}
	if o := yamlfile.OctalInt(ix.root); o != nil {
		return nil, yamlfile.OctalIntError(file, o)
	}
	s := &Scenario{file: file, ix: ix, checked: &programMemo{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		return nil, ix.decodeError(err, reflect.TypeOf(s))
	}
	if err := checkNumbers(ix.root, reflect.TypeOf(s), ""); err != nil {
		return nil, ix.locate(err)
	}
	if err := s.validate(); err != nil {
		return nil, ix.locate(err)
	}
	return s, nil
}

// maxUDPFrameBytes is the longest frame a UDP source sends: an IP packet
// of at most 9000 bytes (components/hosts) behind a 14-byte Ethernet
// header.
const maxUDPFrameBytes = 9000 + 14

// Bounds on what a scenario may ask for. Each keeps one run's memory and
// event count within what a workstation simulates in minutes; the README
// lists them (section "Limits").
const (
	MaxDurationUs   = 1e6                   // 1 s of simulated time (assumed: minutes of wall time at 100 Gb/s x 64 hosts)
	MaxHosts        = 64                    // one Tofino pipe group's front-panel ports in the modelled chips
	MaxLinkGbps     = 1600                  // above any Ethernet rate standardised today (IEEE 802.3dj: 1.6 Tb/s)
	MinGbps         = 0.001                 // 1 Mb/s, the chips' floor for a port (port_gbps in configs/); slower rates overflow the time arithmetic
	MaxPropNs       = 1e6                   // 1 ms one way: 200 km of fibre, far beyond a data centre
	MaxWindow       = 100000                // initial window in packets (assumed; htsim runs use ≤ 1000)
	MaxFlowPackets  = 1 << 20               // a flow's packets; 0 means "longer than the run", which is this
	MaxQueuePackets = ideal.MaxQueuePackets // an ideal switch queue (x MSS bytes); the chip's own bound
	MaxSweepValues  = 1000                  // runs per variant
	MaxVariants     = 100
	MaxFlows        = 4096 // pairs: explicit flows
)

// given reports whether the scenario file sets a field (a missing field
// is reported as missing, not as its zero value).
func (s *Scenario) given(path string) bool { return s.ix == nil || s.ix.has(path) }

// gives reports whether the scenario's file is known to set a field (false
// for a scenario that was not read from a file, e.g. a shard's copy).
func (s *Scenario) gives(path string) bool { return s.ix != nil && s.ix.has(path) }

// need is the error for a field outside its range: "missing" when the
// file does not give it.
func (s *Scenario) need(path, allowed string, got any) error {
	if !s.given(path) {
		return fieldErr(path, "missing (allowed: %s)", allowed)
	}
	return fieldErr(path, "got %v (allowed: %s)", got, allowed)
}

func (s *Scenario) validate() error {
	switch {
	case s.Name == "":
		return s.need("scenario", "a name", `""`)
	case s.DurationUs <= 0 || s.DurationUs > s.maxDurationUs():
		return s.need("duration_us", "0 < duration_us ≤ "+bound(s.maxDurationUs()), s.DurationUs)
	case s.Hosts < 1 || s.Hosts > MaxHosts:
		return s.need("hosts", fmt.Sprintf("1..%d", MaxHosts), s.Hosts)
	case !rateOK(s.Link.Gbps, false, MaxLinkGbps):
		return s.need("link.gbps", fmt.Sprintf("%g ≤ gbps ≤ %d", MinGbps, MaxLinkGbps), s.Link.Gbps)
	case s.Link.PropNs < 0 || s.Link.PropNs > MaxPropNs:
		return s.need("link.prop_ns", "0..1e6", s.Link.PropNs)
	case s.Link.Framing != "" && s.Link.Framing != packet.Ethernet.String() && s.Link.Framing != packet.Bare.String():
		return fieldErr("link.framing", "got %q (allowed: ethernet, htsim)", s.Link.Framing)
	case s.Link.framing() == packet.Bare && s.Workload.Kind != "ndp":
		return fieldErr("link.framing", "htsim framing models htsim's NDP packets: workload.kind must be ndp, got %q", s.Workload.Kind)
	case s.Link.framing() == packet.Bare && s.Workload.MSS <= hosts.HtsimHeaderLen:
		return fieldErr("workload.mss", "got %d (allowed with htsim framing: > %d, htsim's NDP header)", s.Workload.MSS, hosts.HtsimHeaderLen)
	case len(s.Variants) == 0:
		return fieldErr("variants", "missing (allowed: a list of 1..%d switch setups)", MaxVariants)
	case len(s.Variants) > MaxVariants:
		return fieldErr("variants", "%d variants (allowed: 1..%d)", len(s.Variants), MaxVariants)
	}
	topo := s.topology()
	if err := topo.validate(s.Hosts); err != nil {
		return err
	}
	if err := s.Workload.checkFields(); err != nil {
		return err
	}
	w := s.Workload
	mss := func() error {
		if w.MSS < 64 || w.MSS > 9216 {
			return s.need("workload.mss", "64..9216 bytes", w.MSS)
		}
		if w.FlowPackets < 0 || w.FlowPackets > MaxFlowPackets {
			return s.need("workload.flow_packets", fmt.Sprintf("0..%d (0: longer than the run)", MaxFlowPackets), w.FlowPackets)
		}
		return nil
	}
	switch w.Kind {
	case "ndp":
		if err := mss(); err != nil {
			return err
		}
		switch {
		case w.Ctrl < 64 || w.Ctrl > 9216:
			return s.need("workload.ctrl", "64..9216 bytes", w.Ctrl)
		case w.Ctrl >= w.MSS:
			return fieldErr("workload.ctrl", "got %d (allowed: 64..mss-1 = %d: a header is shorter than the data frame it is trimmed from)", w.Ctrl, w.MSS-1)
		case w.Window < 1 || w.Window > MaxWindow:
			return s.need("workload.window", fmt.Sprintf("1..%d packets", MaxWindow), w.Window)
		case w.PullRate <= 0 || w.PullRate > 10:
			return s.need("workload.pull_rate", "0 < pull_rate ≤ 10", w.PullRate)
		case w.CtrlDSCP < 0 || w.CtrlDSCP > 63:
			return s.need("workload.ctrl_dscp", "0..63", w.CtrlDSCP)
		}
	case "cbr":
		if err := mss(); err != nil {
			return err
		}
		if !rateOK(w.RateGbps, false, MaxLinkGbps) {
			return s.need("workload.rate_gbps", fmt.Sprintf("%g ≤ rate_gbps ≤ %d", MinGbps, MaxLinkGbps), w.RateGbps)
		}
	case "udp-risefall", "tcp":
		if err := s.validateAQM(); err != nil {
			return err
		}
	case "protego-stress", "protego-fct", "protego-bulk":
		if err := s.validateProtego(); err != nil {
			return err
		}
	default:
		return s.need("workload.kind", "ndp, cbr, udp-risefall, tcp, protego-stress, protego-fct, protego-bulk", strconv.Quote(w.Kind))
	}
	p := s.Pattern
	switch p.Kind {
	case "incast", "mod16", "mod16-apart", "shifted", "pairs", "fanin":
	default:
		return s.need("pattern.kind", "incast, mod16, mod16-apart, shifted, fanin, pairs", strconv.Quote(p.Kind))
	}
	if s.Workload.Kind == "tcp" {
		// senders are the connections of the pattern's one pair, as in a
		// sweep over them.
		if p.Senders < 0 || p.Senders > maxConnections {
			return s.need("pattern.senders", fmt.Sprintf("0..%d connections (tcp: 0 is one per host)", maxConnections), p.Senders)
		}
	} else if p.Senders < 0 || p.Senders > s.Hosts {
		return s.need("pattern.senders", fmt.Sprintf("0..%d (0: every host)", s.Hosts), p.Senders)
	}
	if p.Receivers < 0 || p.Receivers > s.Hosts {
		return s.need("pattern.receivers", fmt.Sprintf("0..%d", s.Hosts), p.Receivers)
	}
	switch {
	case p.Receivers > 0 && p.Kind != "incast":
		return fieldErr("pattern.receivers", "given for pattern %s (allowed: with kind incast only; the others fix their receivers)", p.Kind)
	case p.Senders > 0 && p.Kind == "pairs" && s.Workload.Kind != "tcp":
		return fieldErr("pattern.senders", "given for pattern pairs (allowed: with the other kinds, and tcp's connections; pairs' flows list their senders)")
	}
	if len(p.Flows) > MaxFlows {
		return fieldErr("pattern.flows", "%d flows (allowed: ≤ %d)", len(p.Flows), MaxFlows)
	}
	if p.Kind == "pairs" {
		// starts_us and packets are per flow, in flows' order.
		switch {
		case len(p.Flows) == 0:
			return s.need("pattern.flows", "a list of [src, dst] hosts, one per flow", "[]")
		case len(p.StartsUs) > 0 && len(p.StartsUs) != len(p.Flows):
			return fieldErr("pattern.starts_us", "%d values for %d flows (allowed: none, or one per flow)", len(p.StartsUs), len(p.Flows))
		case len(p.Packets) > 0 && len(p.Packets) != len(p.Flows):
			return fieldErr("pattern.packets", "%d values for %d flows (allowed: none, or one per flow)", len(p.Packets), len(p.Flows))
		}
	} else {
		for _, g := range []struct {
			key string
			n   int
		}{{"flows", len(p.Flows)}, {"starts_us", len(p.StartsUs)}, {"packets", len(p.Packets)}} {
			if g.n > 0 {
				return fieldErr("pattern."+g.key, "given for pattern %s (allowed: with kind pairs only)", p.Kind)
			}
		}
	}
	for i, st := range p.StartsUs {
		if st < 0 || st > s.DurationUs {
			return fieldErr(fmt.Sprintf("pattern.starts_us[%d]", i), "got %g (allowed: 0..duration_us = %g)", st, s.DurationUs)
		}
	}
	for i, n := range p.Packets {
		if n < 0 || n > MaxFlowPackets {
			return fieldErr(fmt.Sprintf("pattern.packets[%d]", i), "got %d (allowed: 0..%d; 0: the workload's)", n, MaxFlowPackets)
		}
	}
	names := map[string]bool{}
	files := map[string]string{} // a run's files are named after its variant (fileSafe)
	for i, v := range s.Variants {
		at := fmt.Sprintf("variants[%d]", i)
		if v.Name == "" || names[v.Name] {
			return fieldErr(at+".name", "missing or duplicate name %q", v.Name)
		}
		names[v.Name] = true
		if other, ok := files[fileSafe(v.Name)]; ok {
			return fieldErr(at+".name", "%q and %q name the same files (%s); rename one", other, v.Name, fileSafe(v.Name))
		}
		files[fileSafe(v.Name)] = v.Name
		switch {
		case v.Chip != "" && (v.Switch != "" || v.Arch != ""):
			return fieldErr(at+".chip", "give chip, or the older switch/arch, not both")
		case v.Chip != "":
		case v.Switch == "tofino":
			if v.Program == "" {
				return fieldErr(at+".program", "missing (a tofino variant needs a program)")
			}
		case v.Switch == "ideal":
			if v.QueuePackets < 1 {
				return s.need(at+".queue_packets", fmt.Sprintf("1..%d", MaxQueuePackets), v.QueuePackets)
			}
		default:
			return s.need(at+".switch", "tofino, ideal; or give chip: one of "+arch.Names(), strconv.Quote(v.Switch))
		}
		if _, err := arch.Lookup(v.chipOf()); err != nil {
			return fieldErr(at+".chip", "%v", err)
		}
		if err := s.checkFraming(at, v); err != nil {
			return err
		}
		if v.QueuePackets < 0 || v.QueuePackets > MaxQueuePackets || (v.QueuePackets == 0 && s.gives(at+".queue_packets")) {
			return s.need(at+".queue_packets", fmt.Sprintf("1..%d, or omitted for the chip's", MaxQueuePackets), v.QueuePackets)
		}
		if err := s.checkIdealQueue(at+".queue_packets", v.chipOf(), v.QueuePackets); err != nil {
			return err
		}
		if (v.Program == "sonic-l3") != (v.SonicConfig != "") {
			return fieldErr(at+".sonic_config", "the sonic-l3 program and sonic_config go together")
		}
		if err := checkProgramName(at+".program", v.Program); err != nil {
			return err
		}
		for _, name := range sortedKeys(v.Switches) {
			o := v.Switches[name]
			sat := at + ".switches." + name
			if topo.index(name) < 0 {
				return fieldErr(sat, "no switch %q in the topology (allowed: %s)", name, topo.names())
			}
			if o.Chip == "" {
				return fieldErr(sat+".chip", "missing")
			}
			if _, err := arch.Lookup(o.Chip); err != nil {
				return fieldErr(sat+".chip", "%v", err)
			}
			if o.QueuePackets < 0 || o.QueuePackets > MaxQueuePackets || (o.QueuePackets == 0 && s.gives(sat+".queue_packets")) {
				return fieldErr(sat+".queue_packets", "got %d (allowed: 1..%d, or omitted for the chip's)", o.QueuePackets, MaxQueuePackets)
			}
			if err := s.checkIdealQueue(sat+".queue_packets", o.Chip, o.QueuePackets); err != nil {
				return err
			}
			if err := checkProgramName(sat+".program", o.Program); err != nil {
				return err
			}
		}
	}
	if s.Sweep != nil {
		if len(s.Sweep.Values) == 0 || len(s.Sweep.Values) > MaxSweepValues {
			return fieldErr("sweep.values", "%d values (allowed: 1..%d)", len(s.Sweep.Values), MaxSweepValues)
		}
		for i, v := range s.Sweep.Values {
			if j := slices.IndexFunc(s.Sweep.Values, func(w string) bool { return sameSweepValue(s.Sweep.Var, v, w) }); j < i {
				return fieldErr(fmt.Sprintf("sweep.values[%d]", i), "%q is also sweep.values[%d] (each value runs once)", v, j)
			}
		}
		if s.Sweep.Var != "senders" {
			// The sweep sets its constant (and the derived ones) in every
			// switch's program at each point: a variant's own value
			// would never be used.
			swept := append([]string{s.Sweep.Var}, sortedKeys(s.Sweep.Derived)...)
			for i, v := range s.Variants {
				at := fmt.Sprintf("variants[%d]", i)
				sets := map[string]map[string]string{at + ".params": v.Params}
				for _, name := range sortedKeys(v.Switches) {
					sets[at+".switches."+name+".params"] = v.Switches[name].Params
				}
				for _, path := range sortedKeys(sets) {
					for _, k := range swept {
						if _, ok := sets[path][k]; ok {
							return fieldErr(path+"."+k, "the sweep sets %s at each of its values, so this one would never be used", k)
						}
					}
				}
			}
		}
		switch {
		case s.Sweep.Var == "":
			return s.need("sweep.var", "senders, or a program constant such as T0_NS", `""`)
		case s.Sweep.Var == "senders" && len(s.Sweep.Derived) > 0:
			return fieldErr("sweep.derived", "derived constants follow a swept program constant, not senders")
		}
		for _, k := range sortedKeys(s.Sweep.Derived) {
			if !sweepX.MatchString(s.Sweep.Derived[k]) {
				return fieldErr("sweep.derived."+k, "%q does not use x, the swept value", s.Sweep.Derived[k])
			}
		}
		if s.Sweep.Var == "senders" {
			most := s.Hosts
			if s.Workload.Kind == "tcp" {
				most = maxConnections // senders are connections
			}
			for i, v := range s.Sweep.Values {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > most {
					return fieldErr(fmt.Sprintf("sweep.values[%d]", i), "senders value %q must be 1..%d", v, most)
				}
			}
		}
	}
	if err := s.checkSections(); err != nil {
		return err
	}
	if s.TraceQueue != nil && (*s.TraceQueue < 0 || *s.TraceQueue >= s.Hosts) {
		return fieldErr("trace_queue", "host %d out of range (allowed: 0..%d)", *s.TraceQueue, s.Hosts-1)
	}
	if s.TraceDoD != nil && (*s.TraceDoD < 0 || *s.TraceDoD > 3) {
		return fieldErr("trace_dod_pipe", "pipe %d out of range (allowed: 0..3)", *s.TraceDoD)
	}
	if s.TraceQueue != nil && s.TraceDoD != nil {
		return fieldErr("trace_dod_pipe", "only one queue can be traced (trace_queue is given too)")
	}
	counts := []int{s.Pattern.Senders}
	if s.Pattern.Senders == 0 {
		counts[0] = s.Hosts
	}
	if s.Sweep != nil && s.Sweep.Var == "senders" {
		counts = counts[:0]
		for _, v := range s.Sweep.Values {
			n, _ := strconv.Atoi(v)
			counts = append(counts, n)
		}
	}
	for _, n := range counts {
		if _, err := s.flows(n); err != nil {
			return err
		}
	}
	if err := s.checkOutputNames(); err != nil {
		return err
	}
	for i, p := range s.Plots {
		at := fmt.Sprintf("plots[%d]", i)
		if err := p.checkKeys(at); err != nil {
			return err
		}
		if p.Kind == "sweep" && s.Sweep == nil {
			return fieldErr(at+".kind", "sweep draws a run key over the sweep's values, and the scenario has no sweep section")
		}
		if p.Value != "" && (s.Sweep == nil || !slices.Contains(s.Sweep.Values, p.Value)) {
			return fieldErr(at+".value", "%q is not a sweep value", p.Value)
		}
		if p.WindowUs < 0 || p.WindowUs > s.DurationUs {
			return fieldErr(at+".window_us", "got %g (allowed: 0..duration_us)", p.WindowUs)
		}
		if p.Kind == "sweep" && !metricNames()[p.Y] {
			return fieldErr(at+".y", "%q is not a numeric run key (allowed: e.g. mean_goodput_gbps, trims, max_dod_queue_pkts, sonic_trim_drop)", p.Y)
		}
		k := s.Workload.Kind
		pie := k == "udp-risefall" || k == "tcp"
		switch {
		case (p.Kind == "header_cdf" || p.Kind == "arrivals" || p.Kind == "modes" || p.Kind == "queue") && k != "ndp" && k != "cbr":
			allowed := "sweep"
			if pie {
				allowed = "sweep, aqm, delay_cdf"
			}
			return fieldErr(at+".kind", "%s draws what ndp and cbr runs record (workload.kind is %s; allowed: %s)", p.Kind, k, allowed)
		case (p.Kind == "aqm" || p.Kind == "delay_cdf") && !pie:
			return fieldErr(at+".kind", "%s draws what udp-risefall and tcp runs record (workload.kind is %s)", p.Kind, k)
		case p.Kind == "queue" && s.TraceQueue == nil && s.TraceDoD == nil:
			return fieldErr(at+".kind", "queue draws the queue trace_queue or trace_dod_pipe names, and the scenario traces none")
		case p.Kind == "modes" && s.Trace == "":
			return fieldErr(at+".kind", "modes draws the register actions trace_register names (e.g. t0_reg.arm), and the scenario traces none")
		}
		switch p.Kind {
		case "header_cdf", "sweep", "modes", "arrivals", "queue":
		case "delay_cdf":
			if !slices.ContainsFunc(s.Variants, func(v Variant) bool { return v.Name == p.Variant }) {
				return fieldErr(at+".variant", "got %q (a delay_cdf plot draws one variant of the scenario)", p.Variant)
			}
		case "aqm":
			if p.Y != "drop_prob" && p.Y != "queue_delay_us" {
				return fieldErr(at+".y", "got %q (allowed: drop_prob, queue_delay_us)", p.Y)
			}
		default:
			return s.need(at+".kind", "header_cdf, sweep, modes, arrivals, queue, aqm, delay_cdf", strconv.Quote(p.Kind))
		}
	}
	return nil
}

// plotKeys are the keys each plot kind reads besides kind, title and
// file.
var plotKeys = map[string][]string{
	"sweep": {"y"}, "aqm": {"y"}, "modes": {"value", "window_us"}, "delay_cdf": {"variant"},
}

// checkKeys refuses a key the plot's kind does not read (it would be
// silently ignored). An unknown kind is left to the caller's message.
func (p Plot) checkKeys(at string) error {
	reads, known := plotKeys[p.Kind]
	switch p.Kind {
	case "header_cdf", "arrivals", "queue":
		known = true
	}
	if !known {
		return nil
	}
	for _, k := range []struct {
		name  string
		given bool
	}{{"y", p.Y != ""}, {"value", p.Value != ""}, {"window_us", p.WindowUs != 0}, {"variant", p.Variant != ""}} {
		if k.given && !slices.Contains(reads, k.name) {
			its := "none"
			if len(reads) > 0 {
				its = strings.Join(reads, ", ")
			}
			return fieldErr(at+"."+k.name, "not read by kind %s (its keys besides kind, title and file: %s)", p.Kind, its)
		}
	}
	return nil
}

// rateOK reports whether a rate in Gb/s is in [MinGbps, max] (or 0 where
// zeroOK: the default rate); NaN is not.
func rateOK(g float64, zeroOK bool, max float64) bool {
	return (zeroOK && g == 0) || (g >= MinGbps && g <= max)
}

// sameSweepValue reports whether two values of a sweep over name are
// one: the same text without surrounding blanks, or the same number as
// the run reads it (senders in decimal, 3 and 03; a program constant as
// a Go literal, 1000, 0x3e8 and 1e3; integers compared exactly).
func sameSweepValue(name, a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return true
	}
	if name == "senders" {
		x, ex := strconv.Atoi(a)
		y, ey := strconv.Atoi(b)
		return ex == nil && ey == nil && x == y
	}
	if x, err := strconv.ParseInt(a, 0, 64); err == nil {
		if y, err := strconv.ParseInt(b, 0, 64); err == nil {
			return x == y // exact, beyond float64's 2^53
		}
	}
	x, ex := strconv.ParseFloat(a, 64)
	y, ey := strconv.ParseFloat(b, 64)
	return ex == nil && ey == nil && x == y
}

// sweepX is the swept value's name in a derived constant's expression:
// x as a word of its own (not the x of 0x10).
var sweepX = regexp.MustCompile(`\bx\b`)

// checkIdealQueue: an ideal switch's data queue holds queue_packets
// payloads of mss - ctrl bytes (htsim counts the MSS without its header,
// arch/ideal), so it must hold at least one whole data frame, or every
// data packet is trimmed (ndp workloads; 0 is the chip's default).
func (s *Scenario) checkIdealQueue(path, chip string, packets int) error {
	w := s.Workload
	if chip != "ideal" || packets == 0 || w.Kind != "ndp" || w.MSS <= w.Ctrl {
		return nil
	}
	if payload := w.MSS - w.Ctrl; packets*payload < w.MSS {
		return fieldErr(path, "got %d (the ideal switch's data queue, %d x (mss - ctrl) = %d B, must hold one %d-byte frame: at least %d)",
			packets, packets, packets*payload, w.MSS, (w.MSS+payload-1)/payload)
	}
	return nil
}

// plainName is what a scenario's name and a plot's file name (before its
// .png) may be: they name files and directories under the output
// directory, so no directory of their own and no "..".
var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkOutputNames checks the names the scenario's output files take:
// its name (the default directory results/NAME) and its plots' files.
// A plot writes FILE (a PNG) and its data as FILE's name with .csv, next
// to runs.csv and flows.csv.
func (s *Scenario) checkOutputNames() error {
	if !plainName.MatchString(s.Name) {
		return fieldErr("scenario", "got %q (allowed: a name of letters, digits, '.', '_' and '-', starting with a letter or digit)", s.Name)
	}
	files := map[string]int{}
	for i, p := range s.Plots {
		at := fmt.Sprintf("plots[%d]", i)
		file := p.File
		if file == "" {
			file = p.Kind + ".png"
		}
		stem, isPNG := strings.CutSuffix(file, ".png")
		switch {
		case !isPNG || !plainName.MatchString(stem):
			return fieldErr(at+".file", "got %q (allowed: a file name ending in .png, of letters, digits, '.', '_' and '-', without a directory)", file)
		case strings.EqualFold(stem, "runs") || strings.EqualFold(stem, "flows"):
			return fieldErr(at+".file", "got %q (its data would overwrite %s.csv, which every run writes)", file, strings.ToLower(stem))
		}
		if j, dup := files[strings.ToLower(file)]; dup {
			return fieldErr(at+".file", "%q is also plots[%d]'s file (give each plot its own)", file, j)
		}
		files[strings.ToLower(file)] = i
	}
	return nil
}

// checkProgramName checks that a variant's program exists: a built-in name
// or a readable file (what it says is checked when the run loads it).
func checkProgramName(path, name string) error {
	if name == "" {
		return nil
	}
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, '/') {
		if _, err := os.Stat(name); err != nil {
			return fieldErr(path, "cannot read program file %s", name)
		}
		return nil
	}
	if _, ok := programs.BuiltinSource(name); !ok {
		return fieldErr(path, "unknown program %q (allowed: %s, or a .yaml file)", name, strings.Join(programs.Builtins(), ", "))
	}
	return nil
}

// HasSonicVariant reports whether a variant runs a SONiC configuration.
func (s *Scenario) HasSonicVariant() bool {
	for _, v := range s.Variants {
		if v.SonicConfig != "" {
			return true
		}
	}
	return false
}

// sortedKeys returns a map's keys in order (params must reach runs in a
// deterministic order).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// KeepVariant drops every variant but the named one.
func (s *Scenario) KeepVariant(name string) error {
	var names []string
	for i, v := range s.Variants {
		if v.Name == name {
			if s.variantAt == nil {
				// Errors still name the variant by its place in the file.
				s.variantAt = map[string]int{name: i}
			}
			s.Variants = []Variant{v}
			return nil
		}
		names = append(names, v.Name)
	}
	return fmt.Errorf("scenario %s has no variant %q (variants: %s)", s.Name, name, strings.Join(names, ", "))
}

// checkFraming refuses htsim framing on switches that do not model it:
// only the ideal and Tofino switches' ports serialize with the links'
// framing (a SONiC switch's traffic manager and a Trio PFE's output stay
// Ethernet).
func (s *Scenario) checkFraming(at string, v Variant) error {
	if s.Link.framing() != packet.Bare {
		return nil
	}
	for _, ts := range s.topology().Switches {
		chip := v.setupOf(ts.Name).Chip
		if chip != "ideal" && !strings.HasPrefix(chip, "tofino") {
			return fieldErr(at, "link.framing htsim is modelled on ideal and Tofino switches only, not on %s", chip)
		}
	}
	if v.SonicConfig != "" {
		return fieldErr(at+".sonic_config", "link.framing htsim is not modelled on a SONiC switch")
	}
	return nil
}
