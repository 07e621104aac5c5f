package ideal

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"archsim/arch"
	"archsim/components/aqm/pie"
	"archsim/components/hosts"
	"archsim/components/link"
	"archsim/components/packet"
	"archsim/engine"
)

// pieRig is the paper's bottleneck in small: UDP sources on ports 1..n of
// an ideal PIE switch whose port 0 (10 Gb/s) leads to a sink (host 0).
type pieRig struct {
	eng  *engine.Serial
	sw   *Switch
	sink *hosts.UDPSink
	srcs []*hosts.UDPSource
	upd  []pieUpdate
}

type pieUpdate struct {
	At, QDelay int64
	Prob       float64
}

func newPIERig(t *testing.T, pc PIEConfig, srcs []hosts.UDPConfig, deadline int64) *pieRig {
	t.Helper()
	r := &pieRig{eng: engine.NewSerial()}
	r.sw = MakeBuilder().WithEngine(r.eng).WithConfig(Config{
		Ports: 1 + len(srcs), PortGbps: 100, Seed: 1, PIE: &pc,
		PortOfPacket: func(p *packet.Packet) int { return hosts.DstHost(p) },
	}).Build("Ideal")
	if err := r.sw.SetPortGbps(0, 10); err != nil {
		t.Fatal(err)
	}
	r.sw.SetDeadline(deadline)
	r.sw.OnPIEUpdate(func(port int, now int64, prob float64, q int64) {
		if port != 0 {
			t.Errorf("update on port %d", port)
		}
		r.upd = append(r.upd, pieUpdate{now, q, prob})
	})
	b := hosts.MakeBuilder().WithEngine(r.eng)
	if deadline > 0 {
		b = b.WithDeadline(deadline)
	}
	r.sink = b.WithHost(0, 0).BuildUDPSink("Sink")
	r.sw.Attach(0, link.To(r.sink, 0, 0))
	for i, c := range srcs {
		c.Src, c.Dst = hosts.HostIP(i+1), hosts.HostIP(0)
		s, err := b.WithHost(i+1, i+1).WithUplink(r.sw.IngressHandler(i+1)).BuildUDP("Src", c)
		if err != nil {
			t.Fatal(err)
		}
		r.srcs = append(r.srcs, s)
	}
	return r
}

func (r *pieRig) run(t *testing.T) {
	t.Helper()
	for _, s := range r.srcs {
		s.Start()
	}
	if err := r.eng.Run(); err != nil {
		t.Fatal(err)
	}
}

// fastPIE is an aggressive controller (t_update 10 us) so that drop_prob
// moves within a short test; the rules are the RFC's.
func fastPIE(drop bool) PIEConfig {
	return PIEConfig{LimitPs: 500e6, Params: pie.Params{Flavour: "test", DelayRefPs: 20e6, TUpdatePs: 10e6,
		Alpha: 200, Beta: 2000, Scaling: pie.ScalingRFC, CapDropAdjustment: true, Decay: 0.98, ClampToOne: true,
		Burst: pie.BurstNone, SafeguardProb: 0.2, MeanPktBytes: 1500, ECNThreshold: 0.1, NoDrop: !drop}}
}

// Three 1514-byte frames reach the 10 Gb/s port at once: they wait 0, one
// and two serializations ((1514+24) x 8 x 100 ps = 1 230 400 ps), and the
// delay PIE sees after the last one left is 0 (the queue is empty, as in
// ns-3's DoDequeue).
func TestPIEQueueDelayByTimestamps(t *testing.T) {
	r := newPIERig(t, fastPIE(true), nil, 0)
	for i := 0; i < 3; i++ {
		pkt := &packet.Packet{ID: uint64(i + 1), Len: 1514,
			Head: hosts.EncodeUDP(make([]byte, hosts.UDPHeaderLen), hosts.UDPConfig{IPBytes: 1500, Dst: hosts.HostIP(0)}, 1)}
		packet.Schedule(r.eng, r.sw, 0, packet.KindArrive, pkt, 1)
	}
	r.run(t)
	d := r.sw.QueueDelays(0)
	if d == nil || d.N() != 3 || d.Min() != 0 || d.Max() != 2*1_230_400 || d.Mean() != 1_230_400 {
		t.Fatalf("queue delays %+v", d)
	}
	if q := r.sw.ports[0].pq.qdelayPs; q != 0 {
		t.Fatalf("delay after the queue emptied: %d", q)
	}
	if r.sink.Packets != 3 || r.sw.Delivered != 3 {
		t.Fatalf("delivered %d", r.sink.Packets)
	}
}

