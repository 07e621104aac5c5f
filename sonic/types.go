// Package sonic is SONiC's configuration of a switch, as far as packet
// trimming needs it: CONFIG_DB tables in their JSON shape, validated the way
// SONiC's layers validate them (YANG types and ranges, the switch's
// capabilities, orchagent's rules), applied atomically to a running model
// (config reload and `config apply-patch`), and translated into what the
// model programs: the traffic manager's trimming policy, buffer profiles,
// schedulers and port states, and the entries of the sonic-l3 program's
// tables (routes, LAGs, QoS maps, ACLs).
//
// Sources: sonic-net/SONiC doc/packet_trimming (HLD), sonic-buildimage
// sonic-trimming.yang and sonic-buffer-profile.yang, sonic-swss
// switchorch.cpp / bufferorch.cpp, sonic-mgmt tests/packet_trimming
// (see ../shared/references/sonic-trimming.md).
package sonic

// DB is CONFIG_DB as JSON: table → key → field → value. Values are strings,
// or lists of strings for list fields (ACL_TABLE.PORTS,
// ACL_TABLE_TYPE.MATCHES, PORTCHANNEL.members, ...).
type DB map[string]map[string]map[string]any

// Capabilities is what the switch reports in STATE_DB
// SWITCH_CAPABILITY|switch, plus the platform's trim-size range (vendor SAI
// checks no SONiC layer makes). They come from the chip config.
type Capabilities struct {
	Trimming       bool     // SWITCH_TRIMMING_CAPABLE
	DSCPModes      []string // PACKET_TRIMMING_DSCP_RESOLUTION_MODE: DSCP_VALUE, FROM_TC
	QueueModes     []string // PACKET_TRIMMING_QUEUE_RESOLUTION_MODE: STATIC, DYNAMIC
	TrafficClasses int      // NUMBER_OF_TRAFFIC_CLASSES
	UnicastQueues  int      // NUMBER_OF_UNICAST_QUEUES (per port)
	MinTrimSize    int      // bytes; the platform rejects smaller sizes
	MaxTrimSize    int      // bytes
	Ports          int      // front-panel ports: Ethernet0, Ethernet4, ... Ethernet(4*(Ports-1))
	BufferBytes    int64    // the shared buffer, the largest pool size
}

// Resolution modes (SAI names).
const (
	DSCPValue   = "DSCP_VALUE"
	DSCPFromTC  = "FROM_TC"
	QueueStatic = "STATIC"
	QueueDyn    = "DYNAMIC"
)

// Trimming is SWITCH_TRIMMING|GLOBAL as the ASIC is programmed.
//
// DSCP, TC and Queue mean something only in their mode; the Runtime keeps
// the last programmed value of an inactive one (orchagent caches it).
type Trimming struct {
	Size      int    `json:"size"`       // bytes a trimmed packet keeps
	DSCPMode  string `json:"dscp_mode"`  // DSCPValue or DSCPFromTC
	DSCP      int    `json:"dscp"`       // DSCPValue: the trimmed packet's DSCP
	TC        int    `json:"tc"`         // DSCPFromTC: key into the egress port's TC_TO_DSCP_MAP
	QueueMode string `json:"queue_mode"` // QueueStatic or QueueDyn
	Queue     int    `json:"queue"`      // QueueStatic: the trim queue
}

// Pool is a BUFFER_POOL.
type Pool struct {
	Name  string
	Type  string // ingress or egress
	Mode  string // static or dynamic
	Bytes int64  // size; 0: the whole shared buffer
}

// Profile is a BUFFER_PROFILE.
type Profile struct {
	Name         string
	Pool         string
	Bytes        int64 // reserved (guaranteed) size
	DynamicTh    *int  // dynamic_th: a queue may use 2^th of the pool's free space; nil: static_th
	StaticTh     int64 // static_th: a fixed limit in bytes (when DynamicTh is nil)
	DiscardTrim  bool  // packet_discard_action = trim
	ReferencedBy []string
}

// PortQueue names one queue of one port.
type PortQueue struct {
	Port  string // EthernetN
	Queue int
}

// Scheduler is a SCHEDULER entry.
type Scheduler struct {
	Name   string
	Type   string  // DWRR, WRR or STRICT
	Weight int     // DWRR/WRR weight (1..100)
	PIR    float64 // peak rate in bytes/s (0: unshaped)
	CIR    float64
}

// ACLRule is one ACL_RULE with PACKET_ACTION DISABLE_TRIM, resolved to the
// ports its table is bound to.
type ACLRule struct {
	Table    string
	Name     string
	Priority int      // higher wins (SONiC)
	Ports    []string // ingress ports of the table (LAG names expanded to members)
	SrcIPv4  string   // prefix "a.b.c.d/len", or ""
	SrcIPv6  string   // prefix "x::y/len", or ""
}

// Route is a STATIC_ROUTE: a prefix to an interface (port or PortChannel).
type Route struct {
	Prefix string // "10.1.0.0/16" or "2001:db8::/32"
	IfName string
}

// Config is a validated CONFIG_DB: what the model programs.
type Config struct {
	Trimming *Trimming // nil: SWITCH_TRIMMING|GLOBAL absent

	Pools    map[string]Pool
	Profiles map[string]Profile
	Queues   map[PortQueue]string // BUFFER_QUEUE: queue → profile (ranges "0-2" expanded)

	DSCPToTC  map[string]map[int]int // DSCP_TO_TC_MAP name → dscp → tc
	TCToQueue map[string]map[int]int // TC_TO_QUEUE_MAP name → tc → queue
	TCToDSCP  map[string]map[int]int // TC_TO_DSCP_MAP name → tc → dscp
	PortQoS   map[string]PortQoS     // PORT_QOS_MAP port → map names

	Schedulers      map[string]Scheduler
	QueueSchedulers map[PortQueue]string // QUEUE|EthernetN|q → scheduler name

	PortChannels map[string][]string // PortChannelN → member ports, in order
	AdminDown    map[string]bool     // PORT|EthernetN admin_status down (LAGs too)

	ACLRules []ACLRule // DISABLE_TRIM rules, ordered by priority (highest first), then name
	Routes   []Route   // sorted by prefix string
}

// PortQoS is one PORT_QOS_MAP entry.
type PortQoS struct {
	DSCPToTC  string
	TCToQueue string
	TCToDSCP  string
}
