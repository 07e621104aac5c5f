package sonic

import (
	"reflect"
	"testing"
)

// mustApplyPatch applies a patch that must succeed.
func mustApplyPatch(t *testing.T, r *Runtime, patch string) {
	t.Helper()
	if err := r.ApplyPatch([]byte(patch)); err != nil {
		t.Fatalf("ApplyPatch(%s): %v", patch, err)
	}
}

// snapshot is what must not change when a change is refused.
type snapshot struct {
	cfg *Config
	db  DB
	gen int
}

func snap(r *Runtime) snapshot { return snapshot{r.Config(), r.DB(), r.Generation()} }

// refused checks that err is a one-line error with the given parts and
// that r is as it was.
func refused(t *testing.T, r *Runtime, before snapshot, err error, parts ...string) {
	t.Helper()
	wantErr(t, err, parts...)
	if r.Config() != before.cfg {
		t.Errorf("Config changed by a refused change")
	}
	if !reflect.DeepEqual(r.DB(), before.db) {
		t.Errorf("DB changed by a refused change:\n got %v\nwant %v", r.DB(), before.db)
	}
	if r.Generation() != before.gen {
		t.Errorf("Generation = %d after a refused change, want %d", r.Generation(), before.gen)
	}
}

// trimmingIs checks the programmed trimming policy.
func trimmingIs(t *testing.T, r *Runtime, want Trimming) {
	t.Helper()
	if r.Config() == nil || r.Config().Trimming == nil {
		t.Fatalf("no trimming programmed; want %+v", want)
	}
	if got := *r.Config().Trimming; got != want {
		t.Errorf("programmed trimming %+v, want %+v", got, want)
	}
}

func TestRuntimeBasics(t *testing.T) {
	r := NewRuntime(testCaps())
	if r.Config() != nil || r.Generation() != 0 || len(r.DB()) != 0 {
		t.Fatalf("new runtime: %v %d %v", r.Config(), r.Generation(), r.DB())
	}
	// A refused first apply leaves nothing programmed.
	refused(t, r, snap(r), r.Apply(trimDB(map[string]any{"size": "1"})), "size: must be 256..4084")

	db := mustParse(t, bufferDoc)
	if err := r.Apply(db); err != nil {
		t.Fatal(err)
	}
	if r.Generation() != 1 || r.Config() == nil || r.Config().Trimming != nil {
		t.Fatalf("after apply: gen %d cfg %+v", r.Generation(), r.Config())
	}
	// Apply copied its input; DB returns copies.
	db["BUFFER_POOL"]["egress_lossy_pool"]["type"] = "ingress"
	out := r.DB()
	if out["BUFFER_POOL"]["egress_lossy_pool"]["type"] != "egress" {
		t.Errorf("Apply kept a reference to its input")
	}
	out["BUFFER_PG"]["Ethernet0|3-4"]["profile"] = "x"
	out["BUFFER_PORT_EGRESS_PROFILE_LIST"]["Ethernet0"]["profile_list"].([]string)[0] = "x"
	if !reflect.DeepEqual(r.DB(), mustParse(t, bufferDoc)) {
		t.Errorf("DB() returned the running DB, not a copy")
	}
	// A refused reload keeps everything, including the old Config.
	bad := mustParse(t, bufferDoc)
	bad["BUFFER_QUEUE"]["Ethernet8|0"] = map[string]any{"profile": "nope"}
	refused(t, r, snap(r), r.Apply(bad), "BUFFER_QUEUE|Ethernet8|0: profile: no such BUFFER_PROFILE nope")
	// A config reload without trimming is fine while none was programmed.
	if err := r.Apply(DB{}); err != nil || r.Generation() != 2 {
		t.Fatalf("reload to empty: %v, gen %d", err, r.Generation())
	}
}

// T21 (test_packet_trimming_config_sym.py): add, then replace, via GCU.
func TestT21GCUSymmetric(t *testing.T) {
	r := NewRuntime(testCaps())
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "48", "queue_index": "6"}}}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 48, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "4084"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "63"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "3"}]`)
	trimmingIs(t, r, Trimming{Size: 4084, DSCPMode: DSCPValue, DSCP: 63, QueueMode: QueueStatic, Queue: 3})
	if r.Generation() != 2 {
		t.Errorf("Generation = %d, want 2", r.Generation())
	}
}

// T21 (test_packet_trimming_config_asym.py).
func TestT21GCUAsymmetric(t *testing.T) {
	r := NewRuntime(testCaps())
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "from-tc", "tc_value": "5", "queue_index": "6"}}}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, TC: 5, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "4"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "3"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": 4084}]`)
	trimmingIs(t, r, Trimming{Size: 4084, DSCPMode: DSCPFromTC, TC: 4, QueueMode: QueueStatic, Queue: 3})
}