// 100 Gb/s into the 10 Gb/s port for 1 ms, PIE told not to drop: the FIFO
// holds at most 500 us x 10 Gb/s = 625 000 bytes = 412 frames of 1514
// bytes, drops the excess at its tail, and delivers the rest in order.
func TestPIEByteLimitTailDrop(t *testing.T) {
	r := newPIERig(t, fastPIE(false), []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100, StopPs: 1e9}}, 0)
	var lastID uint64
	r.sink.OnReceive(func(_ int64, p *packet.Packet) {
		if p.ID <= lastID {
			t.Fatalf("out of order: %d after %d", p.ID, lastID)
		}
		lastID = p.ID
	})
	r.run(t)
	if r.sw.MaxDataQueue() != 412 {
		t.Fatalf("longest queue %d frames, want 412", r.sw.MaxDataQueue())
	}
	c := r.sw.Counters()
	if len(c.Drops) != 1 || c.Drops[0].Reason != DropQueueFull {
		t.Fatalf("drops %+v", c.Drops)
	}
	if got := int64(c.Drops[0].Packets) + r.sink.Packets; got != r.srcs[0].Sent {
		t.Fatalf("sent %d = delivered %d + dropped %d?", r.srcs[0].Sent, r.sink.Packets, c.Drops[0].Packets)
	}
	if r.sw.PIE(0).WouldDrop == 0 {
		t.Fatal("PIE would have dropped under this overload")
	}
	// A frame waits at most for 412 frames ahead of it (the one on the
	// wire and 411 queued), each 1 230 400 ps with preamble, FCS and gap:
	// the byte limit is 500 us of frame bytes, 507 us of wire time.
	if d := r.sw.QueueDelays(0); d.Max() > 412*1_230_400 || d.Max() < 411*1_230_400 {
		t.Fatalf("longest wait %d ps, want within (411, 412] x 1 230 400", d.Max())
	}
}

// The update timer runs on the grid of t_update from the port's first
// frame, one update per instant (one pending event), while the port is in
// use; during a long pause it stops (the queue is empty and PIE
// quiescent), and the skipped updates, which would have changed nothing,
// are still counted.
func TestPIEUpdateTimer(t *testing.T) {
	const T = int64(10e6)
	src := hosts.UDPConfig{NICGbps: 100, RateGbps: 5, StopPs: 3e9,
		Schedule: []hosts.RateChange{{AtPs: 1e9, Gbps: 0}, {AtPs: 2e9, Gbps: 5}}}
	r := newPIERig(t, fastPIE(true), []hosts.UDPConfig{src}, 0)
	var first, last int64 = -1, 0
	r.sink.OnReceive(func(now int64, p *packet.Packet) {
		if first < 0 {
			first = p.BornPs + packet.SerializationPs(1514, 100) // reached the switch
		}
		last = p.BornPs + packet.SerializationPs(1514, 100)
	})
	r.run(t)
	for i, u := range r.upd {
		if (u.At-first)%T != 0 || (i > 0 && u.At <= r.upd[i-1].At) {
			t.Fatalf("update %d at %d: off the grid from %d or not after the previous", i, u.At, first)
		}
		if u.Prob != 0 {
			t.Fatalf("5 Gb/s into 10 Gb/s: drop_prob %g", u.Prob)
		}
	}
	want := int((last-first)/T) + 1
	if got := r.sw.PIEUpdates(); got != want {
		t.Fatalf("updates %d, want %d (grid from %d to the first instant after %d)", got, want, first, last)
	}
	if len(r.upd) >= want-50 {
		t.Fatalf("%d update events for %d updates: the timer did not stop in the 1 ms pause", len(r.upd), want)
	}
}

