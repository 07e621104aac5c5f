package sonic

import (
	"reflect"
	"testing"
)

// T19 (sonic-mgmt test_trimming_configuration, valid values): every
// configuration is accepted and programmed as given.
func TestT19ValidTrimming(t *testing.T) {
	cases := []struct {
		fields map[string]any
		want   Trimming
	}{
		{map[string]any{"size": "300", "dscp_value": "32", "queue_index": "5"}, Trimming{Size: 300, DSCPMode: DSCPValue, DSCP: 32, QueueMode: QueueStatic, Queue: 5}},
		{map[string]any{"size": "256", "dscp_value": "0", "queue_index": "0"}, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 0, QueueMode: QueueStatic, Queue: 0}},
		{map[string]any{"size": "4084", "dscp_value": "63", "queue_index": "7"}, Trimming{Size: 4084, DSCPMode: DSCPValue, DSCP: 63, QueueMode: QueueStatic, Queue: 7}},
		{map[string]any{"size": "300", "dscp_value": "from-tc", "queue_index": "3", "tc_value": "5"}, Trimming{Size: 300, DSCPMode: DSCPFromTC, TC: 5, QueueMode: QueueStatic, Queue: 3}},
		{map[string]any{"size": "256", "dscp_value": "from-tc", "queue_index": "0", "tc_value": "0"}, Trimming{Size: 256, DSCPMode: DSCPFromTC, TC: 0, QueueMode: QueueStatic, Queue: 0}},
		{map[string]any{"size": "4084", "dscp_value": "from-tc", "queue_index": "6", "tc_value": "14"}, Trimming{Size: 4084, DSCPMode: DSCPFromTC, TC: 14, QueueMode: QueueStatic, Queue: 6}},
		// keywords are case-insensitive (orchagent); dynamic queue mode
		{map[string]any{"size": "256", "dscp_value": "FROM-TC", "queue_index": "Dynamic", "tc_value": "15"}, Trimming{Size: 256, DSCPMode: DSCPFromTC, TC: 15, QueueMode: QueueDyn}},
		// absent fields: SAI defaults
		{map[string]any{"size": "512"}, Trimming{Size: 512, DSCPMode: DSCPValue, QueueMode: QueueStatic}},
		// tc_value in symmetric mode: a uint8 is accepted, not programmed
		{map[string]any{"size": "256", "dscp_value": "48", "queue_index": "6", "tc_value": "200"}, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 48, QueueMode: QueueStatic, Queue: 6}},
	}
	for _, c := range cases {
		cfg, err := Validate(trimDB(c.fields), testCaps())
		if err != nil {
			t.Errorf("%v: %v", c.fields, err)
			continue
		}
		if !reflect.DeepEqual(*cfg.Trimming, c.want) {
			t.Errorf("%v: got %+v, want %+v", c.fields, *cfg.Trimming, c.want)
		}
	}
}

// T20 (test_trimming_configuration, invalid values) and the YANG and
// swss VS negative cases: each is refused with a one-line error naming the
// field and the value.
func TestT20InvalidTrimming(t *testing.T) {
	sym := func(size, dscp, queue string) map[string]any {
		return map[string]any{"size": size, "dscp_value": dscp, "queue_index": queue}
	}
	asym := func(size, tc, queue string) map[string]any {
		return map[string]any{"size": size, "dscp_value": "from-tc", "tc_value": tc, "queue_index": queue}
	}
	cases := []struct {
		fields map[string]any
		want   string
	}{
		{sym("1.1", "32", "5"), `SWITCH_TRIMMING|GLOBAL: size: must be an unsigned 32-bit integer (bytes) (got "1.1")`},
		{sym("256", "-1", "5"), `SWITCH_TRIMMING|GLOBAL: dscp_value: must be 0..63 or from-tc (got "-1")`},
		{sym("256", "63", "-3.0"), `SWITCH_TRIMMING|GLOBAL: queue_index: must be 0..7 or dynamic (got "-3.0")`},
		{asym("1.1", "5", "3"), `SWITCH_TRIMMING|GLOBAL: size: must be an unsigned 32-bit integer (bytes) (got "1.1")`},
		{sym("256", "test", "3"), `SWITCH_TRIMMING|GLOBAL: dscp_value: must be 0..63 or from-tc (got "test")`},
		{asym("256", "5", "-3.0"), `SWITCH_TRIMMING|GLOBAL: queue_index: must be 0..7 or dynamic (got "-3.0")`},
		{asym("256", "256", "3"), `SWITCH_TRIMMING|GLOBAL: tc_value: must be 0..15 (got "256")`},
		{sym("256", "64", "3"), `dscp_value: must be 0..63 or from-tc (got "64")`},
		{sym("-1", "10", "3"), `size: must be an unsigned 32-bit integer (bytes) (got "-1")`},
		{sym("4294967296", "10", "3"), `size: must be an unsigned 32-bit integer (bytes) (got "4294967296")`},
		{sym("256", "10", "256"), `queue_index: must be 0..7 or dynamic (got "256")`},
		{asym("256", "-1", "3"), `tc_value: must be 0..15 (got "-1")`},
		{sym("", "10", "3"), `SWITCH_TRIMMING|GLOBAL: size: empty value (got "")`},
		{sym("256", "", "3"), `dscp_value: empty value (got "")`},
		{sym("256", "10", ""), `queue_index: empty value (got "")`},
		{asym("256", "", "3"), `tc_value: empty value (got "")`},
		{map[string]any{"size": "256", "dscp_value": "10", "tc_value": "256"}, `tc_value: must be 0..255 (got "256")`},
		{map[string]any{"size": "256", "dscp_value": "10", "tc_value": "1.1"}, `tc_value: must be 0..255 (got "1.1")`},
		// capability and platform ranges
		{sym("256", "10", "8"), `queue_index: must be 0..7 or dynamic: the switch has 8 unicast queues (got "8")`},
		{asym("256", "16", "3"), `tc_value: must be 0..15: the switch has 16 traffic classes (got "16")`},
		{sym("255", "10", "3"), `size: must be 256..4084 bytes on this platform (a platform capability`},
		{sym("5000", "10", "3"), `(got "5000")`},
		// shape
		{map[string]any{"dscp_value": "10"}, `SWITCH_TRIMMING|GLOBAL: size: required`},
		{map[string]any{"size": "256", "dscp": "10"}, `SWITCH_TRIMMING|GLOBAL: dscp: unknown field (SWITCH_TRIMMING has dscp_value, queue_index, size, tc_value) (got "10")`},
		{map[string]any{"size": []string{"256"}}, `SWITCH_TRIMMING|GLOBAL: size: must be a string (got ["256"])`},
	}
	for _, c := range cases {
		_, err := Validate(trimDB(c.fields), testCaps())
		wantErr(t, err, c.want)
	}
}

