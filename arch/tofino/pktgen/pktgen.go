// Package pktgen models a Tofino pipe's packet generator: up to
// tofino.pktgen.apps applications, each started by a trigger (a periodic
// timer, a one-shot timer, a port going down), each generating batches of
// packets from a template held in the generator's buffer, with a gap
// between batches and between the packets of a batch. Packets enter the
// pipe's ingress on the application's packet-generator port after being
// serialized on that port at its own rate (shared with recirculation when
// the port is also the recirculation port), so a rate the port cannot
// carry is refused when the application is configured and packets that
// find the wire busy wait for it.
//
// Sources: bf-drivers pipe_mgr_pktgen.c / pipe_mgr_tof_pktgen.c (limits,
// header, port-down batches), TNA pktgen headers (the 6-byte header),
// tofino-facts §1; limits are in configs/tofino.yaml under tofino.pktgen.
// Not modelled: the recirculation-pattern trigger, Tofino 2's deparser
// (MAU) trigger, gap jitter, source-port increment, the port-down mask
// and its clear.
//
// Events: one per batch (the generator's own wake-up) plus the packets'
// arrivals at ingress; a batch's packets are computed in closed form.
package pktgen

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch/tofino/spec"
	"archsim/components/packet"
	"archsim/programs"
)

// Wire serializes frames on a device port; the generator shares it with
// whatever else injects on that port (recirculation).
type Wire interface {
	// Transmit sends a frame of length bytes at gbps, starting when it is
	// ready and the port is free, and returns when its last bit is sent.
	Transmit(port int, readyPs int64, length int, gbps float64) (endPs int64)
}

// Event kinds the generator schedules on itself.
const (
	kindTrigger = packet.KindLocal     // a trigger fires (Port: application index)
	kindBatch   = packet.KindLocal + 1 // the next batch of a running trigger starts
)

// Generator is one pipe's packet generator.
type Generator struct {
	*sim.ComponentBase
	engine  sim.Engine
	cfg     *spec.Config
	pipe    int
	ingress sim.Handler
	wire    Wire
	apps    []*App
	byName  map[string]*App
	// deadlinePs: no trigger fires after it (the run's end).
	deadlinePs int64
	nextID     uint64
	// pool, when set, gives the generated packets (the switch's drops go
	// back to it): a timer application fires millions of times.
	pool packet.Pool
}

// App is an application as the generator runs it.
type App struct {
	*programs.PktgenApp
	ID     int // application id (0..apps-1)
	Offset int // template offset in the buffer

	enabled bool
	untilPs int64 // timer triggers after it do not fire (< 0: none)
	serPs   int64 // one frame on the wire
	seq     int   // template sequence (field value lists cycle)
	pending []trigger
	running bool
	batch   int // next batch of the running trigger
	Stats   AppStats
}

// trigger is one firing: when, and the batch-id field it writes (the port
// number for a port-down trigger).
type trigger struct {
	atPs  int64
	field int
}

// AppStats is what an application did.
type AppStats struct {
	Triggers int
	Batches  int
	Packets  int
	// WirePs sums, and MaxWirePs is the longest, wait of a generated
	// packet for its port's wire (recirculation or the app's own earlier
	// packets): how far the port limited the requested rate.
	WirePs    int64
	MaxWirePs int64
}

// New builds a pipe's generator injecting into ingress over wire.
func New(name string, engine sim.Engine, cfg *spec.Config, pipe int, ingress sim.Handler, wire Wire) *Generator {
	return &Generator{ComponentBase: sim.NewComponentBase(name), engine: engine, cfg: cfg, pipe: pipe,
		ingress: ingress, wire: wire, byName: map[string]*App{}, deadlinePs: 1<<63 - 1}
}

// NotifyRecv is unused: wake-ups are scheduled events.
func (g *Generator) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (g *Generator) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

// Apps are the configured applications, in configuration order.
func (g *Generator) Apps() []*App { return g.apps }

// App returns a configured application by name.
func (g *Generator) App(name string) *App { return g.byName[name] }