// The paper's rise/fall in small: 100 Gb/s into the 10 Gb/s port with PIE
// not dropping; when drop_prob reaches 1 the source drops to 5 Gb/s (from
// the update hook) and drop_prob falls back to 0. drop_prob rises
// monotonically while the queue is full, the switch fed PIE exactly the
// delays its hook reports (a fresh controller replaying them matches), and
// a second run is identical.
func TestPIERiseFallAndReplay(t *testing.T) {
	run := func() (*pieRig, int64, int64) {
		r := newPIERig(t, fastPIE(false), []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100}}, 50e9)
		var rise, fall int64 = -1, -1
		r.sw.OnPIEUpdate(func(_ int, now int64, prob float64, q int64) {
			r.upd = append(r.upd, pieUpdate{now, q, prob})
			if rise < 0 && prob >= 1 {
				rise = now
				if err := r.srcs[0].SetRateGbps(now, 5); err != nil {
					t.Error(err)
				}
			}
			if rise >= 0 && fall < 0 && prob == 0 {
				fall = now
				_ = r.srcs[0].SetRateGbps(now, 0)
			}
		})
		r.run(t)
		return r, rise, fall
	}
	r, rise, fall := run()
	if rise < 0 || fall < 0 {
		t.Fatalf("rise %d fall %d", rise, fall)
	}
	t.Logf("rise %.3f ms, fall %.3f ms, %d updates", float64(rise)/1e9, float64(fall-rise)/1e9, r.sw.PIEUpdates())
	prev := 0.0
	for _, u := range r.upd {
		if u.At > rise {
			break
		}
		if u.Prob < prev {
			t.Fatalf("drop_prob fell at %d under overload", u.At)
		}
		prev = u.Prob
	}
	if r.sw.PIE(0).Drops != 0 || r.sw.PIE(0).WouldDrop == 0 {
		t.Fatalf("no-drop mode: drops %d would-drop %d", r.sw.PIE(0).Drops, r.sw.PIE(0).WouldDrop)
	}
	replay := pie.MustNew(r.sw.PIE(0).Params())
	for i, u := range r.upd {
		replay.Update(u.QDelay)
		if replay.Prob() != u.Prob {
			t.Fatalf("update %d: replayed %g, switch %g", i, replay.Prob(), u.Prob)
		}
	}
	r2, rise2, fall2 := run()
	if rise2 != rise || fall2 != fall || !reflect.DeepEqual(r.upd, r2.upd) || r.sink.Packets != r2.sink.Packets {
		t.Fatal("two runs differ")
	}
}

// The update timer stops at the run's deadline even with drop_prob > 0
// and a queue still draining.
func TestPIETimerStopsAtDeadline(t *testing.T) {
	r := newPIERig(t, fastPIE(false), []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100}}, 1e9)
	r.run(t)
	last := r.upd[len(r.upd)-1]
	if last.At > 1e9 || last.At+10e6 <= 1e9 || last.Prob == 0 {
		t.Fatalf("last update at %d (prob %g), want the last grid point before the 1 ms deadline with drop_prob > 0", last.At, last.Prob)
	}
}

