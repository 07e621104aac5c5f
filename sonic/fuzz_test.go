package sonic

import (
	"testing"

	"archsim/configs"
)

// FuzzConfigDB feeds arbitrary config_db.json documents to the parser and
// the validator: each must give a configuration or an error, never panic.
// Seeds are the built-in CONFIG_DBs (configs/sonic) and the corpus in
// testdata/fuzz/FuzzConfigDB.
func FuzzConfigDB(f *testing.F) {
	for _, n := range configs.SONiCConfigs() {
		data, err := configs.Read("sonic/" + n + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Parse(data, "fuzz.json")
		if err != nil {
			return
		}
		cfg, err := Validate(db, testCaps())
		if err == nil && cfg == nil {
			t.Fatal("nil configuration without error")
		}
	})
}

// FuzzPatch applies arbitrary JSON patches to a built-in CONFIG_DB (the
// generic config updater's input): a patched DB or an error, never a
// panic.
func FuzzPatch(f *testing.F) {
	base, err := configs.Read("sonic/incast-trim.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`[{"op": "add", "path": "/SWITCH_TRIMMING/GLOBAL/size", "value": "256"}]`))
	f.Add([]byte(`[{"op": "remove", "path": "/BUFFER_PROFILE"}]`))
	f.Add([]byte(`[{"op": "replace", "path": "/PORT/Ethernet0/speed", "value": 1}]`))
	f.Fuzz(func(t *testing.T, patch []byte) {
		db, err := Parse(base, "base.json")
		if err != nil {
			t.Fatal(err)
		}
		out, err := Patch(db, patch)
		if err != nil {
			return
		}
		_, _ = Validate(out, testCaps())
	})
}
