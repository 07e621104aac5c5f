package flowgen

import (
	"os"
	"runtime"
	"testing"
	"time"

	"archsim/components/packet"
)

// TestPerfManyFlows (FLOWGEN_PERF=1) runs 10^5 143 B DCTCP flows on 4
// loops losing every 1000th frame: all complete, the heap stays small
// (no per-flow state kept), the p99.9 FCT is the timeout-bound one.
func TestPerfManyFlows(t *testing.T) {
	if os.Getenv("FLOWGEN_PERF") == "" {
		t.Skip("set FLOWGEN_PERF=1")
	}
	k := 0
	drop := func(*packet.Packet, int) bool { k++; return k%1000 == 0 }
	t0 := time.Now()
	c, _ := runTCP(t, dctcpConfig(), Config{Bytes: 143, GapPs: 1e6, Flows: 100000, Parallel: 4, SynRTTPs: baseRTT}, drop)
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	s := c.FCT()
	if c.Done() != 100000 || m.HeapAlloc > 16<<20 || s.P999 < 1000 || s.P50 > 20 {
		t.Errorf("done %d, heap %d KB, FCT %+v", c.Done(), m.HeapAlloc/1024, s)
	}
	t.Logf("%v for %d flows, heap %d KB, FCT %+v, %+v", time.Since(t0), c.Done(), m.HeapAlloc/1024, c.FCT(), c.Counters())
}
