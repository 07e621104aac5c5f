// Package experiments runs network scenarios: a modelled switch (Tofino
// with a program, or the ideal trimming switch) with hosts on its ports,
// traffic from a pattern, variants side by side and sweeps over a
// parameter; it writes summaries, CSV and PNG plots.
package experiments

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"archsim/arch"
	_ "archsim/arch/chips" // the chips variants name
	"archsim/configs"
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
	AQM  *AQMSetup `yaml:"aqm"`
	file string
}

// Link is the host links' rate and one-way propagation delay.
type Link struct {
	Gbps   float64 `yaml:"gbps"`
	PropNs float64 `yaml:"prop_ns"`
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
	// FrameBytes is the udp-risefall source's frame length.
	FrameBytes int `yaml:"frame_bytes"`
	// HostDelayUs is a tcp host's stack delay, each way (the base RTT).
	HostDelayUs float64 `yaml:"host_delay_us"`
}

// Pattern says who sends to whom.
type Pattern struct {
	Kind      string    `yaml:"kind"` // incast, mod16, shifted, fanin, pairs
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
}

// Load reads a scenario by name (configs/scenarios) or path.
func Load(nameOrPath string) (*Scenario, error) {
	var data []byte
	var err error
	file := nameOrPath
	if strings.HasSuffix(nameOrPath, ".yaml") || strings.ContainsRune(nameOrPath, '/') {
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
	s := &Scenario{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("%s: %s", file, strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; "))
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return s, nil
}

func (s *Scenario) validate() error {
	switch {
	case s.Name == "":
		return fmt.Errorf("missing scenario name")
	case s.DurationUs <= 0 || s.DurationUs > s.maxDurationUs():
		return fmt.Errorf("duration_us must be in (0, %s], got %g", bound(s.maxDurationUs()), s.DurationUs)
	case s.Hosts < 1 || s.Hosts > 64:
		return fmt.Errorf("hosts must be 1..64, got %d", s.Hosts)
	case s.Link.Gbps <= 0:
		return fmt.Errorf("link.gbps must be positive")
	case s.Link.PropNs < 0:
		return fmt.Errorf("link.prop_ns must be ≥ 0")
	case len(s.Variants) == 0:
		return fmt.Errorf("no variants")
	}
	topo := s.topology()
	if err := topo.validate(s.Hosts); err != nil {
		return err
	}
	w := s.Workload
	switch w.Kind {
	case "ndp":
		if w.MSS < 64 || w.MSS > 9216 || w.Ctrl < 64 || w.Window < 1 || w.PullRate <= 0 || w.PullRate > 10 {
			return fmt.Errorf("workload: need mss 64..9216, ctrl ≥ 64, window ≥ 1, 0 < pull_rate ≤ 10")
		}
		if w.CtrlDSCP < 0 || w.CtrlDSCP > 63 {
			return fmt.Errorf("workload: ctrl_dscp must be 0..63, got %d", w.CtrlDSCP)
		}
	case "cbr":
		if w.MSS < 64 || w.MSS > 9216 || w.RateGbps <= 0 {
			return fmt.Errorf("workload: cbr needs mss 64..9216 and rate_gbps > 0")
		}
	case "udp-risefall", "tcp":
		if err := s.validateAQM(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("workload.kind must be ndp, cbr, udp-risefall or tcp, got %q", w.Kind)
	}
	switch s.Pattern.Kind {
	case "incast", "mod16", "shifted", "pairs", "fanin":
	default:
		return fmt.Errorf("pattern.kind must be incast, mod16, shifted, fanin or pairs, got %q", s.Pattern.Kind)
	}
	names := map[string]bool{}
	for i, v := range s.Variants {
		if v.Name == "" || names[v.Name] {
			return fmt.Errorf("variants[%d]: missing or duplicate name %q", i, v.Name)
		}
		names[v.Name] = true
		switch {
		case v.Chip != "" && (v.Switch != "" || v.Arch != ""):
			return fmt.Errorf("variant %s: give chip, or the older switch/arch, not both", v.Name)
		case v.Chip != "":
		case v.Switch == "tofino":
			if v.Program == "" {
				return fmt.Errorf("variant %s: a tofino variant needs a program", v.Name)
			}
		case v.Switch == "ideal":
			if v.QueuePackets < 1 {
				return fmt.Errorf("variant %s: queue_packets must be ≥ 1", v.Name)
			}
		default:
			return fmt.Errorf("variant %s: switch must be tofino or ideal, got %q (or give chip: one of %s)", v.Name, v.Switch, arch.Names())
		}
		if _, err := arch.Lookup(v.chipOf()); err != nil {
			return fmt.Errorf("variant %s: %v", v.Name, err)
		}
		if v.QueuePackets < 0 {
			return fmt.Errorf("variant %s: queue_packets must be ≥ 1", v.Name)
		}
		if (v.Program == "sonic-l3") != (v.SonicConfig != "") {
			return fmt.Errorf("variant %s: the sonic-l3 program and sonic_config go together", v.Name)
		}
		for _, name := range sortedKeys(v.Switches) {
			o := v.Switches[name]
			if topo.index(name) < 0 {
				return fmt.Errorf("variant %s: switches: no switch %q in the topology (switches: %s)", v.Name, name, topo.names())
			}
			if o.Chip == "" {
				return fmt.Errorf("variant %s: switches.%s: missing chip", v.Name, name)
			}
			if _, err := arch.Lookup(o.Chip); err != nil {
				return fmt.Errorf("variant %s: switches.%s: %v", v.Name, name, err)
			}
			if o.QueuePackets < 0 {
				return fmt.Errorf("variant %s: switches.%s: queue_packets must be ≥ 1", v.Name, name)
			}
		}
	}
	if s.Sweep != nil {
		if len(s.Sweep.Values) == 0 {
			return fmt.Errorf("sweep: no values")
		}
		if s.Sweep.Var == "senders" {
			most := s.Hosts
			if s.Workload.Kind == "tcp" {
				most = maxConnections // senders are connections
			}
			for _, v := range s.Sweep.Values {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > most {
					return fmt.Errorf("sweep: senders value %q must be 1..%d", v, most)
				}
			}
		}
	}
	if s.TraceQueue != nil && (*s.TraceQueue < 0 || *s.TraceQueue >= s.Hosts) {
		return fmt.Errorf("trace_queue: host %d out of range 0..%d", *s.TraceQueue, s.Hosts-1)
	}
	if s.TraceDoD != nil && (*s.TraceDoD < 0 || *s.TraceDoD > 3) {
		return fmt.Errorf("trace_dod_pipe: pipe %d out of range 0..3", *s.TraceDoD)
	}
	if s.TraceQueue != nil && s.TraceDoD != nil {
		return fmt.Errorf("trace_queue and trace_dod_pipe: only one queue can be traced")
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
	for _, p := range s.Plots {
		if p.Value != "" && (s.Sweep == nil || !slices.Contains(s.Sweep.Values, p.Value)) {
			return fmt.Errorf("plots: value %q is not a sweep value", p.Value)
		}
		if p.WindowUs < 0 {
			return fmt.Errorf("plots: window_us must be ≥ 0")
		}
		if p.Kind == "sweep" && !metricNames()[p.Y] {
			return fmt.Errorf("plots: y %q is not a numeric run key (e.g. mean_goodput_gbps, trims, max_dod_queue_pkts, sonic_trim_drop)", p.Y)
		}
		switch p.Kind {
		case "header_cdf", "sweep", "modes", "arrivals", "queue":
		case "aqm":
			if p.Y != "drop_prob" && p.Y != "queue_delay_us" {
				return fmt.Errorf("plots: an aqm plot's y is drop_prob or queue_delay_us, got %q", p.Y)
			}
		default:
			return fmt.Errorf("plots: kind must be header_cdf, sweep, modes, arrivals, queue or aqm, got %q", p.Kind)
		}
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
	for _, v := range s.Variants {
		if v.Name == name {
			s.Variants = []Variant{v}
			return nil
		}
		names = append(names, v.Name)
	}
	return fmt.Errorf("scenario %s has no variant %q (variants: %s)", s.Name, name, strings.Join(names, ", "))
}
