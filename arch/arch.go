// Package arch is the seam between archsim's chips and the code that uses
// them. Every chip — Tofino 1 and 2, Trio 5 and 6, the ideal output-queued
// switch, a test chip — implements the same four steps:
//
//	Chip.Load(overrides)        the chip's config files (viper layering) → a Target
//	Target.Compile(program)     placement or lowering → a Compiled (fits, rule, resources, units)
//	Target.Build(spec)          the simulated switch on an Akita engine → a Switch
//	Target.Report(compiled, m)  the main job's report from the measurement
//
// and the Switch interface is all that experiments see of a chip: ports to
// attach hosts and links to, the ingress handler, a deadline, drop and trim
// observation, and a control plane's run-time access to tables, registers
// and counters. The registry (Register, Lookup, Chips) maps names to chips;
// adding a chip is a new package and one line in package chips.
package arch

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/link"
	"archsim/components/packet"
	"archsim/configs"
	"archsim/programs"
)

// Chip is an architecture a user can name (--arch, a scenario's chip):
// one family's model with its config files.
type Chip interface {
	Name() string
	Doc() string
	// Files are the embedded config files merged in order (configs/).
	Files() []string
	// Knobs are the what-ifs the chip offers under chip-neutral names.
	Knobs() []Knob
	// Load merges the chip's files with the overrides and checks every
	// value (errors name the file, --set or knob that set it).
	Load(o Overrides) (Target, error)
}

// Knob is a common what-if a chip exposes under a chip-neutral name (the
// CLI's --stages, --clock-mhz shortcuts set knobs, not config keys).
type Knob struct {
	Name string // e.g. "stages", "clock_mhz"
	Key  string // the config key it sets, e.g. "tofino.mau.stages"
	Doc  string
}

// Knob names the CLI and scenarios use.
const (
	KnobStages        = "stages"
	KnobSALUsPerStage = "salus_per_stage"
	KnobClockMHz      = "clock_mhz"
	KnobQueuePackets  = "queue_packets"
)

// Overrides layer a user's values over a chip's config files. Precedence,
// lowest first: the chip's files, File, Knobs, Sets.
type Overrides struct {
	File  string      // a YAML file with the same keys as the chip's files
	Knobs []KnobValue // knob values, with where they came from
	Sets  []string    // key=value
}

// KnobValue sets a knob.
type KnobValue struct {
	Knob   string
	Value  string
	Origin string // for errors, e.g. "--stages"
}

// LoadConfig merges a chip's files with the overrides (the knobs mapped to
// their keys); a knob the chip does not have is an error.
func LoadConfig(c Chip, o Overrides) (*configs.Loaded, error) {
	src := configs.Source{Base: c.Files(), UserFile: o.File, Sets: o.Sets}
	for _, kv := range o.Knobs {
		k, ok := FindKnob(c, kv.Knob)
		if !ok {
			return nil, fmt.Errorf("%s: --arch %s has no %s knob (its knobs: %s; use --set KEY=VALUE)", kv.Origin, c.Name(), kv.Knob, knobNames(c))
		}
		src.Values = append(src.Values, configs.Value{Key: k.Key, Value: kv.Value, Origin: kv.Origin})
	}
	return configs.Load(src)
}

// FindKnob returns a chip's knob by name.
func FindKnob(c Chip, name string) (Knob, bool) {
	for _, k := range c.Knobs() {
		if k.Name == name {
			return k, true
		}
	}
	return Knob{}, false
}