// SetPool makes the generator take its packets from pool (nil: a new
// allocation per packet).
func (g *Generator) SetPool(pool packet.Pool) { g.pool = pool }

// SetDeadline ends the run: no trigger fires after ps.
func (g *Generator) SetDeadline(ps int64) { g.deadlinePs = ps }

// Configure checks applications of this pipe against the generator's
// limits and installs them (ids and buffer offsets the program left open
// are assigned in declaration order). Errors name the program's file and
// line and the limit broken.
func (g *Generator) Configure(apps []*programs.PktgenApp) error {
	c := g.cfg.Pktgen
	used := map[int]string{}
	for _, a := range g.apps {
		used[a.ID] = a.Name
	}
	var all []*App
	all = append(all, g.apps...)
	for _, pa := range apps {
		where := fmt.Sprintf("%s: pktgen %s", pa.Pos, pa.Name)
		if !g.cfg.IsPktgenPort(pa.Port) || g.cfg.PipeOf(pa.Port) != g.pipe {
			return fmt.Errorf("%s: port %d is not a packet-generator port of pipe %d (device ports %d..%d)", where, pa.Port, g.pipe,
				g.cfg.DevPort(g.pipe, c.FirstLocalPort), g.cfg.DevPort(g.pipe, c.LastLocalPort))
		}
		if _, dup := g.byName[pa.Name]; dup {
			return fmt.Errorf("%s: application configured twice", where)
		}
		a := &App{PktgenApp: pa, ID: pa.App, Offset: pa.Offset, untilPs: -1}
		if a.ID < 0 {
			for a.ID = 0; used[a.ID] != ""; a.ID++ {
			}
		}
		if a.ID >= c.Apps {
			return fmt.Errorf("%s: application id %d: the pipe's generator has %d applications (tofino.pktgen.apps)", where, a.ID, c.Apps)
		}
		if o, ok := used[a.ID]; ok {
			return fmt.Errorf("%s: application id %d is already %s's", where, a.ID, o)
		}
		if pa.Batches > c.MaxBatches || pa.Packets > c.MaxPacketsPerBatch {
			return fmt.Errorf("%s: %d batches of %d packets: at most %d batches of %d (tofino.pktgen.max_batches, max_packets_per_batch)",
				where, pa.Batches, pa.Packets, c.MaxBatches, c.MaxPacketsPerBatch)
		}
		if pa.Trigger == programs.TriggerPortDown && c.PortDownSingleBatch && pa.Batches != 1 {
			return fmt.Errorf("%s: a port_down application has one batch (its batch id carries the port number), got batches %d", where, pa.Batches)
		}
		n := pa.BufferBytes()
		if pa.Header && n < c.MinBufferBytes {
			return fmt.Errorf("%s: length %d leaves %d template bytes after the %d-byte header: at least %d (tofino.pktgen.min_buffer_bytes)",
				where, pa.Length, n, programs.PktgenHeaderBytes, c.MinBufferBytes)
		}
		if a.Offset < 0 {
			end := 0
			for _, o := range all {
				end = max(end, o.Offset+o.BufferBytes())
			}
			a.Offset = (end + c.OffsetAlign - 1) / c.OffsetAlign * c.OffsetAlign
		}
		if a.Offset%c.OffsetAlign != 0 {
			return fmt.Errorf("%s: buffer offset %d is not %d-byte aligned (tofino.pktgen.offset_align)", where, a.Offset, c.OffsetAlign)
		}
		if a.Offset+n > c.BufferBytes {
			return fmt.Errorf("%s: template at offset %d, %d bytes, ends past the %d-byte buffer (tofino.pktgen.buffer_bytes)", where, a.Offset, n, c.BufferBytes)
		}
		for _, o := range all {
			if a.Offset < o.Offset+o.BufferBytes() && o.Offset < a.Offset+n {
				return fmt.Errorf("%s: template at offset %d, %d bytes, overlaps %s's (offset %d, %d bytes)", where, a.Offset, n, o.Name, o.Offset, o.BufferBytes())
			}
		}
		a.serPs = packet.SerializationPs(pa.Length, c.PortGbps)
		if pa.Trigger == programs.TriggerPeriodic {
			perSet := int64(pa.Batches*pa.Packets) * a.serPs
			span := int64(pa.Batches-1)*pa.IBGNs*1000 + int64(pa.Packets-1)*pa.IPGNs*1000 + a.serPs
			if perSet > pa.TimerNs*1000 {
				return fmt.Errorf("%s: %d packets of %d B every %d ns need %.1f Gb/s; the port carries %g Gb/s (tofino.pktgen.port_gbps)",
					where, pa.Batches*pa.Packets, pa.Length, pa.TimerNs, float64(perSet)/float64(pa.TimerNs*1000)*c.PortGbps, c.PortGbps)
			}
			if span > pa.TimerNs*1000 {
				return fmt.Errorf("%s: a trigger's batches last %d ns, longer than the %d ns timer", where, (span+999)/1000, pa.TimerNs)
			}
		}
		used[a.ID] = a.Name
		all = append(all, a)
		g.byName[a.Name] = a
	}
	g.apps = all
	return nil
}

