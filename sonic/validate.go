package sonic

import (
	"fmt"
	"slices"
	"strings"
)

// Validate checks CONFIG_DB the way SONiC's layers would (YANG types,
// ranges and leafrefs; the switch's capabilities; orchagent's rules) and
// returns what the switch would be programmed with. Tables without a model
// here are ignored, as SONiC ignores tables it has no YANG for; unknown
// fields of the tables modelled here are errors.
//
// The first error found is returned, as one line:
//
//	TABLE|key: field: what is wrong (got "value")
//
// Tables are checked in the order of validationOrder (a table after the
// tables it refers to), and keys and fields in sorted order, so the same
// input always gives the same error.
//
// Validate has no history: trimming fields whose resolution mode is not
// active are 0 here (SAI defaults); Runtime keeps their last programmed
// values instead, as orchagent does.
func Validate(db DB, caps Capabilities) (*Config, error) {
	v := &validator{
		db:    db,
		caps:  caps,
		lagOf: map[string]string{},
		refs:  map[string][]string{},
		cfg: &Config{
			Pools:           map[string]Pool{},
			Profiles:        map[string]Profile{},
			Queues:          map[PortQueue]string{},
			DSCPToTC:        map[string]map[int]int{},
			TCToQueue:       map[string]map[int]int{},
			TCToDSCP:        map[string]map[int]int{},
			PortQoS:         map[string]PortQoS{},
			Schedulers:      map[string]Scheduler{},
			QueueSchedulers: map[PortQueue]string{},
			PortChannels:    map[string][]string{},
			AdminDown:       map[string]bool{},
		},
		aclTypes:  map[string]aclTableType{},
		aclTables: map[string]aclTable{},
	}
	for _, step := range v.validationOrder() {
		if err := step.check(); err != nil {
			return nil, err
		}
	}
	v.finish()
	return v.cfg, nil
}

// validator holds what has been checked so far, for the leafrefs of the
// tables checked later.
type validator struct {
	db   DB
	caps Capabilities
	cfg  *Config

	lagOf     map[string]string   // port → its PortChannel
	refs      map[string][]string // profile → referencing keys
	aclTypes  map[string]aclTableType
	aclTables map[string]aclTable
}

type step struct {
	table string
	check func() error
}

// validationOrder lists the modelled tables, each after the tables it
// refers to.
func (v *validator) validationOrder() []step {
	return []step{
		{"SWITCH_TRIMMING", v.switchTrimming},
		{"PORT", v.ports},
		{"PORTCHANNEL", v.portChannels},
		{"PORTCHANNEL_MEMBER", v.portChannelMembers},
		{"BUFFER_POOL", v.bufferPools},
		{"BUFFER_PROFILE", v.bufferProfiles},
		{"BUFFER_QUEUE", v.bufferQueues},
		{"BUFFER_PG", v.bufferPGs},
		{"BUFFER_PORT_INGRESS_PROFILE_LIST", func() error { return v.profileLists("BUFFER_PORT_INGRESS_PROFILE_LIST", "ingress") }},
		{"BUFFER_PORT_EGRESS_PROFILE_LIST", func() error { return v.profileLists("BUFFER_PORT_EGRESS_PROFILE_LIST", "egress") }},
		{"DSCP_TO_TC_MAP", func() error { return v.qosMap("DSCP_TO_TC_MAP", dscpDomain(), v.tcDomain(), v.cfg.DSCPToTC) }},
		{"TC_TO_QUEUE_MAP", func() error { return v.qosMap("TC_TO_QUEUE_MAP", v.tcDomain(), v.queueDomain(), v.cfg.TCToQueue) }},
		{"TC_TO_DSCP_MAP", func() error { return v.qosMap("TC_TO_DSCP_MAP", v.tcDomain(), dscpDomain(), v.cfg.TCToDSCP) }},
		{"PORT_QOS_MAP", v.portQoSMaps},
		{"SCHEDULER", v.schedulers},
		{"QUEUE", v.queueSchedulers},
		{"ACL_TABLE_TYPE", v.aclTableTypes},
		{"ACL_TABLE", v.aclTablesCheck},
		{"ACL_RULE", v.aclRules},
		{"STATIC_ROUTE", v.staticRoutes},
	}
}