func knobNames(c Chip) string {
	var ns []string
	for _, k := range c.Knobs() {
		ns = append(ns, k.Name)
	}
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// Target is a chip loaded with its configuration: what programs are
// compiled for and switches built from.
type Target interface {
	// Arch is the chip name it was loaded as ("tofino2"); Name the chip's
	// own ("Tofino 2").
	Arch() string
	Name() string
	ClockMHz() float64
	// Compile places or lowers a program. A program that breaks one of the
	// chip's rules is not an error: it compiles to Fits false with the
	// rule. An error is bad input (e.g. a chip that needs a program got
	// none).
	Compile(prog *programs.Program) (*Compiled, error)
	// Build assembles the simulated switch on an engine.
	Build(spec BuildSpec) (Switch, error)
	// Report is the main job's report: the compiled program and, if it
	// was simulated, the measurement (m nil: placement or lowering only).
	Report(c *Compiled, m *Measurement, seed int64) Report
	// Summary is the chip-neutral line compare prints.
	Summary(c *Compiled, m *Measurement) Summary
}

// Compiled is a program compiled for a target: placed on a pipeline or
// lowered to run-to-completion code, or refused by a rule.
type Compiled struct {
	Arch    string
	Chip    string
	Program *programs.Program // nil for a chip that runs no program
	Fits    bool
	// Rule names the broken rule, Pos where in the program (file:line) and
	// Err carries the whole message (file:line, the rule, what breaks it)
	// when the program does not fit; Refusal is the one-line message the
	// CLI prints.
	Rule    string
	Pos     programs.Pos
	Err     error
	Refusal string
	// Structure says in one line what the program became ("11 of 12 MAU
	// stages", "94 micro-instructions").
	Structure string
	// Resources is the resource table: each resource the chip budgets,
	// used against its capacity.
	Resources []Resource
	// Units lists what each unit (an MAU stage, a code block) holds.
	Units []Unit
	// Impl is the family's own result (a placement, microcode).
	Impl any
}

// Resource is one budgeted resource.
type Resource struct {
	Name     string  `json:"name"`
	Used     float64 `json:"used"`
	Capacity float64 `json:"capacity"`
	Unit     string  `json:"unit"` // blocks, bits, bytes, instructions, ...
}

// Pct is the share of the capacity used, in percent.
func (r Resource) Pct() float64 {
	if r.Capacity <= 0 {
		return 0
	}
	return 100 * r.Used / r.Capacity
}

// Unit is one unit of the compiled program (an MAU stage, a code block)
// and what it holds.
type Unit struct {
	Name  string   `json:"name"`
	Items []string `json:"items"`
}

// BuildSpec is what Target.Build needs.
type BuildSpec struct {
	Engine   sim.Engine
	Compiled *Compiled
	// Name is the switch's component name ("" for the chip's default).
	Name string
	Seed int64
	// Unpaced output ports pass packets on at once instead of at line
	// rate: a rate probe measures the chip's processing alone.
	Unpaced bool
	// ThreadStats records each pipeline pass's (Tofino) or packet
	// thread's (Trio) latency and wait for issue, the distributions of a
	// latency run's report (the harness sets it); a network run reads
	// none of them and leaves it off (two summary updates per pass).
	ThreadStats bool
	// Net describes the network the switch sits in, for chips whose
	// model depends on it (the ideal switch trims NDP packets).
	Net *Net
}

// Net is what a switch may need to know of its network.
type Net struct {
	Ports       int     // front-panel ports in use (hosts first, then links to other switches)
	LinkGbps    float64 // the host links' rate
	MSS         int     // data frame bytes
	HeaderBytes int     // control and trimmed-header frame bytes
	// Framing is what the network's links send per frame besides the
	// frame (the zero value: Ethernet's FCS, preamble and gap).
	Framing packet.Framing
	// Packet format hooks (components/hosts): is a packet a header, trim
	// a data packet to a header.
	IsHeader func(*packet.Packet) bool
	Trim     func(*packet.Packet)
	// Route is the front-panel port index (into FrontPorts) a packet
	// leaves by: towards its destination host.
	Route func(*packet.Packet) int
}

// Switch is a simulated switch as experiments see it.
type Switch interface {
	Name() string
	// FrontPorts are the ports hosts and links attach to, in host order
	// (host h sits on FrontPorts()[h]).
	FrontPorts() []int
	// IngressGbps is the rate a source on port sends at; an error says why
	// the port cannot inject packets.
	IngressGbps(port int) (float64, error)
	// IngressHandler is the component a packet arriving on port is
	// scheduled on (packet.Event, Kind Arrive, Port the ingress port).
	IngressHandler(port int) sim.Handler
	// Attach connects a port to its link: packets leaving the port arrive
	// at the link's far end (a host, another switch's port).
	Attach(port int, to link.End)
	// SetDeadline ends the run: packets still in the switch after it are
	// counted as in flight, not processed.
	SetDeadline(ps int64)
	// OnDrop sets a hook called for every packet the switch drops.
	OnDrop(f func(pkt *packet.Packet, reason string))
	// Counters are what the switch observed so far.
	Counters() Counters
	ControlPlane
}

// Faulter is a switch that can find its own run invalid, e.g. a program
// loop cut at programs.MaxLoopIterations: whoever ran the engine fails
// the run with Fault's error (it names the program's file:line).
type Faulter interface {
	Fault() error
}

// FaultOf is a switch's fault (nil when it has none or cannot have one).
func FaultOf(sw Switch) error {
	if f, ok := sw.(Faulter); ok {
		return f.Fault()
	}
	return nil
}

// Counters are a switch's observations.
type Counters struct {
	Delivered int
	Drops     []DropCount // sorted by reason
	// Copies are packets the switch made (mirror and multicast copies);
	// Created are packets the program created (emit()).
	Copies  int
	Created int
	// InstrPerPacket is the mean instructions per ingress packet
	// (run-to-completion chips).
	InstrPerPacket float64
	// Trimming by where it happened: program mirror copies at ingress
	// (e.g. ndp's meter trims), deflect-on-drop and mirror-on-drop in the
	// traffic manager, output-queue trims (the ideal switch) and
	// traffic-manager trimming (SONiC).
	IngressMirrors int
	Deflected      int
	DropMirrors    int
	QueueTrims     int
	TMTrims        int
	// MaxDeflectQueue is the longest deflect-on-drop queue, in packets.
	MaxDeflectQueue int
}

// DropCount is packets dropped for one reason.
type DropCount struct {
	Reason  string `json:"reason"`
	Packets int    `json:"packets"`
}

// DropCounter counts drops by reason. Drops come in runs of one reason (a
// full queue drops many in a row), so the latest reason's counter is kept
// at hand: most drops cost a string comparison, not a map lookup. The zero
// value is an empty counter.
type DropCounter struct {
	m     map[string]*int
	last  string
	lastN *int
}

// Add counts one drop for reason.
func (d *DropCounter) Add(reason string) {
	if d.lastN == nil || reason != d.last {
		c := d.m[reason]
		if c == nil {
			if d.m == nil {
				d.m = map[string]*int{}
			}
			c = new(int)
			d.m[reason] = c
		}
		d.last, d.lastN = reason, c
	}
	*d.lastN++
}

// Len is the number of reasons.
func (d *DropCounter) Len() int { return len(d.m) }

// Total is the number of drops.
func (d *DropCounter) Total() int {
	n := 0
	for _, c := range d.m {
		n += *c
	}
	return n
}

// Sorted lists the counts sorted by reason.
func (d *DropCounter) Sorted() []DropCount {
	out := make([]DropCount, 0, len(d.m))
	for r, c := range d.m {
		out = append(out, DropCount{r, *c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// SortedDrops turns drop counts by reason into a list sorted by reason.
func SortedDrops(m map[string]int) []DropCount {
	out := make([]DropCount, 0, len(m))
	for r, n := range m {
		out = append(out, DropCount{r, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// ControlPlane is a control plane's run-time access to the program's
// state: table entries, registers and counters (in every pipe of a chip
// with several).
type ControlPlane interface {
	// Program is the program the switch runs (nil: none).
	Program() *programs.Program
	WriteTable(name string, entries []*programs.Entry) error
	ReadRegister(name string, index int) (int64, error)
	WriteRegister(name string, index int, v int64) error
	// CounterValue sums a program counter's packets at an index.
	CounterValue(name string, index int) int64
}

// Optional switch abilities, checked with a type assertion.

// EntryWriter is a control plane that adds and deletes single table
// entries (a driver's entry add, modify and delete) rather than rewriting
// a table's whole contents.
type EntryWriter interface {
	AddEntries(table string, entries []*programs.Entry) error
	DeleteEntries(table string, entries []*programs.Entry) error
}

// RegisterTracer calls f whenever a register action runs (unit: the pipe
// or PFE that ran it).
type RegisterTracer interface {
	TraceRegister(f func(unit int, ra *programs.RegisterAction, index int64, nowPs int64))
}

// QueueTracer records queue depths and deflections (Tofino's traffic
// manager).
type QueueTracer interface {
	TraceQueue(port, qid int, f func(nowPs int64, packets int))
	// TraceDeflectQueue traces unit's deflect-on-drop queue.
	TraceDeflectQueue(unit int, f func(nowPs int64, packets int)) error
	OnDeflect(f func(nowPs int64, pkt *packet.Packet))
}

// WireTap sees every frame a switch starts sending out of a front-panel
// port (packet captures): the device port, the frame and when its first
// bit leaves the port.
type WireTap func(port int, pkt *packet.Packet, startPs int64)

// Tappable switches call a WireTap for every frame they send out of a
// front-panel port (not recirculation); nil removes it. A switch without
// a tap pays one nil check per frame.
type Tappable interface {
	TapWire(f WireTap)
}

// PortRates lets a network set one front-panel port's speed (a link
// slower or faster than the chip's default port rate; both directions).
type PortRates interface {
	SetPortGbps(port int, gbps float64) error
}

// TimerSwitch runs timer threads (Trio): they start periodically until
// untilPs, or until StopTimers.
type TimerSwitch interface {
	StartTimers(untilPs int64)
	StopTimers(ps int64)
}

// PacketPooler is a switch that can share a run's packet pool: its copies
// come from the pool and the packets it drops go back to it, after its
// drop hook has seen them (so a hook must not keep or recycle them).
type PacketPooler interface {
	SetPacketPool(packet.Pool)
}

// PacketGenerator is a switch with a packet generator (Tofino's pktgen): a
// control plane configures the program's applications, enables them and
// signals port-down events, in simulated time.
type PacketGenerator interface {
	// ConfigurePktGen checks applications against the chip's limits and
	// installs them.
	ConfigurePktGen(apps []*programs.PktgenApp) error
	// EnablePktGen enables an application at atPs; its timer fires no
	// trigger after untilPs (< 0: until the run's deadline).
	EnablePktGen(app string, atPs, untilPs int64) error
	// DisablePktGen stops an application: no trigger fires from atPs on.
	DisablePktGen(app string, atPs int64) error
	// PortDown signals that a port went down at atPs (port_down triggers).
	PortDown(port int, atPs int64) error
	// PktGenerated is the number of packets the generators made so far.
	PktGenerated() int
}

// Offerer schedules offered traffic itself (the latency harness gives it
// the arrivals in the generator's order, port by port).
type Offerer interface {
	Offer(arrivals []Arrival)
}

// Arrival is a packet offered to a switch port at a time.
type Arrival = packet.Arrival

// Measurement is what the latency harness simulated: the latency run and,
// if asked for, a rate probe (packets offered at once to unpaced ports).
type Measurement struct {
	Latency *Run
	Rate    *Run
}

// Run is one simulation of offered traffic through one switch.
type Run struct {
	Switch         Switch // for the chip's own statistics
	Offered        int
	LastArrivalPs  int64
	MeanFrameBytes float64
	Events         int64
	SimulatedNs    float64
}

// Report is the main job's result for one (chip, program): a JSON object
// (each family's keys are a contract) and tables.
type Report interface {
	JSON() any
	WriteTables(w io.Writer)
}

// Summary is the chip-neutral view of a (chip, program) result that
// compare puts side by side (its JSON keys are a contract).
type Summary struct {
	Arch          string  `json:"arch"`
	Chip          string  `json:"chip"`
	Fits          bool    `json:"fits"`
	Why           string  `json:"why,omitempty"` // the rule and message when it does not fit
	Structure     string  `json:"structure"`     // stages used / instructions
	StagesUsed    int     `json:"stages_used,omitempty"`
	StagesTotal   int     `json:"stages_total,omitempty"`
	StaticInstr   int     `json:"static_instructions,omitempty"`
	InstrPerPkt   float64 `json:"instructions_per_packet,omitempty"`
	LatencyMeanNs float64 `json:"latency_mean_ns"` // ingress + egress processing
	LatencyP99Ns  float64 `json:"latency_p99_ns"`
	RateMpps      float64 `json:"rate_mpps"`     // packets per second the chip processes
	RateNote      string  `json:"rate_note"`     // how the rate was obtained
	Timers        string  `json:"timers"`        // periodic processing without packets
	StatefulNote  string  `json:"stateful_note"` // how state is reached
	Recirculates  bool    `json:"recirculates,omitempty"`
}

// RateProber is a target whose packet rate is measured by a rate probe
// (packets offered at once to unpaced ports). A pipeline's rate follows
// from its clock and is not probed.
type RateProber interface {
	ProbesRate() bool
}

// ChipInfo is what every chip has, for a family to embed: its name, its
// description and its config files.
type ChipInfo struct {
	ArchName    string
	Description string
	ConfigFiles []string
}

// Name is the architecture name (--arch).
func (c ChipInfo) Name() string { return c.ArchName }

// Doc describes the chip.
func (c ChipInfo) Doc() string { return c.Description }

// Files are the config files merged in order.
func (c ChipInfo) Files() []string { return c.ConfigFiles }

// Replicator is a switch whose control plane can rewrite a multicast
// group's port list at run time (e.g. Protego's retransmission copies,
// Eq. 1: the port listed once per copy).
type Replicator interface {
	SetMulticastGroup(id int, ports []int) error
}

// QueueUse is what one egress queue saw during a run: the most it held,
// in the traffic manager's units (cells) and in bytes of buffer (cells
// times the cell size: what the chip's buffer counters show), and how
// many packets entered it.
type QueueUse struct {
	PeakCells, PeakBytes int64
	Enqueued             int64
}

// QueueUser is a switch that reports a queue's use (ok false: no such
// queue).
type QueueUser interface {
	QueueUse(port, qid int) (QueueUse, bool)
}

// BufferUse is what one of a program's packet buffers held during a run:
// the most bytes (frame lengths) and packets at once, what it holds at the
// end, and how many packets were stored and sent again.
type BufferUse struct {
	PeakBytes, PeakPackets int64
	Bytes, Packets         int64
	Stores, Resends        int64
}

// BufferUser is a switch that keeps packets in a program's packet buffers
// (ok false: no buffer of that name).
type BufferUser interface {
	BufferUse(name string) (BufferUse, bool)
}

// PauseCounter is a switch whose MACs obey PFC frames: how many pause and
// resume frames arrived and how long queues were paused in total.
type PauseCounter interface {
	PFCFrames() (pauses, resumes int, pausedPs int64)
}
