package smem

import "testing"

func mem(engines, queue int) *Memory {
	return MakeBuilder().WithConfig(Config{RMWEngines: engines, BytesPerCycle: 8, AddCycles: 2, SRAMLatencyNs: 70, DRAMLatencyNs: 350,
		SRAMBytes: 1 << 20, DRAMBytes: 1 << 30, EngineQueue: queue}).WithClockMHz(1000).Build("SMem")
}

// One engine serialises its requests: the k-th of n simultaneous adds
// replies k engine operations after the first, half a round trip out and
// half back.
func TestEngineSerialises(t *testing.T) {
	m := mem(4, 100)
	for k := 0; k < 5; k++ {
		reply, room := m.Serve(Transaction{Bank: 1, Cycles: 2, LatencyPs: 70_000}, 0)
		if want := int64(35_000 + 2_000*(k+1) + 35_000); reply != want || room != 0 {
			t.Errorf("request %d: reply %d room %d, want %d 0", k, reply, room, want)
		}
	}
	if m.Engines[1].BusyPs != 10_000 || m.BusyPs != 10_000 || m.Hottest() != 10_000 || m.Engines[0].BusyPs != 0 {
		t.Errorf("busy: engine 1 %d, total %d, hottest %d, engine 0 %d", m.Engines[1].BusyPs, m.BusyPs, m.Hottest(), m.Engines[0].BusyPs)
	}
}

// A full engine queue back-pressures the sender until a slot frees; a
// transaction without a bank only pays the round trip.
func TestBackPressureAndNoBank(t *testing.T) {
	m := mem(1, 2)
	var room int64
	for k := 0; k < 4; k++ {
		_, room = m.Serve(Transaction{Bank: 0, Cycles: 2, LatencyPs: 0}, 0)
	}
	// The 4th finds 3 operations (6 ns) ahead, 1 more than the queue holds.
	if room != 2_000 {
		t.Errorf("room %d, want 2000", room)
	}
	if reply, room := m.Serve(Transaction{Bank: -1, LatencyPs: 350_000}, 10); reply != 350_010 || room != 10 {
		t.Errorf("no bank: reply %d room %d", reply, room)
	}
}

// Banks interleave every 64 bytes; DRAM addresses follow the SRAM's.
func TestBankInterleave(t *testing.T) {
	m := mem(12, 8)
	for _, c := range []struct {
		addr int64
		dram bool
		want int
	}{{0, false, 0}, {63, false, 0}, {64, false, 1}, {12 * 64, false, 0}, {0, true, int((1 << 20) / 64 % 12)}} {
		if got := m.Bank(c.addr, c.dram); got != c.want {
			t.Errorf("Bank(%d, %v) = %d, want %d", c.addr, c.dram, got, c.want)
		}
	}
	if m.LatencyPs(false) != 70_000 || m.LatencyPs(true) != 350_000 {
		t.Error("latencies")
	}
}
