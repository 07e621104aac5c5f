package sonic

import (
	"reflect"
	"testing"
)

func TestPatch(t *testing.T) {
	db := mustParse(t, bufferDoc)
	orig := cloneDB(db)
	out, err := Patch(db, []byte(`[
  {"op": "replace", "path": "/BUFFER_PROFILE/q_lossy_trim_profile/packet_discard_action", "value": "drop"},
  {"op": "remove", "path": "/BUFFER_PG/Ethernet0|3-4"},
  {"op": "add", "path": "/SWITCH_TRIMMING", "value": {"GLOBAL": {"size": 256, "dscp_value": "48"}}},
  {"op": "add", "path": "/ACL_TABLE", "value": {"T": {"PORTS": ["Ethernet0"]}}},
  {"op": "add", "path": "/BUFFER_QUEUE/Ethernet8~13", "value": {"profile": "q_lossy_profile"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(db, orig) {
		t.Errorf("Patch changed its input")
	}
	if out["BUFFER_PROFILE"]["q_lossy_trim_profile"]["packet_discard_action"] != "drop" {
		t.Errorf("replace not applied")
	}
	if _, ok := out["BUFFER_PG"]; ok {
		t.Errorf("an emptied table is kept: %v", out["BUFFER_PG"])
	}
	if out["SWITCH_TRIMMING"]["GLOBAL"]["size"] != "256" {
		t.Errorf("a number value is not kept as text: %#v", out["SWITCH_TRIMMING"]["GLOBAL"]["size"])
	}
	if !reflect.DeepEqual(out["ACL_TABLE"]["T"]["PORTS"], []string{"Ethernet0"}) {
		t.Errorf("list value: %#v", out["ACL_TABLE"]["T"]["PORTS"])
	}
	if out["BUFFER_QUEUE"]["Ethernet8/3"] == nil {
		t.Errorf("~1 in a path is not a /: %v", out["BUFFER_QUEUE"])
	}
	// An empty patch is a copy.
	same, err := Patch(db, []byte("\n  [ ]\n"))
	if err != nil || !reflect.DeepEqual(same, db) {
		t.Errorf("empty patch: %v", err)
	}
	same["BUFFER_POOL"]["egress_lossy_pool"]["type"] = "ingress"
	if db["BUFFER_POOL"]["egress_lossy_pool"]["type"] != "egress" {
		t.Errorf("Patch result shares maps with its input")
	}
}

func TestPatchErrors(t *testing.T) {
	db := mustParse(t, bufferDoc)
	for _, c := range []struct {
		patch string
		want  []string
	}{
		{`[{"op": "replace", "path": "/X/y", "value": "1"}`, []string{"patch:1:", "JSON syntax error"}},
		{`{"op": "replace"}`, []string{"patch: must be a JSON list of operations"}},
		{` "x"`, []string{"patch: must be a JSON list of operations"}},
		{`[{"op": "replace", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "1"}]`, []string{"patch: ", "replace operation does not apply"}},
		{`[{"op": "frobnicate", "path": "/BUFFER_POOL"}]`, []string{"patch: ", "frobnicate"}},
		{`[{"op": "test", "path": "/BUFFER_POOL/egress_lossy_pool/type", "value": "ingress"}]`, []string{"patch: ", "testing value"}},
		{`[{"op": "add", "path": "/BUFFER_POOL/egress_lossy_pool/type", "value": null}]`, []string{"patch: result: BUFFER_POOL|egress_lossy_pool: type: a value must be a string, a number or a list of strings (got null)"}},
		{`[{"op": "replace", "path": "", "value": []}]`, []string{"patch: result: the document must be a JSON object of tables (got a list)"}},
	} {
		_, err := Patch(db, []byte(c.patch))
		wantErr(t, err, c.want...)
	}
	// ApplyPatch reports the same and changes nothing.
	r := NewRuntime(testCaps())
	refused(t, r, snap(r), r.ApplyPatch([]byte(`[{"op": "remove", "path": "/SWITCH_TRIMMING"}]`)), "patch: ", "unable to remove nonexistent key: SWITCH_TRIMMING")
	// On an empty runtime a patch adds to an empty CONFIG_DB.
	mustApplyPatch(t, r, `[{"op": "add", "path": "/PORT", "value": {"Ethernet0": {"admin_status": "down"}}}]`)
	if !r.Config().AdminDown["Ethernet0"] {
		t.Errorf("AdminDown = %v", r.Config().AdminDown)
	}
}
