package experiments

import (
	"reflect"
	"testing"
)

// TestShardCarriesEveryRunField: a field of Run that the JSON summary
// leaves out must travel in ShardRun, or a merged run would lose it (wall
// time excepted: it is no output).
// A PIE run's series (json:"-" in PIERun) travels in the shard file too.
func TestShardCarriesPIETrace(t *testing.T) {
	pt := reflect.TypeOf(PIERun{})
	for i := 0; i < pt.NumField(); i++ {
		if f := pt.Field(i); f.Tag.Get("json") == "-" && f.Name != "Trace" && f.Name != "DelayCDF" {
			t.Errorf("PIERun.%s (json:\"-\") is not carried by ShardRun: merge would lose it", f.Name)
		}
	}
}

func TestShardCarriesEveryRunField(t *testing.T) {
	rt := reflect.TypeOf(Run{})
	st := reflect.TypeOf(ShardRun{})
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if f.Tag.Get("json") != "-" || f.Name == "WallMs" {
			continue
		}
		sf, ok := st.FieldByName(f.Name)
		if !ok || sf.Type != f.Type {
			t.Errorf("Run.%s (json:\"-\") is not carried by ShardRun: merge would lose it", f.Name)
		}
	}
}