// ModelledTables lists the CONFIG_DB tables Validate checks, in the order
// it checks them. Other tables are ignored.
func ModelledTables() []string {
	var v validator
	var names []string
	for _, s := range v.validationOrder() {
		names = append(names, s.table)
	}
	return names
}

// finish fills what is known only once every table was read.
func (v *validator) finish() {
	for name, p := range v.cfg.Profiles {
		refs := slices.Clone(v.refs[name])
		slices.Sort(refs)
		p.ReferencedBy = slices.Compact(refs)
		v.cfg.Profiles[name] = p
	}
}

// unicastQueues is the number of unicast queues per port (256, a uint8,
// when the switch does not report it).
func (v *validator) unicastQueues() int {
	if v.caps.UnicastQueues > 0 {
		return v.caps.UnicastQueues
	}
	return 256
}

// trafficClasses is the number of traffic classes (256 when unreported).
func (v *validator) trafficClasses() int {
	if v.caps.TrafficClasses > 0 {
		return v.caps.TrafficClasses
	}
	return 256
}

// isPort reports whether name is a front-panel port: EthernetN with N a
// multiple of 4 below 4*caps.Ports, written without leading zeros.
func (v *validator) isPort(name string) bool {
	n, ok := portNumber(name)
	return ok && n%4 == 0 && n/4 < v.caps.Ports
}

// portNumber is N of EthernetN (-1, false for anything else).
func portNumber(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "Ethernet")
	if !ok || (len(digits) > 1 && digits[0] == '0') {
		return -1, false
	}
	n, ok := parseUint(digits, 31)
	if !ok {
		return -1, false
	}
	return int(n), true
}

// portRule describes the valid port names, for errors.
func (v *validator) portRule() string {
	switch v.caps.Ports {
	case 0:
		return "the switch has no ports"
	case 1:
		return "the only port is Ethernet0"
	case 2:
		return "ports are Ethernet0 and Ethernet4"
	}
	return fmt.Sprintf("ports are Ethernet0, Ethernet4, ..., Ethernet%d", 4*(v.caps.Ports-1))
}

// sortPorts orders port names by port number.
func sortPorts(ports []string) {
	slices.SortFunc(ports, func(a, b string) int {
		na, _ := portNumber(a)
		nb, _ := portNumber(b)
		if na != nb {
			return na - nb
		}
		return strings.Compare(a, b)
	})
}

// isPortChannelName reports whether name is PortChannel followed by 1 to
// 4 digits (the SONiC YANG pattern).
func isPortChannelName(name string) bool {
	digits, ok := strings.CutPrefix(name, "PortChannel")
	if !ok || len(digits) < 1 || len(digits) > 4 {
		return false
	}
	_, ok = parseUint(digits, 16)
	return ok
}

// checkPort refuses a name that is not a front-panel port.
func (v *validator) checkPort(table, key, field, name string) error {
	if v.isPort(name) {
		return nil
	}
	return entryErr(table, key, field, name, "not a port: %s", v.portRule())
}

// checkInterface refuses a name that is neither a front-panel port nor a
// PortChannel defined in PORTCHANNEL.
func (v *validator) checkInterface(table, key, field, name string) error {
	if v.isPort(name) {
		return nil
	}
	if isPortChannelName(name) {
		if _, ok := v.cfg.PortChannels[name]; ok {
			return nil
		}
		return entryErr(table, key, field, name, "no such PORTCHANNEL")
	}
	return entryErr(table, key, field, name, "not a port or PortChannel: %s", v.portRule())
}

// splitKey splits a key "a|b" into n parts, or reports the expected form.
func splitKey(table, key string, n int, form string) ([]string, error) {
	parts := strings.Split(key, "|")
	if len(parts) != n {
		return nil, entryErr(table, key, "", noValue, "key must be %s", form)
	}
	return parts, nil
}

// domain is an integer range lo..hi with a name for errors.
type domain struct {
	what   string
	lo, hi int
}

func dscpDomain() domain { return domain{"a DSCP", 0, 63} }

func (v *validator) tcDomain() domain {
	return domain{"a traffic class", 0, v.trafficClasses() - 1}
}

func (v *validator) queueDomain() domain {
	return domain{"a unicast queue", 0, v.unicastQueues() - 1}
}

func (d domain) String() string { return fmt.Sprintf("%s %d..%d", d.what, d.lo, d.hi) }
