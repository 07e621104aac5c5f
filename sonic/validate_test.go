package sonic

import (
	"reflect"
	"strings"
	"testing"
)

func TestBufferConfig(t *testing.T) {
	cfg, err := Validate(mustParse(t, bufferDoc), testCaps())
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Pools["egress_lossy_pool"]; p != (Pool{Name: "egress_lossy_pool", Type: "egress", Mode: "dynamic"}) {
		t.Errorf("egress pool: %+v", p)
	}
	if p := cfg.Pools["ingress_lossless_pool"]; p.Bytes != 1048576 || p.Type != "ingress" {
		t.Errorf("ingress pool: %+v", p)
	}
	trim := cfg.Profiles["q_lossy_trim_profile"]
	if !trim.DiscardTrim || trim.DynamicTh == nil || *trim.DynamicTh != 3 || trim.Pool != "egress_lossy_pool" {
		t.Errorf("trim profile: %+v", trim)
	}
	if want := []string{"BUFFER_QUEUE|Ethernet0|3", "BUFFER_QUEUE|Ethernet4|3"}; !reflect.DeepEqual(trim.ReferencedBy, want) {
		t.Errorf("ReferencedBy = %q, want %q", trim.ReferencedBy, want)
	}
	if st := cfg.Profiles["egress_static_profile"]; st.DynamicTh != nil || st.StaticTh != 12000 || st.Bytes != 1500 {
		t.Errorf("static profile: %+v", st)
	}
	if got := cfg.Profiles["egress_static_profile"].ReferencedBy; !reflect.DeepEqual(got, []string{"BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet0"}) {
		t.Errorf("static profile ReferencedBy = %q", got)
	}
	if got := cfg.Profiles["pg_lossless_profile"].ReferencedBy; !reflect.DeepEqual(got, []string{"BUFFER_PG|Ethernet0|3-4"}) {
		t.Errorf("PG profile ReferencedBy = %q", got)
	}
	wantQueues := map[PortQueue]string{
		{"Ethernet0", 0}: "q_lossy_profile", {"Ethernet0", 1}: "q_lossy_profile", {"Ethernet0", 2}: "q_lossy_profile",
		{"Ethernet0", 3}: "q_lossy_trim_profile", {"Ethernet4", 3}: "q_lossy_trim_profile",
		{"Ethernet0", 6}: "trim_queue_test_profile",
	}
	if !reflect.DeepEqual(cfg.Queues, wantQueues) {
		t.Errorf("Queues = %v", cfg.Queues)
	}
	if got, want := cfg.TrimQueues(), []PortQueue{{"Ethernet0", 3}, {"Ethernet4", 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("TrimQueues = %v, want %v", got, want)
	}
}

// withDoc parses bufferDoc and applies edits: table → key → fields (nil
// fields delete the key).
func withDoc(t *testing.T, doc string, edits DB) DB {
	t.Helper()
	db := mustParse(t, doc)
	for table, keys := range edits {
		if db[table] == nil {
			db[table] = map[string]map[string]any{}
		}
		for key, fields := range keys {
			if fields == nil {
				delete(db[table], key)
				continue
			}
			db[table][key] = fields
		}
	}
	return db
}

func TestBufferErrors(t *testing.T) {
	cases := []struct {
		name  string
		edits DB
		want  string
	}{
		{"pool type", DB{"BUFFER_POOL": {"p": {"type": "both"}}}, `BUFFER_POOL|p: type: invalid enumeration value: must be ingress or egress (got "both")`},
		{"pool type required", DB{"BUFFER_POOL": {"p": {"mode": "static"}}}, `BUFFER_POOL|p: type: required (ingress or egress)`},
		{"pool size", DB{"BUFFER_POOL": {"p": {"type": "egress", "size": "1e6"}}}, `BUFFER_POOL|p: size: must be a number of bytes (unsigned integer) (got "1e6")`},
		{"pool too large", DB{"BUFFER_POOL": {"p": {"type": "egress", "size": "67108865"}}}, `BUFFER_POOL|p: size: larger than the switch's shared buffer (67108864 bytes)`},
		{"pool unknown field", DB{"BUFFER_POOL": {"p": {"type": "egress", "sise": "1"}}}, `BUFFER_POOL|p: sise: unknown field`},
		{"discard action", DB{"BUFFER_PROFILE": {"x": {"pool": "egress_lossy_pool", "dynamic_th": "0", "packet_discard_action": "truncate"}}}, `BUFFER_PROFILE|x: packet_discard_action: invalid enumeration value: must be drop or trim (got "truncate")`},
		{"no pool", DB{"BUFFER_PROFILE": {"x": {"pool": "nope", "dynamic_th": "0"}}}, `BUFFER_PROFILE|x: pool: no such BUFFER_POOL (got "nope")`},
		{"both thresholds", DB{"BUFFER_PROFILE": {"x": {"pool": "egress_lossy_pool", "dynamic_th": "0", "static_th": "10"}}}, `BUFFER_PROFILE|x: dynamic_th: set together with static_th`},
		{"no threshold", DB{"BUFFER_PROFILE": {"x": {"pool": "egress_lossy_pool"}}}, `BUFFER_PROFILE|x: dynamic_th: required: a profile has exactly one of dynamic_th and static_th`},
		{"dynamic_th range", DB{"BUFFER_PROFILE": {"x": {"pool": "egress_lossy_pool", "dynamic_th": "9"}}}, `BUFFER_PROFILE|x: dynamic_th: must be an integer -8..8 (got "9")`},
		{"queue profile", DB{"BUFFER_QUEUE": {"Ethernet8|3": {"profile": "nope"}}}, `BUFFER_QUEUE|Ethernet8|3: profile: no such BUFFER_PROFILE nope (got "nope")`},
		{"queue index", DB{"BUFFER_QUEUE": {"Ethernet8|8": {"profile": "q_lossy_profile"}}}, `BUFFER_QUEUE|Ethernet8|8: queue must be 0..7, or a range first-last of those (got "8")`},
		{"queue range", DB{"BUFFER_QUEUE": {"Ethernet8|5-4": {"profile": "q_lossy_profile"}}}, `(got "5-4")`},
		{"queue port", DB{"BUFFER_QUEUE": {"Ethernet2|3": {"profile": "q_lossy_profile"}}}, `BUFFER_QUEUE|Ethernet2|3: not a port: ports are Ethernet0, Ethernet4, ..., Ethernet252 (got "Ethernet2")`},
		{"queue port range", DB{"BUFFER_QUEUE": {"Ethernet256|3": {"profile": "q_lossy_profile"}}}, `(got "Ethernet256")`},
		{"queue key", DB{"BUFFER_QUEUE": {"Ethernet8": {"profile": "q_lossy_profile"}}}, `BUFFER_QUEUE|Ethernet8: key must be EthernetN|queue or EthernetN|first-last`},
		{"queue overlap", DB{"BUFFER_QUEUE": {"Ethernet0|2-3": {"profile": "q_lossy_profile"}}}, `BUFFER_QUEUE|Ethernet0|2-3: queue 2 of Ethernet0 is also configured by BUFFER_QUEUE|Ethernet0|0-2`},
		{"queue ingress pool", DB{"BUFFER_QUEUE": {"Ethernet8|1": {"profile": "pg_lossless_profile"}}}, `BUFFER_QUEUE|Ethernet8|1: profile: BUFFER_PROFILE|pg_lossless_profile uses the ingress pool ingress_lossless_pool; BUFFER_QUEUE needs an egress pool`},
		{"pg trim", DB{"BUFFER_PG": {"Ethernet8|0": {"profile": "q_lossy_trim_profile"}}}, `BUFFER_PG|Ethernet8|0: profile:`},
		{"profile list missing", DB{"BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": "pg_lossless_profile,nope"}}}, `BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0: profile_list: no such BUFFER_PROFILE nope (got "pg_lossless_profile,nope")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(withDoc(t, bufferDoc, c.edits), testCaps())
			wantErr(t, err, c.want)
		})
	}
}

// bufferorch isTrimmingProhibited: a trimming profile may not be used by a
// priority group or a port profile list (the "attach" cases; the "edit"
// cases are in runtime_test.go).
func TestTrimProfileOnlyOnQueues(t *testing.T) {
	trimIngress := DB{"BUFFER_PROFILE": {"ingress_trim": {"pool": "ingress_lossless_pool", "dynamic_th": "0", "packet_discard_action": "trim"}}}
	for _, c := range []struct {
		table, key, field string
		value             any
	}{
		{"BUFFER_PG", "Ethernet8|0", "profile", "ingress_trim"},
		{"BUFFER_PORT_INGRESS_PROFILE_LIST", "Ethernet8", "profile_list", []string{"pg_lossless_profile", "ingress_trim"}},
		{"BUFFER_PORT_EGRESS_PROFILE_LIST", "Ethernet8", "profile_list", "q_lossy_trim_profile"},
	} {
		edits := withDoc(t, bufferDoc, trimIngress)
		edits[c.table] = map[string]map[string]any{c.key: {c.field: c.value}}
		_, err := Validate(edits, testCaps())
		wantErr(t, err, c.table+"|"+c.key+": "+c.field+": BUFFER_PROFILE|", "has packet_discard_action trim, which only queues may use")
	}
}

func TestQoSMaps(t *testing.T) {
	db := mustParse(t, `{
  "DSCP_TO_TC_MAP": {"AZURE": {"0": "1", "1": "1", "48": "6", "63": "15"}},
  "TC_TO_QUEUE_MAP": {"AZURE": {"1": "1", "6": "6"}},
  "TC_TO_DSCP_MAP": {"host_trim_map": {"5": "10"}, "spine_trim_map": {"5": "20"}},
  "PORTCHANNEL": {"PortChannel1": {"members": ["Ethernet8"]}},
  "PORT_QOS_MAP": {
    "Ethernet0": {"tc_to_dscp_map": "host_trim_map", "dscp_to_tc_map": "AZURE", "tc_to_queue_map": "[TC_TO_QUEUE_MAP|AZURE]", "pfc_enable": "3,4"},
    "Ethernet4": {"tc_to_dscp_map": "spine_trim_map"},
    "PortChannel1": {"tc_to_dscp_map": "spine_trim_map", "dscp_to_tc_map": "AZURE"},
    "Ethernet8": {"dscp_to_tc_map": "AZURE"}
  }
}`)
	cfg, err := Validate(db, testCaps())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.DSCPToTC["AZURE"]; !reflect.DeepEqual(got, map[int]int{0: 1, 1: 1, 48: 6, 63: 15}) {
		t.Errorf("DSCP_TO_TC_MAP = %v", got)
	}
	if got := cfg.TCToDSCP["spine_trim_map"]; !reflect.DeepEqual(got, map[int]int{5: 20}) {
		t.Errorf("TC_TO_DSCP_MAP = %v", got)
	}
	if got := cfg.PortQoS["Ethernet0"]; got != (PortQoS{DSCPToTC: "AZURE", TCToQueue: "AZURE", TCToDSCP: "host_trim_map"}) {
		t.Errorf("PORT_QOS_MAP|Ethernet0 = %+v", got)
	}
	if got := cfg.PortQoSFor("Ethernet8"); got != (PortQoS{DSCPToTC: "AZURE", TCToDSCP: "spine_trim_map"}) {
		t.Errorf("PortQoSFor(Ethernet8) = %+v", got)
	}

	for _, c := range []struct {
		doc, want string
	}{
		{`{"DSCP_TO_TC_MAP": {"m": {"64": "1"}}}`, `DSCP_TO_TC_MAP|m: 64: field name must be a DSCP 0..63`},
		{`{"DSCP_TO_TC_MAP": {"m": {"01": "1"}}}`, `DSCP_TO_TC_MAP|m: 01: field name must be a DSCP 0..63`},
		{`{"DSCP_TO_TC_MAP": {"m": {"1": "16"}}}`, `DSCP_TO_TC_MAP|m: 1: must be a traffic class 0..15 (got "16")`},
		{`{"TC_TO_QUEUE_MAP": {"m": {"1": "8"}}}`, `TC_TO_QUEUE_MAP|m: 1: must be a unicast queue 0..7 (got "8")`},
		{`{"TC_TO_DSCP_MAP": {"m": {"16": "8"}}}`, `TC_TO_DSCP_MAP|m: 16: field name must be a traffic class 0..15`},
		{`{"TC_TO_DSCP_MAP": {"m": {"6": "-1"}}}`, `TC_TO_DSCP_MAP|m: 6: must be a DSCP 0..63 (got "-1")`},
		{`{"PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "host_trim_map"}}}`, `PORT_QOS_MAP|Ethernet0: tc_to_dscp_map: no such TC_TO_DSCP_MAP (got "host_trim_map")`},
		{`{"PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp": "x"}}}`, `PORT_QOS_MAP|Ethernet0: tc_to_dscp: unknown field (got "x")`},
		{`{"PORT_QOS_MAP": {"PortChannel7": {}}}`, `PORT_QOS_MAP|PortChannel7: no such PORTCHANNEL (got "PortChannel7")`},
		{`{"PORT_QOS_MAP": {"global": {}}}`, `PORT_QOS_MAP|global: not a port or PortChannel`},
	} {
		_, err := Validate(mustParse(t, c.doc), testCaps())
		wantErr(t, err, c.want)
	}
}

func TestSchedulers(t *testing.T) {
	db := mustParse(t, `{
  "SCHEDULER": {
    "SCHEDULER_BLOCK_DATA_PLANE": {"type": "DWRR", "weight": "15", "pir": "1", "cir": "1", "meter_type": "bytes"},
    "scheduler.0": {"type": "STRICT"}
  },
  "QUEUE": {
    "Ethernet0|0": {"scheduler": "SCHEDULER_BLOCK_DATA_PLANE", "wred_profile": "AZURE_LOSSY"},
    "Ethernet4|5-6": {"scheduler": "[SCHEDULER|scheduler.0]"},
    "Ethernet8|1": {"wred_profile": "AZURE_LOSSY"}
  }
}`)
	cfg, err := Validate(db, testCaps())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Schedulers["SCHEDULER_BLOCK_DATA_PLANE"]; got != (Scheduler{Name: "SCHEDULER_BLOCK_DATA_PLANE", Type: "DWRR", Weight: 15, PIR: 1, CIR: 1}) {
		t.Errorf("scheduler: %+v", got)
	}
	want := map[PortQueue]string{{"Ethernet0", 0}: "SCHEDULER_BLOCK_DATA_PLANE", {"Ethernet4", 5}: "scheduler.0", {"Ethernet4", 6}: "scheduler.0"}
	if !reflect.DeepEqual(cfg.QueueSchedulers, want) {
		t.Errorf("QueueSchedulers = %v", cfg.QueueSchedulers)
	}
	for _, c := range []struct {
		doc, want string
	}{
		{`{"SCHEDULER": {"s": {"type": "WFQ"}}}`, `SCHEDULER|s: type: invalid enumeration value: must be DWRR or WRR or STRICT (got "WFQ")`},
		{`{"SCHEDULER": {"s": {"type": "DWRR", "weight": "0"}}}`, `SCHEDULER|s: weight: must be 1..100 (got "0")`},
		{`{"SCHEDULER": {"s": {"type": "DWRR", "pir": "-1"}}}`, `SCHEDULER|s: pir: must be a non-negative number (bytes/s) (got "-1")`},
		{`{"SCHEDULER": {"s": {"type": "DWRR", "cir": "1."}}}`, `SCHEDULER|s: cir: must be a non-negative number (bytes/s) (got "1.")`},
		{`{"QUEUE": {"Ethernet0|0": {"scheduler": "nope"}}}`, `QUEUE|Ethernet0|0: scheduler: no such SCHEDULER (got "nope")`},
	} {
		_, err := Validate(mustParse(t, c.doc), testCaps())
		wantErr(t, err, c.want)
	}
}

// T10 / testplan case 5: LAG membership from PORTCHANNEL.members and
// PORTCHANNEL_MEMBER, members in port order; a port is in one LAG only.
func TestPortChannels(t *testing.T) {
	db := mustParse(t, `{
  "PORT": {"Ethernet8": {"admin_status": "down", "speed": "100000", "lanes": "1,2,3,4"}, "Ethernet12": {"admin_status": "up"}},
  "PORTCHANNEL": {
    "PortChannel1": {"admin_status": "up", "members": "Ethernet40, Ethernet4", "min_links": "1", "mtu": "9100", "lacp_key": "auto", "fast_rate": "false"},
    "PortChannel0002": {"admin_status": "down"}
  },
  "PORTCHANNEL_MEMBER": {
    "PortChannel1|Ethernet16": {}, "PortChannel1|Ethernet4": {},
    "PortChannel0002|Ethernet100": {}, "PortChannel0002|Ethernet96": {}
  }
}`)
	cfg, err := Validate(db, testCaps())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"PortChannel1":    {"Ethernet4", "Ethernet16", "Ethernet40"},
		"PortChannel0002": {"Ethernet96", "Ethernet100"},
	}
	if !reflect.DeepEqual(cfg.PortChannels, want) {
		t.Errorf("PortChannels = %v", cfg.PortChannels)
	}
	if !reflect.DeepEqual(cfg.AdminDown, map[string]bool{"Ethernet8": true, "PortChannel0002": true}) {
		t.Errorf("AdminDown = %v", cfg.AdminDown)
	}
	for _, c := range []struct {
		doc, want string
	}{
		{`{"PORTCHANNEL": {"PortChannel1": {"members": ["Ethernet0"]}, "PortChannel2": {"members": ["Ethernet0"]}}}`,
			`PORTCHANNEL|PortChannel2: members: Ethernet0 is already a member of PortChannel1 (a port can be in one PortChannel only) (got ["Ethernet0"])`},
		{`{"PORTCHANNEL": {"PortChannel1": {}, "PortChannel2": {}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}, "PortChannel2|Ethernet0": {}}}`,
			`PORTCHANNEL_MEMBER|PortChannel2|Ethernet0: Ethernet0 is already a member of PortChannel1`},
		{`{"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}}}`, `PORTCHANNEL_MEMBER|PortChannel1|Ethernet0: no such PORTCHANNEL (got "PortChannel1")`},
		{`{"PORTCHANNEL": {"PortChannel1": {}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet1": {}}}`, `PORTCHANNEL_MEMBER|PortChannel1|Ethernet1: member Ethernet1 is not a port`},
		{`{"PORTCHANNEL": {"PortChannel12345": {}}}`, `PORTCHANNEL|PortChannel12345: not a PortChannel name: PortChannel followed by 1 to 4 digits`},
		{`{"PORTCHANNEL": {"PortChannel1": {"members": ["Ethernet04"]}}}`, `PORTCHANNEL|PortChannel1: members: member Ethernet04 is not a port`},
		{`{"PORTCHANNEL": {"PortChannel1": {"lacp": "x"}}}`, `PORTCHANNEL|PortChannel1: lacp: unknown field`},
		{`{"PORT": {"Ethernet0": {"admin_status": "UP"}}}`, `PORT|Ethernet0: admin_status: must be up or down (got "UP")`},
		{`{"PORT": {"Ethernet0": {"admin_stauts": "down"}}}`, `PORT|Ethernet0: admin_stauts: unknown field; did you mean admin_status? (got "down")`},
		{`{"PORT": {"Ethernet256": {}}}`, `PORT|Ethernet256: not a port: ports are Ethernet0, Ethernet4, ..., Ethernet252 (got "Ethernet256")`},
	} {
		_, err := Validate(mustParse(t, c.doc), testCaps())
		wantErr(t, err, c.want)
	}
}