// With PIE dropping, the same overload sees early (PIE) drops as well as
// tail drops; every frame is delivered or dropped once.
func TestPIEDrops(t *testing.T) {
	r := newPIERig(t, fastPIE(true), []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100, StopPs: 3e9}}, 0)
	r.run(t)
	c := r.sw.Counters()
	byReason := map[string]int{}
	total := int64(0)
	for _, d := range c.Drops {
		byReason[d.Reason] = d.Packets
		total += int64(d.Packets)
	}
	if byReason[DropPIE] == 0 || byReason[DropPIE] != r.sw.PIE(0).Drops {
		t.Fatalf("pie drops %d (controller %d)", byReason[DropPIE], r.sw.PIE(0).Drops)
	}
	if total+r.sink.Packets != r.srcs[0].Sent {
		t.Fatalf("sent %d, delivered %d, dropped %d", r.srcs[0].Sent, r.sink.Packets, total)
	}
}

// ECN: ECT(0) frames are marked CE (not dropped) while drop_prob < 0.1.
func TestPIEECNMarks(t *testing.T) {
	pc := fastPIE(true)
	pc.ECN = true
	r := newPIERig(t, pc, []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100, StopPs: 2e9, ECT: true}}, 0)
	var firstDrop int64 = -1
	r.sw.OnDrop(func(p *packet.Packet, reason string) {
		if reason == DropPIE && firstDrop < 0 {
			firstDrop = p.BornPs
		}
	})
	var probAt []pieUpdate
	r.sw.OnPIEUpdate(func(_ int, now int64, prob float64, q int64) { probAt = append(probAt, pieUpdate{now, q, prob}) })
	r.run(t)
	p := r.sw.PIE(0)
	if p.Marks == 0 || p.Drops == 0 || r.sink.CE != int64(p.Marks) {
		t.Fatalf("marks %d drops %d CE at the sink %d", p.Marks, p.Drops, r.sink.CE)
	}
	// The first early drop comes after drop_prob reached the threshold.
	reached := int64(-1)
	for _, u := range probAt {
		if u.Prob >= 0.1 {
			reached = u.At
			break
		}
	}
	if reached < 0 || firstDrop < reached {
		t.Fatalf("first pie drop of a frame sent at %d, drop_prob reached 0.1 at %d", firstDrop, reached)
	}
}

