package ideal

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"archsim/arch"
	"archsim/components/aqm/pie"
	"archsim/configs"
	"archsim/programs"
)

// MaxQueuePackets bounds the data queue (ideal.queue_packets, a
// scenario's queue_packets): 100 000 jumbo frames are about 0.9 GB of
// buffer, far beyond any switch.
const MaxQueuePackets = 100000

// Params are configs/ideal.yaml's values.
type Params struct {
	Name              string  `mapstructure:"name"`
	QueuePackets      int     `mapstructure:"queue_packets"`
	HeaderQueueFactor int     `mapstructure:"header_queue_factor"`
	LatencyNs         float64 `mapstructure:"latency_ns"`
	Queue             struct {
		Discipline string  `mapstructure:"discipline"`
		LimitUs    float64 `mapstructure:"limit_us"`
	} `mapstructure:"queue"`
	PIE struct {
		Flavour string `mapstructure:"flavour"`
		Params  string `mapstructure:"params"`
		Drop    bool   `mapstructure:"drop"`
		ECN     bool   `mapstructure:"ecn"`
		// Overrides of the parameter set's values: "auto" or a number.
		DelayRefUs any `mapstructure:"delay_ref_us"`
		TUpdateUs  any `mapstructure:"t_update_us"`
		Alpha      any `mapstructure:"alpha"`
		Beta       any `mapstructure:"beta"`
	} `mapstructure:"pie"`
}

// Queue disciplines (ideal.queue.discipline).
const (
	DisciplineComposite = "composite" // htsim's CompositeQueue: NDP trimming
	DisciplinePIE       = "pie"       // FIFO + RFC 8033 PIE
)

// PIE parameter sets (ideal.pie.params).
const (
	PIEParamsTofino  = "tofino"  // the PIE-on-Tofino paper's Table II values (pie.Tofino)
	PIEParamsFlavour = "flavour" // the flavour's own values (configs/pie.yaml)
)

// Chip is the ideal switch as a registered architecture.
type Chip struct{ arch.ChipInfo }

// TheChip is the ideal switch.
var TheChip = &Chip{arch.ChipInfo{ArchName: "ideal",
	Description: "ideal output-queued NDP trimming switch (htsim CompositeQueue): no program; network scenarios only",
	ConfigFiles: []string{"ideal.yaml"}}}

// Knobs: the data queue size.
func (*Chip) Knobs() []arch.Knob {
	return []arch.Knob{{Name: arch.KnobQueuePackets, Key: "ideal.queue_packets", Doc: "data queue, in payload-sized packets"}}
}

// Load reads the ideal switch's parameters.
func (c *Chip) Load(o arch.Overrides) (arch.Target, error) {
	l, err := arch.LoadConfig(c, o)
	if err != nil {
		return nil, err
	}
	p := &Params{}
	if err := l.Decode("ideal", p); err != nil {
		return nil, err
	}
	if err := l.CheckRanges("ideal", []configs.Range{
		{Key: "queue_packets", Val: float64(p.QueuePackets), Lo: 1, Hi: MaxQueuePackets},
		{Key: "header_queue_factor", Val: float64(p.HeaderQueueFactor), Lo: 0, Hi: 1024},
		{Key: "latency_ns", Val: p.LatencyNs, Lo: 0, Hi: 1e9},
	}); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Name) == "" {
		return nil, fmt.Errorf("%s: ideal.name: must not be empty (reports name the chip by it)", l.Origin("ideal.name"))
	}
	t := &Target{p: p}
	switch p.Queue.Discipline {
	case DisciplineComposite:
		// The PIE keys are not used, but a value given for them is
		// checked as under discipline pie (a bad one is an error, not
		// ignored until the discipline changes).
		if l.UserSet("ideal.pie") || l.UserSet("ideal.queue.limit_us") {
			if err := l.CheckRanges("ideal", []configs.Range{{Key: "queue.limit_us", Val: p.Queue.LimitUs, Lo: 1e-3, Hi: 1e7}}); err != nil {
				return nil, err
			}
			if _, key, err := pieConfig(p); err != nil {
				return nil, fmt.Errorf("%s: %v", l.Origin(key), err)
			}
		}
	case DisciplinePIE:
		if err := l.CheckRanges("ideal", []configs.Range{{Key: "queue.limit_us", Val: p.Queue.LimitUs, Lo: 1e-3, Hi: 1e7}}); err != nil {
			return nil, err
		}
		pc, key, err := pieConfig(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", l.Origin(key), err)
		}
		t.pie = pc
	default:
		return nil, fmt.Errorf("%s: ideal.queue.discipline %q: want %s or %s", l.Origin("ideal.queue.discipline"), p.Queue.Discipline, DisciplineComposite, DisciplinePIE)
	}
	return t, nil
}

