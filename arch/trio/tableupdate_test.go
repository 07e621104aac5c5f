package trio

import (
	"encoding/json"
	"testing"
)

// learnTables is an aging exact table that ingress fills on a miss.
const learnTables = `actions:
  seen: meta.m1 = 1
  unseen: meta.m1 = 0
tables:
  flows:
    key: {ip.src: exact}
    actions: [seen, unseen]
    default: unseen
    size: 1024
    aging: true
`

// TestTableInsertCosts: a program that inserts on a miss. Every packet
// carries the same ip.src, so the first misses and inserts (a hash
// transaction, then the record write) and the others hit: per packet,
// hash lookups (n+1)/n and writes 1/n. Statically the insert is a second
// hash-lookup site and a write site.
func TestTableInsertCosts(t *testing.T) {
	c := chipT(t)
	p := prog(t, learnTables, "std.egress_port = 1\nif flows.apply().miss {\n  flows.insert(seen)\n}")
	m := lowerT(t, c, p)
	if m.XTXNSites["hash_lookup"] != 2 || m.XTXNSites["write"] != 1 {
		t.Fatalf("transaction sites %v, want hash_lookup 2 and write 1", m.XTXNSites)
	}
	const n = 10
	r := run(t, c, p, n, 0.1)
	x := r.Ingress.XTXNPerPacket
	if x["hash_lookup"] != float64(n+1)/n || x["write"] != 1.0/n || len(x) != 2 {
		t.Fatalf("transactions per packet %v, want hash_lookup %.1f and write %.1f", x, float64(n+1)/n, 1.0/n)
	}
	// remove is one asynchronous write per packet, aged one RMW.
	p = prog(t, learnTables, "std.egress_port = 1\nflows.remove()\nmeta.m2 = bit32(flows.aged(5))")
	m = lowerT(t, c, p)
	if m.XTXNSites["write"] != 1 || m.XTXNSites["rmw"] != 1 {
		t.Fatalf("remove and aged: sites %v, want write 1 and rmw 1", m.XTXNSites)
	}
	if x := run(t, c, p, n, 0.1).Ingress.XTXNPerPacket; x["write"] != 1 || x["rmw"] != 1 || len(x) != 2 {
		t.Fatalf("remove and aged: transactions per packet %v, want write 1 and rmw 1", x)
	}
	// load is a synchronous record read.
	p = prog(t, learnTables, "std.egress_port = 1\nflows.load(3)")
	m = lowerT(t, c, p)
	if m.XTXNSites["read"] != 1 {
		t.Fatalf("load: sites %v, want read 1", m.XTXNSites)
	}
	if x := run(t, c, p, n, 0.1).Ingress.XTXNPerPacket; x["read"] != 1 || len(x) != 1 {
		t.Fatalf("load: transactions per packet %v, want read 1", x)
	}
}

// scanTables is a full aging table of 64 control-plane entries that a
// timer thread scans: aged records are read back with load() and removed.
const scanTables = `actions:
  keep: meta.m1 = meta.m1 + 1
tables:
  flows:
    key: {meta.m3: exact}
    actions: [keep]
    size: 64
    aging: true
    entries:
      - {for: {i: "0..63"}, key: i, action: keep}
timers:
  scan:
    period_ns: 20000
    threads: 1
    do: |
      for meta.m0 = 0; meta.m0 < 64; meta.m0++ {
        if flows.aged(meta.m0) == 1 {
          flows.load(meta.m0)
          flows.remove()
        }
      }
`

// TestTableScanCosts: a timer visits the 64 records of a table every
// 20 us, one synchronous REF fetch-and-clear each (64 SRAM round trips).
// The first visit finds every REF set (records are created with it); the
// second finds them all clear and also reads each record (64 more round
// trips) and removes it (asynchronous); later visits find empty slots.
func TestTableScanCosts(t *testing.T) {
	c := chipT(t)
	p := prog(t, scanTables, "std.egress_port = 1")
	m := lowerT(t, c, p)
	if m.XTXNSites["rmw"] != 1 || m.XTXNSites["read"] != 1 || m.XTXNSites["write"] != 1 {
		t.Fatalf("transaction sites %v, want rmw, read and write 1 each", m.XTXNSites)
	}
	r, err := measure(c, m, runOptions{Packets: 100, Load: 0.0005, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Timers == nil || r.Timers.Runs < 3 {
		t.Fatalf("timer runs %+v, want ≥ 3", r.Timers)
	}
	lat := c.SMem.SRAMLatencyNs
	d := r.Timers.DurationNs
	if d.Min < 64*lat || d.Min >= 128*lat {
		t.Errorf("shortest scan %.0f ns, want 64 round trips (≥ %.0f, < %.0f)", d.Min, 64*lat, 128*lat)
	}
	if d.Max < 128*lat {
		t.Errorf("longest scan %.0f ns, want ≥ %.0f (64 fetch-and-clears and 64 record reads)", d.Max, 128*lat)
	}
}

// TestTableUpdateDeterministic: the same seeded run twice gives the same
// results.
func TestTableUpdateDeterministic(t *testing.T) {
	c := chipT(t)
	var out [2][]byte
	for i := range out {
		p := prog(t, scanTables, "std.egress_port = 1\nmeta.m3 = ip.dst\nif flows.apply().miss {\n  flows.insert(keep)\n}")
		r, err := measure(c, lowerT(t, c, p), runOptions{Packets: 200, Load: 0.3, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	}
	if string(out[0]) != string(out[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", out[0], out[1])
	}
}