// Enable enables an application at atPs: a timer application's first
// trigger fires one timer period later (the timer counts down from the
// enable; assumed), a periodic one then every period; no timer trigger
// fires after untilPs (< 0: until the deadline). A port_down application
// waits for PortDown.
func (g *Generator) Enable(name string, atPs, untilPs int64) error {
	a := g.byName[name]
	if a == nil {
		return fmt.Errorf("pktgen: pipe %d has no application %q", g.pipe, name)
	}
	a.enabled, a.untilPs = true, untilPs
	if a.Timer() {
		g.scheduleTrigger(a, max(atPs, g.nowPs())+a.TimerNs*1000)
	}
	return nil
}

// Disable stops an application: no trigger fires from atPs on (batches of
// a trigger already running finish).
func (g *Generator) Disable(name string, atPs int64) error {
	a := g.byName[name]
	if a == nil {
		return fmt.Errorf("pktgen: pipe %d has no application %q", g.pipe, name)
	}
	a.untilPs = atPs - 1
	return nil
}

// PortDown fires every enabled port_down application at atPs with the
// port's number in the batch-id field.
func (g *Generator) PortDown(port int, atPs int64) {
	atPs = max(atPs, g.nowPs())
	for _, a := range g.apps {
		if a.enabled && a.Trigger == programs.TriggerPortDown {
			g.fire(a, trigger{atPs, port & 0xFFFF}, -1)
		}
	}
}

func (g *Generator) nowPs() int64 { return packet.SecToPs(g.engine.CurrentTime()) }

func (g *Generator) index(a *App) int {
	for i, o := range g.apps {
		if o == a {
			return i
		}
	}
	return -1
}

func (g *Generator) scheduleTrigger(a *App, ps int64) {
	if ps > g.deadlinePs || (a.untilPs >= 0 && ps > a.untilPs) {
		return
	}
	packet.Schedule(g.engine, g, ps, kindTrigger, nil, g.index(a))
}

// Handle runs a trigger or a batch.
func (g *Generator) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	a := g.apps[ev.Port]
	now := ev.AtPs()
	switch ev.Kind {
	case kindTrigger:
		if !a.enabled || (a.untilPs >= 0 && now > a.untilPs) || now > g.deadlinePs {
			return nil
		}
		if a.Trigger == programs.TriggerPeriodic {
			g.scheduleTrigger(a, now+a.TimerNs*1000)
		}
		g.fire(a, trigger{atPs: now}, now)
	case kindBatch:
		g.runBatch(a, now)
	}
	return nil
}

// fire starts a trigger's batches, or queues it behind the running one.
// nowPs is the current time when called from the generator's own event
// (the first batch then runs at once, saving an event), else -1.
func (g *Generator) fire(a *App, t trigger, nowPs int64) {
	a.Stats.Triggers++
	a.pending = append(a.pending, t)
	if !a.running {
		g.startNext(a, nowPs)
	}
}