// T22: one patch with several invalid values fails as a whole (the YANG
// error on the first field) and the running configuration is unchanged.
func TestT22GCUNegative(t *testing.T) {
	r := NewRuntime(testCaps())
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "48", "queue_index": "6"}}}]`)
	before := snap(r)
	err := r.ApplyPatch([]byte(`[
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "100"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "20"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "5000"}]`))
	refused(t, r, before, err, `SWITCH_TRIMMING|GLOBAL: dscp_value: must be 0..63 or from-tc (got "100")`)

	err = r.ApplyPatch([]byte(`[
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"},
  {"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "tc_invalid"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "20"},
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "5000"}]`))
	refused(t, r, before, err, `SWITCH_TRIMMING|GLOBAL: tc_value: must be 0..15 (got "tc_invalid")`)

	err = r.ApplyPatch([]byte(`[
  {"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"},
  {"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "200"}]`))
	refused(t, r, before, err, `SWITCH_TRIMMING|GLOBAL: tc_value: must be 0..15: the switch has 16 traffic classes (got "200")`)

	// swss VS negative cases: each invalid value leaves the ASIC as it was.
	for _, c := range []struct{ field, value string }{
		{"size", ""}, {"size", "-1"}, {"size", "4294967296"},
		{"dscp_value", ""}, {"dscp_value", "-1"}, {"dscp_value", "64"},
		{"tc_value", ""}, {"tc_value", "-1"}, {"tc_value", "256"},
		{"queue_index", ""}, {"queue_index", "-1"}, {"queue_index", "256"},
	} {
		patch := `[{"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/` + c.field + `", "value": "` + c.value + `"}]`
		refused(t, r, before, r.ApplyPatch([]byte(patch)), "SWITCH_TRIMMING|GLOBAL: "+c.field+": ", `(got "`+c.value+`")`)
	}
}

// switchorch: once programmed, SWITCH_TRIMMING|GLOBAL and its fields
// cannot be removed (swss test_TrimNeg... "ASIC and CONFIG DB are
// diverged"); nothing changes.
func TestTrimmingRemovalRefused(t *testing.T) {
	r := NewRuntime(testCaps())
	if err := r.Apply(trimDB(map[string]any{"size": "256", "dscp_value": "48", "queue_index": "6"})); err != nil {
		t.Fatal(err)
	}
	before := snap(r)
	const diverged = "operation is not supported: ASIC and CONFIG DB are diverged"
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/SWITCH_TRIMMING/GLOBAL"}]`)), "SWITCH_TRIMMING|GLOBAL: "+diverged)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/SWITCH_TRIMMING"}]`)), "SWITCH_TRIMMING|GLOBAL: "+diverged)
	refused(t, r, before, r.Apply(DB{}), "SWITCH_TRIMMING|GLOBAL: "+diverged)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index"}]`)), "SWITCH_TRIMMING|GLOBAL: queue_index: "+diverged)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/SWITCH_TRIMMING/GLOBAL/size"}]`)), "SWITCH_TRIMMING|GLOBAL: size: "+diverged)
	// Changing values is still fine.
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "10"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 10, QueueMode: QueueStatic, Queue: 6})
}

// swss test_TrimAsymToSymMigration: asym(tc=2) → sym(dscp=10) → set tc=5:
// the ASIC's TC stays 2 (tc_value is not programmed in symmetric mode).
func TestTrimAsymToSymMigration(t *testing.T) {
	r := NewRuntime(testCaps())
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "from-tc", "tc_value": "2", "queue_index": "6"}}}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, TC: 2, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "10"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 10, TC: 2, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "5"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 10, TC: 2, QueueMode: QueueStatic, Queue: 6})
	if got := r.DB()["SWITCH_TRIMMING"]["GLOBAL"]["tc_value"]; got != "5" {
		t.Errorf("CONFIG_DB tc_value = %v, want 5 (accepted)", got)
	}
	// Back to asymmetric: the configured TC is programmed now; the
	// symmetric DSCP stays cached.
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, DSCP: 10, TC: 5, QueueMode: QueueStatic, Queue: 6})
}

