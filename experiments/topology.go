package experiments

import (
	"archsim/components/rdma"
	"archsim/components/tcp"
	"archsim/configs"
	"fmt"
	"strings"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
)

// Topology is the network a scenario runs on: switches, each with some of
// the hosts, joined by links. Without one, a scenario has one switch with
// every host on it.
type Topology struct {
	Switches []TopoSwitch `yaml:"switches"`
	Links    []TopoLink   `yaml:"links"`
}

// TopoSwitch is one switch of the topology. Its hosts take its first
// front-panel ports, in host order (hosts are numbered switch by switch);
// its links take the next ones, in the order the links are listed.
type TopoSwitch struct {
	Name  string `yaml:"name"`
	Hosts int    `yaml:"hosts"`
	// HostGbps sets the links of the switch's first hosts, in order, to
	// their own rate (0 or absent: the scenario's link.gbps); the host's
	// NIC and the switch port both run at it.
	HostGbps []float64 `yaml:"host_gbps"`
}

// TopoLink joins two switches (both ways).
type TopoLink struct {
	Between []string `yaml:"between"` // two switch names
	Gbps    float64  `yaml:"gbps"`    // 0: the switches' port rate; else both ends' ports run at it
	PropNs  float64  `yaml:"prop_ns"` // one-way propagation
	// Loss corrupts the frames sent from Between[0] to Between[1] (a link
	// corrupts in one direction, as 91.8 % of corrupting links do: Protego
	// paper §3 citing Zhuo et al.); its seed is the run's, per link.
	Loss *link.CorruptionConfig `yaml:"loss"`
}

// SwitchSetup is what a switch of a variant runs: a chip and, unless the
// chip runs none, a program.
type SwitchSetup struct {
	Chip         string            `yaml:"chip"`
	Program      string            `yaml:"program"`
	Params       map[string]string `yaml:"params"`
	Set          []string          `yaml:"set"`
	QueuePackets int               `yaml:"queue_packets"`
}

// topology returns the scenario's topology (the implicit one-switch
// network when it gives none).
func (s *Scenario) topology() *Topology {
	if s.Topology != nil {
		return s.Topology
	}
	return &Topology{Switches: []TopoSwitch{{Name: "switch", Hosts: s.Hosts}}}
}

// validate checks the topology against the scenario's host count.
func (t *Topology) validate(hosts int) error {
	if len(t.Switches) == 0 {
		return fmt.Errorf("topology: no switches")
	}
	idx := map[string]int{}
	n := 0
	for i, sw := range t.Switches {
		if sw.Name == "" || idx[sw.Name] > 0 {
			return fmt.Errorf("topology.switches[%d]: missing or duplicate name %q", i, sw.Name)
		}
		idx[sw.Name] = i + 1
		if sw.Hosts < 0 {
			return fmt.Errorf("topology.switches[%d] (%s): hosts must be ≥ 0", i, sw.Name)
		}
		if len(sw.HostGbps) > sw.Hosts {
			return fmt.Errorf("topology.switches[%d] (%s): host_gbps gives %d rates for %d hosts", i, sw.Name, len(sw.HostGbps), sw.Hosts)
		}
		for k, g := range sw.HostGbps {
			if !rateOK(g, true, 3200) {
				return fmt.Errorf("topology.switches[%d] (%s): host_gbps[%d] must be 0 (link.gbps) or in [%g, 3200], got %g", i, sw.Name, k, MinGbps, g)
			}
		}
		n += sw.Hosts
	}
	if n != hosts {
		return fmt.Errorf("topology: the switches hold %d hosts, the scenario has %d", n, hosts)
	}
	pairs := map[[2]string]int{}
	for i, l := range t.Links {
		if len(l.Between) != 2 || l.Between[0] == l.Between[1] {
			return fmt.Errorf("topology.links[%d]: between needs two different switch names (switches: %s)", i, t.names())
		}
		for _, name := range l.Between {
			if idx[name] == 0 {
				return fmt.Errorf("topology.links[%d]: between names %q, which is no switch (switches: %s)", i, name, t.names())
			}
		}
		pair := [2]string{min(l.Between[0], l.Between[1]), max(l.Between[0], l.Between[1])}
		if j, ok := pairs[pair]; ok {
			// Routes take the shortest path, ties to the earlier link:
			// a second link would carry nothing.
			return fmt.Errorf("topology.links[%d]: a second link between %s and %s (links[%d]); one link per pair of switches", i, pair[0], pair[1], j)
		}
		pairs[pair] = i
		if !rateOK(l.Gbps, true, 3200) {
			return fmt.Errorf("topology.links[%d]: gbps must be 0 (link.gbps) or in [%g, 3200], got %g", i, MinGbps, l.Gbps)
		}
		if !(l.PropNs >= 0 && l.PropNs <= MaxPropNs) {
			return fmt.Errorf("topology.links[%d]: prop_ns must be in [0, %g], got %g", i, float64(MaxPropNs), l.PropNs)
		}
		if l.Loss != nil {
			if err := l.Loss.Validate(); err != nil {
				return fmt.Errorf("topology.links[%d].loss: %v", i, err)
			}
		}
	}
	if !t.connected() {
		return fmt.Errorf("topology: the links do not connect every switch")
	}
	return nil
}