// pieConfig is the PIE queue the parameters describe: the flavour's rules
// (configs/pie.yaml) with either its own values or the Table II ones, the
// no-drop mode and the queue limit, checked.
// The key returned with an error is the one to blame.
func pieConfig(p *Params) (*PIEConfig, string, error) {
	params, err := pie.LoadFlavour(p.PIE.Flavour)
	if err != nil {
		return nil, "ideal.pie.flavour", fmt.Errorf("ideal.pie.flavour: %v", err)
	}
	switch p.PIE.Params {
	case PIEParamsFlavour:
	case PIEParamsTofino:
		spec, tun, _, err := pie.Tofino()
		if err != nil {
			return nil, "ideal.pie.params", err
		}
		params = params.WithTofino(spec, tun)
	default:
		return nil, "ideal.pie.params", fmt.Errorf("ideal.pie.params %q: want %s or %s", p.PIE.Params, PIEParamsTofino, PIEParamsFlavour)
	}
	for _, o := range []struct {
		key  string
		val  any
		set  func(float64)
		name string
	}{
		{"ideal.pie.delay_ref_us", p.PIE.DelayRefUs, func(v float64) { params.DelayRefPs = int64(v*1e6 + 0.5) }, "delay_ref"},
		{"ideal.pie.t_update_us", p.PIE.TUpdateUs, func(v float64) { params.TUpdatePs = int64(v*1e6 + 0.5) }, "t_update"},
		{"ideal.pie.alpha", p.PIE.Alpha, func(v float64) { params.Alpha = v }, "alpha"},
		{"ideal.pie.beta", p.PIE.Beta, func(v float64) { params.Beta = v }, "beta"},
	} {
		v, ok, err := autoOrNumber(o.val)
		if err != nil {
			return nil, o.key, fmt.Errorf("%s: %v", o.key, err)
		}
		if ok && (math.IsNaN(v) || math.Abs(v) > maxPIEOverride) {
			return nil, o.key, fmt.Errorf("%s = %v: out of range [-%g, %g]", o.key, v, maxPIEOverride, maxPIEOverride)
		}
		if ok {
			o.set(v)
			check := params
			check.QueueLimitPs = 0 // checked against ideal.queue.limit_us below
			if err := check.Validate(); err != nil && strings.Contains(err.Error(), o.name) {
				return nil, o.key, fmt.Errorf("%s = %v: %v", o.key, v, err)
			}
		}
	}
	params.NoDrop = !p.PIE.Drop
	c := &PIEConfig{Params: params, LimitPs: int64(p.Queue.LimitUs*1e6 + 0.5), ECN: p.PIE.ECN}
	check := params
	check.QueueLimitPs = c.LimitPs
	if err := check.Validate(); err != nil {
		key := "ideal.queue.limit_us"
		if _, set, _ := autoOrNumber(p.PIE.DelayRefUs); set {
			key = "ideal.pie.delay_ref_us"
		}
		return nil, key, fmt.Errorf("ideal.queue.limit_us %g with ideal.pie: %v", p.Queue.LimitUs, err)
	}
	return c, "", nil
}

// maxPIEOverride bounds an ideal.pie override (us or Hz) so that its
// picoseconds fit the clock: 1e9 us is about 17 minutes.
const maxPIEOverride = 1e9