// switchorch keeps the cached DSCP value across sym→asym and the queue
// index across static→dynamic.
func TestTrimModeSwitchKeepsValues(t *testing.T) {
	r := NewRuntime(testCaps())
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "48", "queue_index": "6"}}}]`)
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"}, {"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/tc_value", "value": "6"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, DSCP: 48, TC: 6, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "dynamic"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, DSCP: 48, TC: 6, QueueMode: QueueDyn, Queue: 6})
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/queue_index", "value": "2"}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, DSCP: 48, TC: 6, QueueMode: QueueStatic, Queue: 2})
	// T8: alternate sym / asym five times.
	for i := 0; i < 5; i++ {
		mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "48"}]`)
		trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPValue, DSCP: 48, TC: 6, QueueMode: QueueStatic, Queue: 2})
		mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "from-tc"}]`)
		trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, DSCP: 48, TC: 6, QueueMode: QueueStatic, Queue: 2})
	}
}

// T9: from-tc is accepted while no TC_TO_DSCP_MAP exists; adding the map
// and PORT_QOS_MAP afterwards is accepted.
func TestT9MapAfterConfig(t *testing.T) {
	r := NewRuntime(testCaps())
	if err := r.Apply(mustParse(t, bufferDoc)); err != nil {
		t.Fatal(err)
	}
	mustApplyPatch(t, r, `[{"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": "256", "dscp_value": "from-tc", "tc_value": "6", "queue_index": "6"}}}]`)
	trimmingIs(t, r, Trimming{Size: 256, DSCPMode: DSCPFromTC, TC: 6, QueueMode: QueueStatic, Queue: 6})
	mustApplyPatch(t, r, `[
  {"op": "add", "path": "/TC_TO_DSCP_MAP", "value": {"spine_trim_map": {"6": "10"}, "host_trim_map": {"6": "20"}}},
  {"op": "add", "path": "/PORT_QOS_MAP", "value": {"Ethernet0": {"tc_to_dscp_map": "spine_trim_map"}, "Ethernet4": {"tc_to_dscp_map": "host_trim_map"}}}]`)
	cfg := r.Config()
	if m := cfg.TCToDSCP[cfg.PortQoS["Ethernet4"].TCToDSCP]; m[cfg.Trimming.TC] != 20 {
		t.Errorf("Ethernet4 trim DSCP = %d, want 20 (maps %v, port QoS %v)", m[cfg.Trimming.TC], cfg.TCToDSCP, cfg.PortQoS)
	}
	// A map a port refers to cannot be removed.
	before := snap(r)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/TC_TO_DSCP_MAP/host_trim_map"}]`)),
		`PORT_QOS_MAP|Ethernet4: tc_to_dscp_map: no such TC_TO_DSCP_MAP (got "host_trim_map")`)
}

// bufferorch isTrimmingProhibited, the "edit" cases (swss
// test_TrimNeg{Pg,Ibuf,Ebuf}BufferProfileEdit): making a profile trim while
// a priority group or a port profile list uses it is refused; a profile
// used by queues only may toggle freely (T5, testplan case 10).
func TestTrimProfileEdit(t *testing.T) {
	r := NewRuntime(testCaps())
	db := mustParse(t, bufferDoc)
	db["BUFFER_PORT_INGRESS_PROFILE_LIST"] = map[string]map[string]any{"Ethernet4": {"profile_list": "pg_lossless_profile"}}
	if err := r.Apply(db); err != nil {
		t.Fatal(err)
	}
	before := snap(r)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "add", "path": "/BUFFER_PROFILE/pg_lossless_profile/packet_discard_action", "value": "trim"}]`)),
		`BUFFER_PG|Ethernet0|3-4: profile: BUFFER_PROFILE|pg_lossless_profile has packet_discard_action trim, which only queues may use`)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "remove", "path": "/BUFFER_PG"}, {"op": "add", "path": "/BUFFER_PROFILE/pg_lossless_profile/packet_discard_action", "value": "trim"}]`)),
		`BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet4: profile_list: BUFFER_PROFILE|pg_lossless_profile has packet_discard_action trim`)
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "add", "path": "/BUFFER_PROFILE/egress_static_profile/packet_discard_action", "value": "trim"}]`)),
		`BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet0: profile_list: BUFFER_PROFILE|egress_static_profile has packet_discard_action trim`)
	// Attach cases.
	refused(t, r, before, r.ApplyPatch([]byte(`[{"op": "add", "path": "/BUFFER_PORT_EGRESS_PROFILE_LIST/Ethernet8", "value": {"profile_list": "q_lossy_trim_profile"}}]`)),
		`BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet8: profile_list: BUFFER_PROFILE|q_lossy_trim_profile has packet_discard_action trim`)

	for i := 0; i < 10; i++ {
		mustApplyPatch(t, r, `[{"op": "replace", "path": "/BUFFER_PROFILE/q_lossy_trim_profile/packet_discard_action", "value": "drop"}]`)
		if r.Config().Profiles["q_lossy_trim_profile"].DiscardTrim {
			t.Fatalf("toggle %d: still trimming", i)
		}
		mustApplyPatch(t, r, `[{"op": "replace", "path": "/BUFFER_PROFILE/q_lossy_trim_profile/packet_discard_action", "value": "trim"}]`)
		if !r.Config().Profiles["q_lossy_trim_profile"].DiscardTrim {
			t.Fatalf("toggle %d: not trimming", i)
		}
	}
	if r.Generation() != 21 {
		t.Errorf("Generation = %d, want 21", r.Generation())
	}
}

// A Config handed out earlier is not changed by later applies.
func TestConfigSnapshotsStay(t *testing.T) {
	r := NewRuntime(testCaps())
	if err := r.Apply(trimDB(map[string]any{"size": "256", "dscp_value": "48"})); err != nil {
		t.Fatal(err)
	}
	old := r.Config()
	mustApplyPatch(t, r, `[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/dscp_value", "value": "10"}]`)
	if old.Trimming.DSCP != 48 || r.Config().Trimming.DSCP != 10 {
		t.Errorf("old DSCP %d, new %d", old.Trimming.DSCP, r.Config().Trimming.DSCP)
	}
}