func (t *Topology) names() string {
	var ns []string
	for _, sw := range t.Switches {
		ns = append(ns, sw.Name)
	}
	return strings.Join(ns, ", ")
}

func (t *Topology) index(name string) int {
	for i, sw := range t.Switches {
		if sw.Name == name {
			return i
		}
	}
	return -1
}

// connected reports whether every switch is reachable from the first.
func (t *Topology) connected() bool {
	return len(t.reach(0)) == len(t.Switches)
}

// reach is a breadth-first walk from switch src: for every switch reached,
// the link the walk left src by (-1 for src). Links are tried in listed
// order, so routes are deterministic: the shortest path, ties to the
// earlier link.
func (t *Topology) reach(src int) map[int]int {
	first := map[int]int{src: -1}
	queue := []int{src}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for li, l := range t.Links {
			a, b := t.index(l.Between[0]), t.index(l.Between[1])
			if b == at {
				a, b = b, a
			}
			if a != at {
				continue
			}
			if _, seen := first[b]; seen {
				continue
			}
			if at == src {
				first[b] = li
			} else {
				first[b] = first[at]
			}
			queue = append(queue, b)
		}
	}
	return first
}

// plan is the topology laid out: which switch and local port (index into
// FrontPorts) each host and each link end sits on.
type plan struct {
	topo      *Topology
	hostAt    []int    // host -> switch
	hostLocal []int    // host -> local port index on its switch
	linkLocal [][2]int // link -> local port index on each end (in Between order)
	ports     []int    // switch -> local ports in use
	hostsOf   [][]int  // switch -> its hosts, in order
	routes    [][]int  // switch -> destination host -> local port index
}

func newPlan(t *Topology) *plan {
	p := &plan{topo: t, ports: make([]int, len(t.Switches)), hostsOf: make([][]int, len(t.Switches))}
	h := 0
	for si, sw := range t.Switches {
		for k := 0; k < sw.Hosts; k++ {
			p.hostAt = append(p.hostAt, si)
			p.hostLocal = append(p.hostLocal, p.ports[si])
			p.hostsOf[si] = append(p.hostsOf[si], h)
			p.ports[si]++
			h++
		}
	}
	for _, l := range t.Links {
		a, b := t.index(l.Between[0]), t.index(l.Between[1])
		p.linkLocal = append(p.linkLocal, [2]int{p.ports[a], p.ports[b]})
		p.ports[a]++
		p.ports[b]++
	}
	for si := range t.Switches {
		first := t.reach(si)
		r := make([]int, len(p.hostAt))
		for dst, at := range p.hostAt {
			if at == si {
				r[dst] = p.hostLocal[dst]
				continue
			}
			li := first[at]
			end := 0
			if t.index(t.Links[li].Between[0]) != si {
				end = 1
			}
			r[dst] = p.linkLocal[li][end]
		}
		p.routes = append(p.routes, r)
	}
	return p
}

// setupOf is what switch i runs in a variant: its entry in the variant's
// switches, else the variant's own chip and program.
func (v Variant) setupOf(name string) SwitchSetup {
	if o, ok := v.Switches[name]; ok {
		return o
	}
	return SwitchSetup{Chip: v.chipOf(), Program: v.Program, Params: v.Params, Set: v.Set, QueuePackets: v.QueuePackets}
}

// network is the switches of a run, built and joined.
type network struct {
	plan     *plan
	switches []arch.Switch
	front    [][]int            // switch -> FrontPorts()
	losses   []*link.Corruption // link -> its loss process (nil: none)
}

// onLinkLoss calls drop for every frame a lossy link corrupts, with the
// link as the reason ("link A-B: frame lost"), so a run's ledger counts
// it dropped rather than in flight.
func (n *network) onLinkLoss(t *Topology, drop func(pkt *packet.Packet, reason string)) {
	for li, k := range n.losses {
		if k == nil {
			continue
		}
		l := t.Links[li]
		reason := "link " + l.Between[0] + "-" + l.Between[1] + ": frame lost"
		k.OnLoss(func(pkt *packet.Packet, _ int64) { drop(pkt, reason) })
	}
}

