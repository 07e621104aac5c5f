// Package orch is SONiC's orchestration agent and SAI for the Tofino model:
// it programs a running switch from a validated CONFIG_DB (package sonic):
// the sonic-l3 program's tables (routes, port channels, QoS maps, ACL
// DISABLE_TRIM rules) and the traffic manager (buffer pools and profiles,
// schedulers, port admin state, the trimming policy). It also reads the
// counters back the way SONiC shows them.
package orch

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"archsim/arch/tofino"
	tofinotm "archsim/arch/tofino/tm"
	"archsim/programs"
	"archsim/sonic"
)

// Program is the data-plane program the agent programs.
const Program = "sonic-l3"

// lagBuckets is the number of hash buckets per port channel in lag_member.
const lagBuckets = 16

// Capabilities is what the chip reports to SONiC.
func Capabilities(c *tofino.Config) sonic.Capabilities {
	return sonic.Capabilities{
		Trimming:       c.SONiC.TrimmingCapable,
		DSCPModes:      append([]string(nil), c.SONiC.DSCPModes...),
		QueueModes:     append([]string(nil), c.SONiC.QueueModes...),
		TrafficClasses: c.SONiC.TrafficClasses,
		UnicastQueues:  c.TM.QueuesPerPort,
		MinTrimSize:    c.SONiC.MinTrimSize,
		MaxTrimSize:    c.SONiC.MaxTrimSize,
		Ports:          c.Pipes * c.FrontPortsPerPipe,
		BufferBytes:    c.TM.BufferBytes,
	}
}

// PortName is the SONiC name of front-panel port i (host i's port):
// Ethernet0, Ethernet4, ... (four lanes per port).
func PortName(i int) string { return "Ethernet" + strconv.Itoa(4*i) }

// PortIndex is the front-panel index of a SONiC port name.
func PortIndex(name string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "Ethernet"))
	if err != nil || !strings.HasPrefix(name, "Ethernet") || n < 0 || n%4 != 0 {
		return 0, false
	}
	return n / 4, true
}

// DevPort is the device port of a SONiC port name.
func DevPort(c *tofino.Config, name string) (int, bool) {
	i, ok := PortIndex(name)
	if !ok || i >= c.Pipes*c.FrontPortsPerPipe {
		return 0, false
	}
	return c.DevPort(i/c.FrontPortsPerPipe, i%c.FrontPortsPerPipe), true
}

// Agent programs one switch.
type Agent struct {
	sw  *tofino.Switch
	cfg *sonic.Config
	// aclCounter maps an ACL rule (TABLE|RULE) to its counter index in
	// acl_rule_hits; a rule created again gets a fresh counter, as SONiC
	// creates a new ACL counter with the rule.
	aclCounter map[string]int
	aclNext    int
	// The assignment of the configuration being programmed.
	pendingACL  map[string]int
	pendingNext int
	// ports lists the front-panel ports (name, device port) in order.
	ports []portRef
}

type portRef struct {
	name string
	dev  int
}

// New returns an agent for a switch running the sonic-l3 program.
func New(sw *tofino.Switch) (*Agent, error) {
	if sw.Program().Name != Program {
		return nil, fmt.Errorf("a SONiC configuration programs the %s program; the switch runs %s", Program, sw.Program().Name)
	}
	c := sw.Config()
	a := &Agent{sw: sw}
	for i := 0; i < c.Pipes*c.FrontPortsPerPipe; i++ {
		a.ports = append(a.ports, portRef{PortName(i), c.DevPort(i/c.FrontPortsPerPipe, i%c.FrontPortsPerPipe)})
	}
	return a, nil
}

// Config is the configuration last programmed (nil before Program).
func (a *Agent) Config() *sonic.Config { return a.cfg }