func (g *Generator) startNext(a *App, nowPs int64) {
	if len(a.pending) == 0 {
		a.running = false
		return
	}
	t := a.pending[0]
	a.running, a.batch = true, 0
	if t.atPs == nowPs {
		g.runBatch(a, nowPs)
		return
	}
	packet.Schedule(g.engine, g, max(t.atPs, nowPs), kindBatch, nil, g.index(a))
}

// runBatch generates one batch: packet p is ready at now + p*IPG and
// enters ingress when the port has serialized it.
func (g *Generator) runBatch(a *App, now int64) {
	t := a.pending[0]
	b := a.batch
	field := b
	if a.Trigger == programs.TriggerPortDown {
		field = t.field
	}
	for p := 0; p < a.Packets; p++ {
		ready := now + int64(p)*a.IPGNs*1000
		pkt := g.build(a, field, p, ready)
		end := g.wire.Transmit(a.Port, ready, pkt.Len, g.cfg.Pktgen.PortGbps)
		wait := end - a.serPs - ready
		a.Stats.WirePs += wait
		a.Stats.MaxWirePs = max(a.Stats.MaxWirePs, wait)
		a.Stats.Packets++
		packet.Schedule(g.engine, g.ingress, end, packet.KindArrive, pkt, a.Port)
	}
	a.Stats.Batches++
	a.batch++
	if a.batch < a.Batches {
		packet.Schedule(g.engine, g, now+a.IBGNs*1000, kindBatch, nil, g.index(a))
		return
	}
	// Shift in place: the queue of triggers keeps its array (a timer
	// application fires millions of times).
	n := copy(a.pending, a.pending[1:])
	a.pending[n] = trigger{}
	a.pending = a.pending[:n]
	g.startNext(a, now)
}

// build makes one generated packet: the template's header bytes (field
// lists cycle packet by packet) with the generator's header written over
// the first 6 bytes.
func (g *Generator) build(a *App, batch, pkt int, bornPs int64) *packet.Packet {
	var p *packet.Packet
	var buf []byte
	if g.pool != nil {
		p = g.pool.Get()
		buf = p.Head[:0]
	} else {
		// The packet and its head in one allocation, with room for the
		// headers a pipeline adds.
		b := &struct {
			pkt  packet.Packet
			head [genHeadCap]byte
		}{}
		p, buf = &b.pkt, b.head[:0]
	}
	head := a.Template.AppendPacket(buf, a.seq)
	a.seq++
	if a.Header {
		for len(head) < programs.PktgenHeaderBytes {
			head = append(head, 0)
		}
		WriteHeader(head, g.pipe, a.ID, batch, pkt)
	}
	g.nextID++
	*p = packet.Packet{ID: uint64(1)<<62 | uint64(g.pipe)<<54 | g.nextID, Flow: 1<<24 + a.Port*16 + a.ID,
		Head: head, Len: max(a.Length, len(head)), InPort: a.Port, BornPs: bornPs, Passes: 1}
	return p
}

// genHeadCap is the head bytes a generated packet carries next to it
// (a template longer than that gets its own array).
const genHeadCap = 96

// WriteHeader writes the 6-byte generator header at the start of b: 3
// pad bits, the 2-bit pipe, the 3-bit application id, 8 pad bits, the
// 16-bit batch id (a port_down trigger's port number) and the 16-bit
// packet id (TNA pktgen_timer_header_t / pktgen_port_down_header_t).
// Application ids 8..15 (Tofino 2) put their fourth bit in the pad bit
// above the pipe (assumed: the Tofino 2 layout was not checked).
func WriteHeader(b []byte, pipe, app, batch, pkt int) {
	b[0] = byte((pipe&3)<<3 | app&7 | (app&8)<<2)
	b[1] = 0
	b[2], b[3] = byte(batch>>8), byte(batch)
	b[4], b[5] = byte(pkt>>8), byte(pkt)
}

// Generated is the number of packets the generator made.
func (g *Generator) Generated() int {
	n := 0
	for _, a := range g.apps {
		n += a.Stats.Packets
	}
	return n
}
