package sonic

import (
	"strings"
	"testing"
)

// testCaps are the capabilities of the reference tests (swss VS mock
// values, NVIDIA's trim-size boundaries): both DSCP and queue modes, 16
// traffic classes, 8 unicast queues, sizes 256..4084, 64 ports.
func testCaps() Capabilities {
	return Capabilities{
		Trimming:       true,
		DSCPModes:      []string{DSCPValue, DSCPFromTC},
		QueueModes:     []string{QueueStatic, QueueDyn},
		TrafficClasses: 16,
		UnicastQueues:  8,
		MinTrimSize:    256,
		MaxTrimSize:    4084,
		Ports:          64,
		BufferBytes:    64 << 20,
	}
}

// mustParse parses a test document or fails the test.
func mustParse(t *testing.T, doc string) DB {
	t.Helper()
	db, err := Parse([]byte(doc), "test.json")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return db
}

// wantErr checks that err is a single-line error containing every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one containing %q", parts)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error is not one line: %q", msg)
	}
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("error %q does not contain %q", msg, p)
		}
	}
}

// trimDB is a DB with SWITCH_TRIMMING|GLOBAL set to fields.
func trimDB(fields map[string]any) DB {
	return DB{"SWITCH_TRIMMING": {"GLOBAL": fields}}
}

// bufferDoc is the HLD's buffer configuration (testplan §6 1.2) with an
// ingress pool and a lossless PG profile, on Ethernet0 and Ethernet4.
const bufferDoc = `{
  "BUFFER_POOL": {
    "egress_lossy_pool": {"mode": "dynamic", "type": "egress"},
    "ingress_lossless_pool": {"mode": "dynamic", "type": "ingress", "size": "1048576", "xoff": "4194112"}
  },
  "BUFFER_PROFILE": {
    "q_lossy_profile": {"dynamic_th": "3", "pool": "egress_lossy_pool", "size": "0"},
    "q_lossy_trim_profile": {"dynamic_th": "3", "pool": "egress_lossy_pool", "size": "0", "packet_discard_action": "trim"},
    "trim_queue_test_profile": {"dynamic_th": "-7", "pool": "egress_lossy_pool", "size": "0"},
    "egress_static_profile": {"static_th": "12000", "pool": "egress_lossy_pool", "size": "1500"},
    "pg_lossless_profile": {"dynamic_th": "0", "pool": "ingress_lossless_pool", "size": "1518", "xon": "18432", "xoff": "7408", "xon_offset": "2288"}
  },
  "BUFFER_QUEUE": {
    "Ethernet0|0-2": {"profile": "q_lossy_profile"},
    "Ethernet0|3": {"profile": "q_lossy_trim_profile"},
    "Ethernet4|3": {"profile": "q_lossy_trim_profile"},
    "Ethernet0|6": {"profile": "trim_queue_test_profile"}
  },
  "BUFFER_PG": {
    "Ethernet0|3-4": {"profile": "pg_lossless_profile"}
  },
  "BUFFER_PORT_EGRESS_PROFILE_LIST": {
    "Ethernet0": {"profile_list": ["egress_static_profile"]}
  }
}`