// The chip: --set ideal.queue.discipline=pie builds PIE ports with the
// flavour and Table II values; bad values are errors naming the key.
func TestPIEChipConfig(t *testing.T) {
	tg, err := TheChip.Load(arch.Overrides{Sets: []string{"ideal.queue.discipline=pie", "ideal.pie.flavour=default", "ideal.pie.drop=false"}})
	if err != nil {
		t.Fatal(err)
	}
	c := tg.(*Target).pie
	if c == nil || c.Params.Flavour != "default" || !c.Params.NoDrop || c.Params.DelayRefPs != 125e6 || c.Params.TUpdatePs != 117e6 ||
		c.Params.Scaling != pie.ScalingNS3v31 || c.LimitPs != 500e6 {
		t.Fatalf("pie config %+v", c)
	}
	sw, err := tg.Build(arch.BuildSpec{Engine: engine.NewSerial(), Net: &arch.Net{Ports: 2, LinkGbps: 10, MSS: 1514,
		Route: func(*packet.Packet) int { return 0 }}})
	if err != nil || sw.(*Switch).cfg.PIE == nil {
		t.Fatalf("build: %v", err)
	}
	for _, k := range []struct {
		sets []string
		want string
	}{
		{[]string{"ideal.queue.discipline=red"}, "ideal.queue.discipline"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.flavour=nope"}, "ideal.pie.flavour"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.params=x"}, "ideal.pie.params"},
		{[]string{"ideal.queue.discipline=pie", "ideal.queue.limit_us=100"}, "delay_ref 125 us is above the queue limit 100 us"},
		{[]string{"ideal.queue.discipline=pie", "ideal.queue.limit_us=0"}, "ideal.queue.limit_us"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.t_update_us=0"}, "--set ideal.pie.t_update_us=0: ideal.pie.t_update_us = 0: pie: t_update must be > 0"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.alpha=-0.5"}, "ideal.pie.alpha = -0.5: pie: alpha must be"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.beta=-2"}, "ideal.pie.beta = -2: pie: beta must be"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.beta=x"}, "ideal.pie.beta: want auto or a number"},
		{[]string{"ideal.queue.discipline=pie", "ideal.pie.delay_ref_us=600"}, "--set ideal.pie.delay_ref_us=600: ideal.queue.limit_us 500 with ideal.pie: pie: delay_ref 600 us is above the queue limit 500 us"},
	} {
		_, err := TheChip.Load(arch.Overrides{Sets: k.sets})
		if err == nil || !strings.Contains(err.Error(), k.want) {
			t.Fatalf("%v: want an error naming %q, got %v", k.sets, k.want, err)
		}
	}
	// delay_ref is checked against this switch's queue limit.
	if _, err := TheChip.Load(arch.Overrides{Sets: []string{"ideal.queue.discipline=pie", "ideal.pie.delay_ref_us=600", "ideal.queue.limit_us=1000"}}); err != nil {
		t.Fatal(err)
	}
	// Overrides replace the Table II values.
	tg, err = TheChip.Load(arch.Overrides{Sets: []string{"ideal.queue.discipline=pie", "ideal.pie.alpha=0.25", "ideal.pie.t_update_us=50", "ideal.pie.delay_ref_us=100", "ideal.pie.beta=3"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := tg.(*Target).pie.Params; p.Alpha != 0.25 || p.Beta != 3 || p.TUpdatePs != 50e6 || p.DelayRefPs != 100e6 {
		t.Fatalf("overrides: %+v", p)
	}
	// The default discipline is the NDP trimming switch, untouched.
	tg, err = TheChip.Load(arch.Overrides{})
	if err != nil || tg.(*Target).pie != nil {
		t.Fatalf("default: %v", err)
	}
}

// TestPIEPaperRiseFall is the paper's §VII.A rise/fall on the reference
// PIE alone (100 Gb/s of 1500-byte UDP into the 10 Gb/s port, Table II
// parameters, PIE not dropping; 5 Gb/s once drop_prob reaches 1, stop when
// it is 0 again), both flavours. About 25 M frames per flavour: run with
// ARCHSIM_PIE_FULL=1.
func TestPIEPaperRiseFall(t *testing.T) {
	if os.Getenv("ARCHSIM_PIE_FULL") == "" {
		t.Skip("set ARCHSIM_PIE_FULL=1 (about 25 M frames per flavour)")
	}
	for _, fl := range pie.Flavours() {
		tg, err := TheChip.Load(arch.Overrides{Sets: []string{"ideal.queue.discipline=pie", "ideal.pie.flavour=" + fl, "ideal.pie.drop=false"}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r := newPIERig(t, *tg.(*Target).pie, []hosts.UDPConfig{{NICGbps: 100, RateGbps: 100, Batch: 16}}, 0)
		var rise, fall int64 = -1, -1
		r.sw.OnPIEUpdate(func(_ int, now int64, prob float64, q int64) {
			if rise < 0 && prob >= 1 {
				rise = now
				_ = r.srcs[0].SetRateGbps(now, 5)
			}
			if rise >= 0 && fall < 0 && prob == 0 {
				fall = now
				_ = r.srcs[0].SetRateGbps(now, 0)
			}
		})
		r.run(t)
		if rise < 0 || fall < 0 {
			t.Fatalf("%s: rise %d fall %d", fl, rise, fall)
		}
		t.Logf("%s: rise %.3f s, fall %.3f s, %d updates, final drop_prob %g, %d frames sent, wall %.1f s",
			fl, float64(rise)/1e12, float64(fall-rise)/1e12, r.sw.PIEUpdates(), r.sw.PIE(0).Prob(), r.srcs[0].Sent, time.Since(start).Seconds())
	}
}