// autoOrNumber reads an override: "auto" (not set) or a number.
func autoOrNumber(v any) (float64, bool, error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case string:
		if x == "auto" {
			return 0, false, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, false, fmt.Errorf("want auto or a number, got %q", x)
		}
		return f, true, nil
	case int:
		return float64(x), true, nil
	case int64:
		return float64(x), true, nil
	case uint64:
		return float64(x), true, nil
	case float64:
		return x, true, nil
	}
	return 0, false, fmt.Errorf("want auto or a number, got %v", v)
}

// Target is the ideal switch with its parameters.
type Target struct {
	p   *Params
	pie *PIEConfig // discipline pie
}

// Arch is "ideal".
func (t *Target) Arch() string { return "ideal" }

// QueuePackets is the data queue's size in payload-sized packets, after
// every override (ideal.queue_packets, the queue_packets knob, --set).
func (t *Target) QueuePackets() int { return t.p.QueuePackets }

// Name is the display name.
func (t *Target) Name() string { return t.p.Name }

// ClockMHz: the ideal switch has no clock.
func (t *Target) ClockMHz() float64 { return 0 }

// RuleNoProgram is why a program cannot run on the ideal switch.
const RuleNoProgram = "no-program"

// Compile: the ideal switch runs no program; without one it "fits".
func (t *Target) Compile(prog *programs.Program) (*arch.Compiled, error) {
	c := &arch.Compiled{Arch: "ideal", Chip: t.p.Name, Program: prog, Structure: "output-queued, no program"}
	if prog == nil {
		c.Fits = true
		return c, nil
	}
	c.Rule = RuleNoProgram
	c.Err = fmt.Errorf("rule %s: the ideal switch runs no data-plane program: it is an output-queued NDP trimming switch (htsim's CompositeQueue) for network scenarios", RuleNoProgram)
	c.Refusal = fmt.Sprintf("%s does not run on %s: %v", prog.Name, t.p.Name, c.Err)
	c.Structure = "-"
	return c, nil
}

// Build assembles the switch for the network it sits in: the ports it
// uses at the host links' rate, routing by the network's routes, a data queue of queue_packets payload-sized
// packets (htsim counts the MSS without the header) and a header queue
// header_queue_factor times that.
func (t *Target) Build(s arch.BuildSpec) (arch.Switch, error) {
	n := s.Net
	if n == nil || n.Ports < 1 || n.Route == nil || (t.pie == nil && (n.IsHeader == nil || n.Trim == nil)) {
		return nil, fmt.Errorf("the ideal switch needs its network (hosts, link rate, packet format): use it in a scenario")
	}
	payload := n.MSS - n.HeaderBytes
	if payload <= 0 {
		payload = n.MSS
	}
	q := int64(t.p.QueuePackets * payload)
	name := s.Name
	if name == "" {
		name = "Ideal"
	}
	return MakeBuilder().WithEngine(s.Engine).WithConfig(Config{
		Ports: n.Ports, PortGbps: n.LinkGbps, DataQueueB: q, HeaderQueueB: int64(t.p.HeaderQueueFactor) * q, HeaderBytes: n.HeaderBytes,
		LatencyPs: int64(t.p.LatencyNs * 1000), IsHeader: n.IsHeader, Trim: n.Trim, PortOfPacket: n.Route, Seed: s.Seed,
		PIE: t.pie, Framing: n.Framing,
	}).Build(name), nil
}

// Report is the main job's (refusal) report.
func (t *Target) Report(c *arch.Compiled, _ *arch.Measurement, _ int64) arch.Report {
	return &arch.CompiledReport{C: c}
}

// Summary: no program runs here.
func (t *Target) Summary(c *arch.Compiled, _ *arch.Measurement) arch.Summary {
	s := arch.Summary{Arch: "ideal", Chip: t.p.Name, Fits: c.Fits, Structure: c.Structure,
		StatefulNote: "none: no program", Timers: "none"}
	if c.Err != nil {
		s.Why = c.Err.Error()
	}
	return s
}