// aclDoc is the testplan's ACL configuration (§6 3, test case 7), with the
// table also bound to a LAG.
const aclDoc = `{
  "PORTCHANNEL": {"PortChannel1": {"members": ["Ethernet12", "Ethernet8"]}},
  "ACL_TABLE_TYPE": {
    "TRIMMING_L3": {"MATCHES": ["SRC_IP", "SRC_IPV6"], "ACTIONS": ["DISABLE_TRIM_ACTION", "COUNTER"], "BIND_POINTS": ["PORT", "PORTCHANNEL"]}
  },
  "ACL_TABLE": {
    "TRIM_TABLE": {"POLICY_DESC": "Packet trimming", "TYPE": "TRIMMING_L3", "STAGE": "INGRESS", "PORTS": ["Ethernet0", "PortChannel1"]},
    "DATAACL": {"policy_desc": "DATAACL", "type": "L3", "stage": "ingress", "ports": ["Ethernet4"]}
  },
  "ACL_RULE": {
    "TRIM_TABLE|TRIM_RULE": {"PRIORITY": "999", "SRC_IP": "1.1.1.1", "PACKET_ACTION": "DISABLE_TRIM"},
    "TRIM_TABLE|TRIM_RULE_ipv6": {"PACKET_ACTION": "DISABLE_TRIM", "PRIORITY": "999", "SRC_IPV6": "8000::2/128"},
    "TRIM_TABLE|TRIM_RULE_low": {"PACKET_ACTION": "DISABLE_TRIM", "PRIORITY": "10", "SRC_IP": "10.1.2.3/16"},
    "DATAACL|RULE_1": {"PRIORITY": "9999", "PACKET_ACTION": "DROP", "DST_IP": "10.0.0.1/32", "IP_PROTOCOL": "17"}
  }
}`