func TestTrimmingKeys(t *testing.T) {
	db := DB{"SWITCH_TRIMMING": {"GLOBAL": {"size": "256"}, "global": {"size": "256"}}}
	_, err := Validate(db, testCaps())
	wantErr(t, err, "SWITCH_TRIMMING|global: unknown key: SWITCH_TRIMMING has only GLOBAL")

	// An empty table is no configuration.
	cfg, err := Validate(DB{"SWITCH_TRIMMING": {}}, testCaps())
	if err != nil || cfg.Trimming != nil {
		t.Errorf("empty table: %v, %+v", err, cfg)
	}
}

// Capability gating, with the CLI's wording (sonic-utilities
// tests/trimming_test.py).
func TestTrimmingCapabilities(t *testing.T) {
	symOnly := testCaps()
	symOnly.DSCPModes = []string{DSCPValue}
	_, err := Validate(trimDB(map[string]any{"size": "256", "dscp_value": "from-tc", "tc_value": "5"}), symOnly)
	wantErr(t, err, `SWITCH_TRIMMING|GLOBAL: dscp_value: asymmetric dscp resolution mode is not supported (got "from-tc")`)

	asymOnly := testCaps()
	asymOnly.DSCPModes = []string{DSCPFromTC}
	_, err = Validate(trimDB(map[string]any{"size": "256", "dscp_value": "10"}), asymOnly)
	wantErr(t, err, `dscp_value: symmetric dscp resolution mode is not supported (got "10")`)
	// The default mode (dscp_value absent) is checked too.
	_, err = Validate(trimDB(map[string]any{"size": "256"}), asymOnly)
	wantErr(t, err, `SWITCH_TRIMMING|GLOBAL: dscp_value: symmetric dscp resolution mode is not supported`)

	staticOnly := testCaps()
	staticOnly.QueueModes = []string{QueueStatic}
	_, err = Validate(trimDB(map[string]any{"size": "256", "queue_index": "dynamic"}), staticOnly)
	wantErr(t, err, `queue_index: dynamic queue resolution mode is not supported (got "dynamic")`)

	dynOnly := testCaps()
	dynOnly.QueueModes = []string{QueueDyn}
	_, err = Validate(trimDB(map[string]any{"size": "256", "queue_index": "6"}), dynOnly)
	wantErr(t, err, `queue_index: static queue resolution mode is not supported (got "6")`)

	none := testCaps()
	none.DSCPModes = nil
	_, err = Validate(trimDB(map[string]any{"size": "256", "dscp_value": "10"}), none)
	wantErr(t, err, `dscp_value: no dscp resolution mode capabilities (got "10")`)

	incapable := testCaps()
	incapable.Trimming = false
	_, err = Validate(trimDB(map[string]any{"size": "256"}), incapable)
	wantErr(t, err, "SWITCH_TRIMMING|GLOBAL: operation is not supported")
	_, err = Validate(mustParse(t, bufferDoc), incapable)
	wantErr(t, err, `BUFFER_PROFILE|q_lossy_trim_profile: packet_discard_action: operation is not supported`)

	// Unreported counts: the uint8 range.
	unknown := testCaps()
	unknown.TrafficClasses, unknown.UnicastQueues = 0, 0
	cfg, err := Validate(trimDB(map[string]any{"size": "256", "dscp_value": "from-tc", "tc_value": "255", "queue_index": "255"}), unknown)
	if err != nil || cfg.Trimming.TC != 255 || cfg.Trimming.Queue != 255 {
		t.Errorf("unreported counts: %v %+v", err, cfg)
	}
}

// T22's patch values all at once: the YANG error on dscp_value is the one
// reported (fields in order, types before capabilities).
func TestTrimmingFirstError(t *testing.T) {
	fields := map[string]any{"size": "5000", "dscp_value": "100", "tc_value": "200", "queue_index": "20"}
	_, err := Validate(trimDB(fields), testCaps())
	wantErr(t, err, `dscp_value: must be 0..63 or from-tc (got "100")`)

	fields = map[string]any{"size": "5000", "dscp_value": "from-tc", "tc_value": "tc_invalid", "queue_index": "20"}
	_, err = Validate(trimDB(fields), testCaps())
	wantErr(t, err, `tc_value: must be 0..15 (got "tc_invalid")`)

	fields = map[string]any{"size": "5000", "dscp_value": "from-tc", "tc_value": "200", "queue_index": "20"}
	_, err = Validate(trimDB(fields), testCaps())
	wantErr(t, err, `queue_index: must be 0..7 or dynamic`)
}