// hostPort is the device port host h sits on, and its switch.
func (n *network) hostPort(h int) (arch.Switch, int) {
	si := n.plan.hostAt[h]
	return n.switches[si], n.front[si][n.plan.hostLocal[h]]
}

// buildNetwork builds every switch of the topology for a run, joins them by
// their links and installs routes to every host.
func (s *Scenario) buildNetwork(spec runSpec, engine sim.Engine, deadline int64) (*network, *sonicSwitch, error) {
	t := s.topology()
	p := newPlan(t)
	n := &network{plan: p}
	var sonicSw *sonicSwitch
	w := s.Workload
	for si, ts := range t.Switches {
		setup := spec.variant.setupOf(ts.Name)
		params := map[string]string{}
		for k, v := range setup.Params {
			params[k] = v
		}
		if setup.Program != "" {
			for k, v := range spec.sweepParams {
				params[k] = v
			}
		}
		routes := p.routes[si]
		name := ""
		if len(t.Switches) > 1 {
			name = sim.BuildNameWithIndex("Net", "Switch", si)
		}
		net := &arch.Net{Ports: p.ports[si], LinkGbps: s.Link.Gbps, MSS: s.frameBytes(), HeaderBytes: w.Ctrl, Framing: s.Link.framing(),
			IsHeader: hosts.IsHeader, Trim: func(pkt *packet.Packet) { hosts.Trim(pkt, trimmedBytes(w)) },
			Route: func(pkt *packet.Packet) int {
				if d := hosts.DstHost(pkt); d >= 0 && d < len(routes) {
					return routes[d]
				}
				return -1
			}}
		sw, ss, err := s.buildSwitch(spec, setup, name, engine, deadline, net)
		if err != nil {
			return nil, nil, err
		}
		front := sw.FrontPorts()
		if len(front) < p.ports[si] {
			return nil, nil, fmt.Errorf("switch %s (chip %s) has %d front-panel ports, the topology needs %d", ts.Name, setup.Chip, len(front), p.ports[si])
		}
		if ss != nil {
			if sonicSw != nil {
				return nil, nil, fmt.Errorf("variant %s: one SONiC switch per network is supported", spec.variant.Name)
			}
			sonicSw = ss
		}
		n.switches = append(n.switches, sw)
		n.front = append(n.front, front)
		if len(t.Switches) > 1 && sw.Program() != nil {
			if err := installRoutes(sw, front, routes); err != nil {
				return nil, nil, fmt.Errorf("variant %s: switch %s: %v", spec.variant.Name, ts.Name, err)
			}
		}
		if err := startPktGen(sw, deadline); err != nil {
			return nil, nil, fmt.Errorf("variant %s: switch %s: %v", spec.variant.Name, ts.Name, err)
		}
		if err := startTimers(sw, deadline); err != nil {
			return nil, nil, fmt.Errorf("variant %s: switch %s: %v", spec.variant.Name, ts.Name, err)
		}
	}
	// Every host port runs at its link's rate: only the ideal chip builds
	// its ports at link.gbps, Tofino and Trio at their configured port
	// rate (setPortGbps does nothing where they already agree).
	for h := range p.hostAt {
		g := s.hostGbps(h)
		sw, port := n.hostPort(h)
		if err := setPortGbps(sw, port, g); err != nil {
			return nil, nil, fmt.Errorf("host %d at %g Gb/s: %v", h, g, err)
		}
	}
	for li, l := range t.Links {
		a, b := t.index(l.Between[0]), t.index(l.Between[1])
		pa, pb := n.front[a][p.linkLocal[li][0]], n.front[b][p.linkLocal[li][1]]
		// Both ends at the link's rate (0: link.gbps, as the host links),
		// not at each chip's own port rate: a link has one speed.
		g := l.Gbps
		if g == 0 {
			g = s.Link.Gbps
		}
		for _, end := range []struct {
			sw   arch.Switch
			port int
		}{{n.switches[a], pa}, {n.switches[b], pb}} {
			if err := setPortGbps(end.sw, end.port, g); err != nil {
				return nil, nil, fmt.Errorf("topology.links[%d]: %v", li, err)
			}
		}
		prop := int64(l.PropNs * 1000)
		var loss *link.Corruption
		if l.Loss != nil {
			loss = link.NewCorruption(*l.Loss, spec.seed*7919+int64(li)+1)
		}
		n.losses = append(n.losses, loss)
		n.switches[a].Attach(pa, link.To(n.switches[b].IngressHandler(pb), pb, prop).WithLoss(loss))
		n.switches[b].Attach(pb, link.To(n.switches[a].IngressHandler(pa), pa, prop))
	}
	return n, sonicSw, nil
}