// T4 / testplan case 7: DISABLE_TRIM rules resolved to their ingress
// ports, highest priority first.
func TestACLDisableTrim(t *testing.T) {
	cfg, err := Validate(mustParse(t, aclDoc), testCaps())
	if err != nil {
		t.Fatal(err)
	}
	ports := []string{"Ethernet0", "Ethernet8", "Ethernet12"}
	want := []ACLRule{
		{Table: "TRIM_TABLE", Name: "TRIM_RULE", Priority: 999, Ports: ports, SrcIPv4: "1.1.1.1/32"},
		{Table: "TRIM_TABLE", Name: "TRIM_RULE_ipv6", Priority: 999, Ports: ports, SrcIPv6: "8000::2/128"},
		{Table: "TRIM_TABLE", Name: "TRIM_RULE_low", Priority: 10, Ports: ports, SrcIPv4: "10.1.0.0/16"},
	}
	if !reflect.DeepEqual(cfg.ACLRules, want) {
		t.Errorf("ACLRules:\n got %+v\nwant %+v", cfg.ACLRules, want)
	}

	for _, c := range []struct {
		name  string
		edits DB
		want  string
	}{
		{"no table", DB{"ACL_RULE": {"NOPE|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|NOPE|R: no such ACL_TABLE (got "NOPE")`},
		{"built-in type", DB{"ACL_RULE": {"DATAACL|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|DATAACL|R: PACKET_ACTION: table type L3 has no DISABLE_TRIM_ACTION`},
		{"egress", DB{"ACL_TABLE": {"E": {"TYPE": "TRIMMING_L3", "STAGE": "egress"}}, "ACL_RULE": {"E|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|E|R: PACKET_ACTION: needs an INGRESS table (ACL_TABLE stage is EGRESS) (got "DISABLE_TRIM")`},
		{"no action", DB{"ACL_TABLE_TYPE": {"T2": {"MATCHES": []string{"SRC_IP"}, "ACTIONS": []string{"PACKET_ACTION"}, "BIND_POINTS": []string{"PORT"}}}, "ACL_TABLE": {"T2": {"TYPE": "T2"}}, "ACL_RULE": {"T2|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|T2|R: PACKET_ACTION: ACL_TABLE_TYPE|T2 does not list DISABLE_TRIM_ACTION in ACTIONS (got "DISABLE_TRIM")`},
		{"match not in type", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM", "DST_IP": "1.1.1.1/32"}}}, `ACL_RULE|TRIM_TABLE|R: DST_IP: not a match field of ACL_TABLE_TYPE|TRIMMING_L3 (MATCHES SRC_IP,SRC_IPV6) (got "1.1.1.1/32")`},
		{"bad v4", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM", "SRC_IP": "8000::2"}}}, `ACL_RULE|TRIM_TABLE|R: SRC_IP: must be an IPv4 address or prefix: an IPv6 address (got "8000::2")`},
		{"bad v6", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM", "SRC_IPV6": "8000::2/129"}}}, `ACL_RULE|TRIM_TABLE|R: SRC_IPV6: must be an IPv6 address or prefix`},
		{"both families", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "PACKET_ACTION": "DISABLE_TRIM", "SRC_IP": "1.1.1.1", "SRC_IPV6": "::1"}}}, `ACL_RULE|TRIM_TABLE|R: SRC_IPV6: a rule matches SRC_IP or SRC_IPV6, not both`},
		{"priority", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "high", "PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|TRIM_TABLE|R: PRIORITY: must be a non-negative integer (got "high")`},
		{"priority required", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PACKET_ACTION": "DISABLE_TRIM"}}}, `ACL_RULE|TRIM_TABLE|R: PRIORITY: required`},
		{"action", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "PACKET_ACTION": "TRIM"}}}, `ACL_RULE|TRIM_TABLE|R: PACKET_ACTION: must be FORWARD, DROP or DISABLE_TRIM (got "TRIM")`},
		{"unknown field", DB{"ACL_RULE": {"TRIM_TABLE|R": {"PRIORITY": "1", "SRC_IPv4": "1.1.1.1"}}}, `ACL_RULE|TRIM_TABLE|R: SRC_IPv4: unknown field`},
		{"two spellings", DB{"ACL_TABLE": {"X": {"TYPE": "L3", "type": "L3"}}}, `ACL_TABLE|X: type: same field as TYPE (field names are case-insensitive)`},
		{"unknown type", DB{"ACL_TABLE": {"X": {"TYPE": "TRIMMING"}}}, `ACL_TABLE|X: TYPE: no such ACL_TABLE_TYPE (and not a built-in type) (got "TRIMMING")`},
		{"stage", DB{"ACL_TABLE": {"X": {"TYPE": "L3", "STAGE": "both"}}}, `ACL_TABLE|X: STAGE: must be INGRESS or EGRESS (got "both")`},
		{"bind point", DB{"ACL_TABLE_TYPE": {"T2": {"MATCHES": []string{"SRC_IP"}, "ACTIONS": []string{"DISABLE_TRIM_ACTION"}, "BIND_POINTS": []string{"PORT"}}}, "ACL_TABLE": {"X": {"TYPE": "T2", "PORTS": []string{"PortChannel1"}}}}, `ACL_TABLE|X: PORTS: PortChannel1 needs bind point PORTCHANNEL, which ACL_TABLE_TYPE|T2 does not list in BIND_POINTS`},
		{"port", DB{"ACL_TABLE": {"X": {"TYPE": "L3", "PORTS": "Ethernet0,Ethernet3"}}}, `ACL_TABLE|X: PORTS: not a port or PortChannel: ports are Ethernet0, Ethernet4, ..., Ethernet252 (got "Ethernet3")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(withDoc(t, aclDoc, c.edits), testCaps())
			wantErr(t, err, c.want)
		})
	}
}

func TestStaticRoutes(t *testing.T) {
	db := mustParse(t, `{
  "PORTCHANNEL": {"PortChannel1": {"members": ["Ethernet8"]}},
  "STATIC_ROUTE": {
    "2001:db8::/32": {"ifname": "Ethernet4", "nexthop": "fc00::2"},
    "default|10.1.0.0/16": {"ifname": "PortChannel1", "nexthop": "10.0.0.1"},
    "10.2.3.4/24": {"ifname": "Ethernet0", "distance": "1"}
  }
}`)
	cfg, err := Validate(db, testCaps())
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{{"10.1.0.0/16", "PortChannel1"}, {"10.2.3.0/24", "Ethernet0"}, {"2001:db8::/32", "Ethernet4"}}
	if !reflect.DeepEqual(cfg.Routes, want) {
		t.Errorf("Routes = %v", cfg.Routes)
	}
	for _, c := range []struct {
		doc, want string
	}{
		{`{"STATIC_ROUTE": {"10.0.0.0/8": {"ifname": "Ethernet0,Ethernet4", "nexthop": "1.1.1.1,2.2.2.2"}}}`, `STATIC_ROUTE|10.0.0.0/8: ifname: ECMP static routes are not modelled (got "Ethernet0,Ethernet4")`},
		{`{"STATIC_ROUTE": {"10.0.0.0/33": {"ifname": "Ethernet0"}}}`, `STATIC_ROUTE|10.0.0.0/33: not an IP prefix (got "10.0.0.0/33")`},
		{`{"STATIC_ROUTE": {"Vrf1|10.0.0.0/8": {"ifname": "Ethernet0"}}}`, `STATIC_ROUTE|Vrf1|10.0.0.0/8: VRFs other than default are not modelled (got "Vrf1")`},
		{`{"STATIC_ROUTE": {"10.0.0.0/8": {"ifname": "PortChannel9"}}}`, `STATIC_ROUTE|10.0.0.0/8: ifname: no such PORTCHANNEL (got "PortChannel9")`},
		{`{"STATIC_ROUTE": {"10.0.0.0/8": {"nexthop": "1.1.1.1"}}}`, `STATIC_ROUTE|10.0.0.0/8: ifname: required`},
		{`{"STATIC_ROUTE": {"10.0.0.0/8": {"ifname": "Ethernet0"}, "10.0.0.1/8": {"ifname": "Ethernet4"}}}`, `STATIC_ROUTE|10.0.0.1/8: same prefix 10.0.0.0/8 as STATIC_ROUTE|10.0.0.0/8`},
	} {
		_, err := Validate(mustParse(t, c.doc), testCaps())
		wantErr(t, err, c.want)
	}
}

// Tables without a model are ignored; modelled tables are checked in a
// fixed order, keys and fields sorted, so the first error never changes.
func TestDeterministicFirstError(t *testing.T) {
	db := mustParse(t, `{
  "DEVICE_METADATA": {"localhost": {"hwsku": "x", "anything": ["goes"]}},
  "BUFFER_QUEUE": {"Ethernet8|1": {"profile": "zz"}, "Ethernet4|1": {"profile": "aa"}, "Ethernet12|1": {"profile": "bb"}},
  "PORT_QOS_MAP": {"Ethernet0": {"tc_to_dscp_map": "missing"}},
  "SCHEDULER": {"s": {"type": "DWRR", "weight": "0", "pir": "-1"}}
}`)
	first := ""
	for i := 0; i < 50; i++ {
		_, err := Validate(db, testCaps())
		wantErr(t, err, `BUFFER_QUEUE|Ethernet12|1: profile: no such BUFFER_PROFILE bb`)
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("run %d: %q, first run %q", i, err, first)
		}
	}
	delete(db, "BUFFER_QUEUE")
	_, err := Validate(db, testCaps())
	wantErr(t, err, "PORT_QOS_MAP|Ethernet0: tc_to_dscp_map: no such TC_TO_DSCP_MAP")
	delete(db, "PORT_QOS_MAP")
	_, err = Validate(db, testCaps())
	wantErr(t, err, `SCHEDULER|s: pir: must be a non-negative number`)

	if got := ModelledTables(); got[0] != "SWITCH_TRIMMING" || !strings.Contains(strings.Join(got, " "), "STATIC_ROUTE") {
		t.Errorf("ModelledTables = %v", got)
	}
}

// A DB built in Go rather than parsed: lists as []any, non-string values
// in ignored fields and unmodelled tables are fine; a non-string value in
// a checked field is an error.
func TestHandBuiltDB(t *testing.T) {
	db := DB{
		"PORT":            {"Ethernet0": {"speed": 100000, "admin_status": "down"}},
		"ACL_TABLE_TYPE":  {"TT": {"MATCHES": []any{"SRC_IP"}, "ACTIONS": []any{"DISABLE_TRIM_ACTION"}, "BIND_POINTS": []any{"PORT"}}},
		"ACL_TABLE":       {"T": {"TYPE": "TT", "PORTS": []any{"Ethernet4", "Ethernet0"}}},
		"ACL_RULE":        {"T|R": {"PRIORITY": "5", "PACKET_ACTION": "DISABLE_TRIM", "SRC_IP": "9.9.9.9"}},
		"DEVICE_METADATA": {"localhost": {"nested": map[string]any{"a": []any{1, 2}}}},
	}
	cfg, err := Validate(db, testCaps())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ACLRules; len(got) != 1 || !reflect.DeepEqual(got[0].Ports, []string{"Ethernet0", "Ethernet4"}) {
		t.Errorf("ACLRules = %+v", got)
	}
	r := NewRuntime(testCaps())
	if err := r.Apply(db); err != nil {
		t.Fatal(err)
	}
	db["DEVICE_METADATA"]["localhost"]["nested"].(map[string]any)["a"].([]any)[0] = 7
	if r.DB()["DEVICE_METADATA"]["localhost"]["nested"].(map[string]any)["a"].([]any)[0] != 1 {
		t.Errorf("Apply shares nested values with its input")
	}
	_, err = Validate(DB{"PORT": {"Ethernet0": {"admin_status": 1}}}, testCaps())
	wantErr(t, err, "PORT|Ethernet0: admin_status: must be a string (got 1)")
	_, err = Validate(DB{"ACL_TABLE": {"T": {"TYPE": "L3", "PORTS": []any{"Ethernet0", 4}}}}, testCaps())
	wantErr(t, err, `ACL_TABLE|T: PORTS: must be a list of strings (got ["Ethernet0",4])`)
}

// Every error stays on one line, whatever the names and values hold.
func TestErrorsAreOneLine(t *testing.T) {
	_, err := Validate(trimDB(map[string]any{"size": "256", "dscp_value": "4\n8"}), testCaps())
	wantErr(t, err, `dscp_value: must be 0..63 or from-tc (got "4\n8")`)
	_, err = Validate(DB{"BUFFER_POOL": {"p\r": {"type": "egress", "mode\n": "x"}}}, testCaps())
	wantErr(t, err, `"BUFFER_POOL|p\r": "mode\n": unknown field`)
	if got := oneLine("a\nb\tc\u0085d"); got != `a\nb\tc\u0085d` {
		t.Errorf("oneLine = %q", got)
	}

	small := testCaps()
	small.Ports = 2
	_, err = Validate(DB{"PORT": {"Ethernet8": {}}}, small)
	wantErr(t, err, "PORT|Ethernet8: not a port: ports are Ethernet0 and Ethernet4")
	small.Ports = 0
	_, err = Validate(DB{"PORT": {"Ethernet0": {}}}, small)
	wantErr(t, err, "PORT|Ethernet0: not a port: the switch has no ports")

	_, err = Validate(withDoc(t, bufferDoc, DB{"BUFFER_PG": {"Ethernet8|0": {"size": "1"}}}), testCaps())
	wantErr(t, err, "BUFFER_PG|Ethernet8|0: size: unknown field (BUFFER_PG has profile)")
	_, err = Validate(withDoc(t, bufferDoc, DB{"BUFFER_PG": {"Ethernet8|0": {}}}), testCaps())
	wantErr(t, err, "BUFFER_PG|Ethernet8|0: profile: required")
	_, err = Validate(withDoc(t, bufferDoc, DB{"BUFFER_PORT_EGRESS_PROFILE_LIST": {"Ethernet8": {}}}), testCaps())
	wantErr(t, err, "BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet8: profile_list: required")
}
