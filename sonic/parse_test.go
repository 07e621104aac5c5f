package sonic

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseValues(t *testing.T) {
	db := mustParse(t, `{
  "SWITCH_TRIMMING": {"GLOBAL": {"size": 256, "dscp_value": "48", "queue_index": 6.5, "tc_value": 1e1}},
  "ACL_TABLE": {"T": {"PORTS": ["Ethernet0", 4], "STAGE": "ingress"}},
  "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}},
  "EMPTY": {}
}`)
	want := DB{
		"SWITCH_TRIMMING":    {"GLOBAL": {"size": "256", "dscp_value": "48", "queue_index": "6.5", "tc_value": "10"}},
		"ACL_TABLE":          {"T": {"PORTS": []string{"Ethernet0", "4"}, "STAGE": "ingress"}},
		"PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet0": {}},
		"EMPTY":              {},
	}
	if !reflect.DeepEqual(db, want) {
		t.Errorf("Parse:\n got %#v\nwant %#v", db, want)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"syntax", "{\n  \"A\": {\n    \"k\": {\"f\": x}\n  }\n}", []string{"cfg.json:3:16: JSON syntax error", "invalid character 'x'"}},
		{"trailing comma", "{\"A\": {\"k\": {\"f\": \"1\",}}}", []string{"cfg.json:1:23:", "JSON syntax error"}},
		{"truncated", "{\"A\": {", []string{"cfg.json:1:8:", "unexpected end of JSON input"}},
		{"empty", "", []string{"cfg.json:1:1:", "unexpected end of JSON input"}},
		{"trailing data", "{}\n{}", []string{"cfg.json:2:1:", "after top-level value"}},
		{"top level list", "[]", []string{"cfg.json:1:1:", "the document must be a JSON object of tables (got a list)"}},
		{"table not object", `{"PORT": "x"}`, []string{"cfg.json:1:10:", `PORT: a table must be a JSON object of keys (got "x")`}},
		{"entry not object", `{"PORT": {"Ethernet0": ["a"]}}`, []string{"cfg.json:1:24:", "PORT|Ethernet0: an entry must be a JSON object of fields (got a list)"}},
		{"null value", "{\"PORT\": {\"Ethernet0\": {\n\"admin_status\": null}}}", []string{"cfg.json:2:17:", "PORT|Ethernet0: admin_status: a value must be a string, a number or a list of strings (got null)"}},
		{"bool value", `{"PORT": {"Ethernet0": {"admin_status": true}}}`, []string{"PORT|Ethernet0: admin_status:", "(got true)"}},
		{"nested object", `{"PORT": {"Ethernet0": {"admin_status": {"a": "b"}}}}`, []string{"PORT|Ethernet0: admin_status:", "(got an object)"}},
		{"list of objects", `{"ACL_TABLE": {"T": {"PORTS": [{}]}}}`, []string{"ACL_TABLE|T: PORTS: list elements must be strings or numbers (got an object)"}},
		{"huge number", `{"A": {"k": {"f": 1e999}}}`, []string{"A|k: f: number out of range (got 1e999)"}},
		{"duplicate table", `{"A": {}, "A": {}}`, []string{"cfg.json:1:11:", "A: duplicate table"}},
		{"duplicate key", `{"A": {"k": {}, "k": {}}}`, []string{"A|k: duplicate key"}},
		{"duplicate field", `{"A": {"k": {"f": "1", "f": "2"}}}`, []string{"A|k: f: duplicate field"}},
		{"odd names", "{\"A\": {\"k\\n\": {\"f\": null}}}", []string{`"A|k\n": f:`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc), "cfg.json")
			wantErr(t, err, c.want...)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config_db.json")
	if err := os.WriteFile(path, []byte(`{"PORT": {"Ethernet0": {"admin_status": "up"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if db["PORT"]["Ethernet0"]["admin_status"] != "up" {
		t.Errorf("Load: got %v", db)
	}
	_, err = Load(filepath.Join(dir, "missing.json"))
	wantErr(t, err, "missing.json")
	if err := os.WriteFile(path, []byte("{\n]"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	wantErr(t, err, path+":2:1: JSON syntax error")
}