// Program makes the switch match cfg: every table the agent owns is
// rewritten and every queue, pool and port re-set, so programming is
// idempotent and a removed setting returns to its default. Counters and
// queued packets stay. now is the simulation time (ps) of the change.
func (a *Agent) Program(cfg *sonic.Config, now int64) error {
	tables, err := a.tableEntries(cfg)
	if err != nil {
		return err
	}
	// Tables first (all or nothing: entries are built before any write).
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if t := a.sw.Program().Table(n); t != nil && len(tables[n]) > t.Size {
			return fmt.Errorf("table %s holds %d entries; the configuration needs %d", n, t.Size, len(tables[n]))
		}
	}
	for _, n := range names {
		if err := a.sw.WriteTable(n, tables[n]); err != nil {
			return err
		}
	}
	if err := a.programTM(cfg, now); err != nil {
		return err
	}
	a.cfg = cfg
	a.aclCounter, a.aclNext = a.pendingACL, a.pendingNext
	return nil
}

// members resolves a port or port channel name to device ports.
func (a *Agent) members(cfg *sonic.Config, name string) ([]int, error) {
	if ms, ok := cfg.PortChannels[name]; ok {
		var out []int
		for _, m := range ms {
			d, ok := DevPort(a.sw.Config(), m)
			if !ok {
				return nil, fmt.Errorf("%s: member %s is not a port of this chip", name, m)
			}
			out = append(out, d)
		}
		return out, nil
	}
	d, ok := DevPort(a.sw.Config(), name)
	if !ok {
		return nil, fmt.Errorf("%s is not a port of this chip", name)
	}
	return []int{d}, nil
}

