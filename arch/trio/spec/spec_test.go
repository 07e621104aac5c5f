package spec

import (
	"strings"
	"testing"

	"archsim/configs"
)

// TestResultChunkConfig: both generations set xtxn.result_chunk_bytes
// (Trio 6 without losing the rest of xtxn), and it is range-checked.
func TestResultChunkConfig(t *testing.T) {
	l, err := configs.Load(configs.Source{Base: []string{"trio5.yaml", "trio6.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	c6, err := LoadConfig(l)
	if err != nil {
		t.Fatal(err)
	}
	if c6.XTXN.ResultChunkBytes != 256 || c6.XTXN.MaxBytes != 64 || c6.XTXN.TailChunkBytes != 64 {
		t.Errorf("trio6 xtxn %+v, want result_chunk_bytes 256 over trio5's sizes", c6.XTXN)
	}
	for _, v := range []string{"0", "100000"} {
		l, err := configs.Load(configs.Source{Base: []string{"trio5.yaml"}, Sets: []string{"trio.xtxn.result_chunk_bytes=" + v}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(l); err == nil || !strings.Contains(err.Error(), "trio.xtxn.result_chunk_bytes = "+v+" is out of range") {
			t.Errorf("result_chunk_bytes=%s: error %v, want out of range", v, err)
		}
	}
}