// frameBytes is the largest data frame the workload sends: what an ideal
// switch's queue sizes count in.
func (s *Scenario) frameBytes() int {
	switch w := s.Workload; w.Kind {
	case "udp-risefall":
		return w.FrameBytes
	case "tcp":
		return w.MSS + tcpFrameOverhead
	case "protego-stress":
		return w.FrameBytes
	case "protego-fct", "protego-bulk":
		return s.transportFrameBytes()
	default:
		return w.MSS
	}
}

// transportFrameBytes is the largest frame a protego-fct or protego-bulk
// host sends: a full TCP segment (configs/tcp.yaml's mss) or a RoCE WRITE
// of a path MTU (configs/rdma.yaml). Those files are embedded and checked
// by the runs that read them, so a failure here keeps an Ethernet MTU
// frame.
func (s *Scenario) transportFrameBytes() int {
	const mtuFrame = 1514
	if s.Workload.Transport == "rdma" {
		data, err := configs.Read("rdma.yaml")
		if err != nil {
			return mtuFrame
		}
		cfg, err := rdma.ParseConfig("configs/rdma.yaml", data, rdma.DefaultConfig())
		if err != nil {
			return mtuFrame
		}
		return (&rdma.Header{Opcode: rdma.OpWriteFirst, Payload: cfg.PathMTU}).FrameLen()
	}
	data, err := configs.Read("tcp.yaml")
	if err != nil {
		return mtuFrame
	}
	cfg, err := tcp.ParseConfig("configs/tcp.yaml", data, tcp.DefaultConfig())
	if err != nil {
		return mtuFrame
	}
	return cfg.MSS + tcpFrameOverhead
}

// setPortGbps sets a switch port's speed (nothing to do if it already
// runs at it).
func setPortGbps(sw arch.Switch, port int, gbps float64) error {
	if got, err := sw.IngressGbps(port); err == nil && got == gbps {
		return nil
	}
	pr, ok := sw.(arch.PortRates)
	if !ok {
		return fmt.Errorf("%g Gb/s, but %s cannot set a port's speed", gbps, sw.Name())
	}
	return pr.SetPortGbps(port, gbps)
}

// hostGbps is host h's link rate: its switch's host_gbps entry, else the
// scenario's link rate.
func (s *Scenario) hostGbps(h int) float64 {
	for _, sw := range s.topology().Switches {
		if h < sw.Hosts {
			if h < len(sw.HostGbps) && sw.HostGbps[h] > 0 {
				return sw.HostGbps[h]
			}
			return s.Link.Gbps
		}
		h -= sw.Hosts
	}
	return s.Link.Gbps
}

// startPktGen installs the program's packet-generator applications (the
// control plane's set-up the program expects) and enables them from the
// start of the run until its deadline.
func startPktGen(sw arch.Switch, deadline int64) error {
	prog := sw.Program()
	if prog == nil || len(prog.Pktgen) == 0 {
		return nil
	}
	gen, ok := sw.(arch.PacketGenerator)
	if !ok {
		return fmt.Errorf("program %s has packet-generator applications, but %s has no packet generator", prog.Name, sw.Name())
	}
	if err := gen.ConfigurePktGen(prog.Pktgen); err != nil {
		return err
	}
	for _, a := range prog.Pktgen {
		if err := gen.EnablePktGen(a.Name, 0, deadline); err != nil {
			return err
		}
	}
	return nil
}

// startTimers starts the program's timers (Trio's timer threads) from the
// start of the run until its deadline.
func startTimers(sw arch.Switch, deadline int64) error {
	prog := sw.Program()
	if prog == nil || len(prog.Timers) == 0 {
		return nil
	}
	ts, ok := sw.(arch.TimerSwitch)
	if !ok {
		return fmt.Errorf("program %s has timers, but %s runs no timer threads", prog.Name, sw.Name())
	}
	ts.StartTimers(deadline)
	return nil
}

// installRoutes writes the route to every host into a switch's program
// through its control plane: the program's routes section says how.
func installRoutes(sw arch.Switch, front []int, routes []int) error {
	prog := sw.Program()
	ports := make([]int, len(routes))
	for h, local := range routes {
		ports[h] = front[local]
	}
	r, err := prog.RouteEntries(ports)
	if err != nil {
		return err
	}
	return sw.WriteTable(r.Table, r.Entries)
}

// cbrTrimmedBytes is the length of a cbr packet the ideal switch trims:
// cbr has no ctrl size, and a trimmed packet is a header, 64 bytes as the
// ndp workloads' (htsim's ACKSIZE), not an empty frame.
const cbrTrimmedBytes = 64

// trimmedBytes is the length of a packet the ideal switch trims.
func trimmedBytes(w Workload) int {
	if w.Ctrl > 0 {
		return w.Ctrl
	}
	return cbrTrimmedBytes
}