func lagNames(cfg *sonic.Config) []string {
	names := make([]string, 0, len(cfg.PortChannels))
	for n := range cfg.PortChannels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// tableEntries builds the contents of the sonic-l3 tables.
func (a *Agent) tableEntries(cfg *sonic.Config) (map[string][]*programs.Entry, error) {
	prog := a.sw.Program()
	out := map[string][]*programs.Entry{}
	add := func(table string, ms []programs.Match, action string, args []int64, prio int) error {
		t := prog.Table(table)
		if t == nil {
			return fmt.Errorf("program %s has no table %s", prog.Name, table)
		}
		e, err := t.NewEntry(ms, action, args, prio)
		if err != nil {
			return err
		}
		out[table] = append(out[table], e)
		return nil
	}
	for _, t := range []string{"route_v4", "route_v6", "lag_member", "acl_v4", "acl_v6", "dscp_to_tc", "tc_to_queue"} {
		out[t] = nil // rewritten even when empty
	}

	// Port channels: id = 1 + index in name order; buckets round robin
	// over the members.
	lagID := map[string]int{}
	for i, n := range lagNames(cfg) {
		lagID[n] = i + 1
		ms, err := a.members(cfg, n)
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			continue
		}
		for b := 0; b < lagBuckets; b++ {
			if err := add("lag_member", []programs.Match{{Value: int64(i + 1)}, {Value: int64(b)}}, "to_port", []int64{int64(ms[b%len(ms)])}, 0); err != nil {
				return nil, err
			}
		}
	}

	// Routes.
	for _, r := range cfg.Routes {
		pfx, err := netip.ParsePrefix(r.Prefix)
		if err != nil {
			return nil, fmt.Errorf("STATIC_ROUTE|%s: %v", r.Prefix, err)
		}
		action, arg := "to_port", int64(0)
		if id, ok := lagID[r.IfName]; ok {
			action, arg = "to_lag", int64(id)
		} else if d, ok := DevPort(a.sw.Config(), r.IfName); ok {
			arg = int64(d)
		} else {
			return nil, fmt.Errorf("STATIC_ROUTE|%s: ifname %s is not a port or port channel", r.Prefix, r.IfName)
		}
		addr := pfx.Masked().Addr()
		if addr.Is4() {
			b := addr.As4()
			v := int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3])
			err = add("route_v4", []programs.Match{{Value: v, Prefix: pfx.Bits()}}, action, []int64{arg}, 0)
		} else {
			if pfx.Bits() > 64 {
				return nil, fmt.Errorf("STATIC_ROUTE|%s: IPv6 routes longer than /64 are not modelled (the route table matches the upper 64 bits)", r.Prefix)
			}
			hi, _ := split6(addr)
			err = add("route_v6", []programs.Match{{Value: hi, Prefix: pfx.Bits()}}, action, []int64{arg}, 0)
		}
		if err != nil {
			return nil, err
		}
	}

	// ACL DISABLE_TRIM rules, in priority order (i is the entry
	// priority); each rule keeps its own counter while it exists.
	counters, err := a.aclCounters(cfg)
	if err != nil {
		return nil, err
	}
	for i, r := range cfg.ACLRules {
		ctr := int64(counters[r.Table+"|"+r.Name])
		for _, port := range r.Ports {
			d, ok := DevPort(a.sw.Config(), port)
			if !ok {
				return nil, fmt.Errorf("ACL_RULE|%s|%s: %s is not a port of this chip", r.Table, r.Name, port)
			}
			if r.SrcIPv4 != "" {
				pfx, err := netip.ParsePrefix(r.SrcIPv4)
				if err != nil {
					return nil, fmt.Errorf("ACL_RULE|%s|%s: SRC_IP: %v", r.Table, r.Name, err)
				}
				b := pfx.Masked().Addr().As4()
				v := int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3])
				m := int64(0)
				if pfx.Bits() > 0 {
					m = int64(uint32(0xffffffff) << (32 - pfx.Bits()))
				}
				if err := add("acl_v4", []programs.Match{{Value: int64(d)}, {Value: v, Mask: m}}, "disable_trim", []int64{ctr}, i); err != nil {
					return nil, err
				}
			}
			if r.SrcIPv6 != "" {
				pfx, err := netip.ParsePrefix(r.SrcIPv6)
				if err != nil {
					return nil, fmt.Errorf("ACL_RULE|%s|%s: SRC_IPV6: %v", r.Table, r.Name, err)
				}
				hi, lo := split6(pfx.Masked().Addr())
				mhi, mlo := mask6(pfx.Bits())
				if err := add("acl_v6", []programs.Match{{Value: int64(d)}, {Value: hi, Mask: mhi}, {Value: lo, Mask: mlo}}, "disable_trim", []int64{ctr}, i); err != nil {
					return nil, err
				}
			}
		}
	}

	// QoS maps: DSCP_TO_TC of each ingress port, TC_TO_QUEUE of each
	// egress port (a port channel's map applies to its members).
	for _, pq := range a.qosPorts(cfg) {
		q := pq.q
		if m, ok := cfg.DSCPToTC[q.DSCPToTC]; ok {
			for _, dscp := range sortedKeys(m) {
				if err := add("dscp_to_tc", []programs.Match{{Value: int64(pq.dev)}, {Value: int64(dscp)}}, "set_tc", []int64{int64(m[dscp])}, 0); err != nil {
					return nil, err
				}
			}
		}
		if m, ok := cfg.TCToQueue[q.TCToQueue]; ok {
			for _, tc := range sortedKeys(m) {
				if err := add("tc_to_queue", []programs.Match{{Value: int64(pq.dev)}, {Value: int64(tc)}}, "set_queue", []int64{int64(m[tc])}, 0); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// qosPorts lists every front-panel port with the QoS maps that apply to
// it: its own PORT_QOS_MAP entry, maps it does not name taken from its
// port channel's entry.
func (a *Agent) qosPorts(cfg *sonic.Config) []portQoS {
	var out []portQoS
	for _, p := range a.ports {
		if q := cfg.PortQoSFor(p.name); q != (sonic.PortQoS{}) {
			out = append(out, portQoS{p.dev, q})
		}
	}
	return out
}

type portQoS struct {
	dev int
	q   sonic.PortQoS
}

// portQoS is the QoS maps that apply to a device port.
func (a *Agent) portQoS(cfg *sonic.Config, dev int) (sonic.PortQoS, bool) {
	for _, p := range a.ports {
		if p.dev == dev {
			q := cfg.PortQoSFor(p.name)
			return q, q != (sonic.PortQoS{})
		}
	}
	return sonic.PortQoS{}, false
}

// programTM sets pools, queues, port states and the trimming policy.
func (a *Agent) programTM(cfg *sonic.Config, now int64) error {
	tm := a.sw.TM()
	for _, n := range sortedNames(cfg.Pools) {
		if p := cfg.Pools[n]; p.Type == "egress" {
			tm.SetPool(n, p.Bytes)
		}
	}
	nq := tm.QueuesPerPort()
	lagDown := map[string]bool{}
	for _, lag := range lagNames(cfg) {
		for _, m := range cfg.PortChannels[lag] {
			lagDown[m] = lagDown[m] || cfg.AdminDown[lag]
		}
	}
	for _, p := range a.ports {
		for q := 0; q < nq; q++ {
			pq := sonic.PortQueue{Port: p.name, Queue: q}
			var s tofinotm.QueueSetup
			if name, ok := cfg.Queues[pq]; ok {
				prof := cfg.Profiles[name]
				if pool, ok := cfg.Pools[prof.Pool]; ok && pool.Type == "egress" {
					s.Pool = prof.Pool
				}
				s.ReserveBytes = prof.Bytes
				s.DynamicTh = prof.DynamicTh
				s.StaticBytes = prof.StaticTh
				s.Trim = prof.DiscardTrim
			}
			if name, ok := cfg.QueueSchedulers[pq]; ok {
				sch := cfg.Schedulers[name]
				s.Strict = sch.Type == "STRICT"
				s.Weight = sch.Weight
				s.PIRBps = sch.PIR
			}
			if err := tm.SetupQueue(p.dev, q, s, now); err != nil {
				return err
			}
		}
		tm.SetPortAdmin(p.dev, !cfg.AdminDown[p.name] && !lagDown[p.name], now)
	}
	if cfg.Trimming == nil {
		tm.SetTrimPolicy(nil)
		return nil
	}
	tr := *cfg.Trimming
	pol := &tofinotm.TrimPolicy{Size: tr.Size}
	if tr.DSCPMode == sonic.DSCPFromTC {
		pol.DSCP = func(port int) (int, bool) {
			q, ok := a.portQoS(cfg, port)
			if !ok {
				return 0, false
			}
			d, ok := cfg.TCToDSCP[q.TCToDSCP][tr.TC]
			return d, ok
		}
	} else {
		pol.DSCP = func(int) (int, bool) { return tr.DSCP, true }
	}
	if tr.QueueMode == sonic.QueueDyn {
		pol.Queue = func(inPort, port, dscp int) int {
			tc := 0
			if q, ok := a.portQoS(cfg, inPort); ok {
				tc = cfg.DSCPToTC[q.DSCPToTC][dscp]
			}
			queue := tc
			if q, ok := a.portQoS(cfg, port); ok {
				if v, ok := cfg.TCToQueue[q.TCToQueue][tc]; ok {
					queue = v
				}
			}
			return queue
		}
	} else {
		pol.Queue = func(int, int, int) int { return tr.Queue }
	}
	tm.SetTrimPolicy(pol)
	return nil
}

// aclCounters assigns counter indices: kept for rules that stay, fresh
// (never reused) for new ones. The assignment is committed only when the
// whole configuration is programmed (a refused one changes nothing).
func (a *Agent) aclCounters(cfg *sonic.Config) (map[string]int, error) {
	size := 0
	for _, c := range a.sw.Program().Counters {
		if c.Name == "acl_rule_hits" {
			size = c.Size
		}
	}
	out := map[string]int{}
	next := a.aclNext
	for _, r := range cfg.ACLRules {
		k := r.Table + "|" + r.Name
		if i, ok := a.aclCounter[k]; ok {
			out[k] = i
			continue
		}
		if next >= size {
			return nil, fmt.Errorf("ACL_RULE|%s: the switch has run out of ACL counters (%d)", k, size)
		}
		out[k] = next
		next++
	}
	a.pendingACL, a.pendingNext = out, next
	return out, nil
}

// split6 returns an IPv6 address's upper and lower 64 bits.
func split6(a netip.Addr) (hi, lo int64) {
	b := a.As16()
	for i := 0; i < 8; i++ {
		hi = hi<<8 | int64(b[i])
		lo = lo<<8 | int64(b[8+i])
	}
	return hi, lo
}

// mask6 returns the masks of a /bits IPv6 prefix for the two halves.
func mask6(bits int) (hi, lo int64) {
	half := func(n int) int64 {
		switch {
		case n <= 0:
			return 0
		case n >= 64:
			return -1
		}
		return int64(^uint64(0) << (64 - n))
	}
	return half(bits), half(bits - 64)
}

func sortedKeys(m map[int]int) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

func sortedNames[V any](m map[string]V) []string {
	ns := make([]string, 0, len(m))
	for n := range m {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
