// Package flowgen generates closed-loop fixed-size flows between two end
// hosts and records their flow completion times (FCT), as the Protego
// paper's §4.3 experiments do (143 B and 24 387 B flows, FCT
// percentiles).
//
// A Client runs Parallel independent loops from a client host to a
// server host. Each loop starts a flow of Bytes, waits for it to
// complete, waits GapPs, and starts the next, until Flows flows have
// started in total (0: no limit) or the deadline. Transports:
//
//   - TCP (components/tcp, CUBIC or DCTCP as the hosts' Config says):
//     every flow is a new connection (a new tcp.Flow) whose handshake is
//     not simulated: its RTT sample (SynRTTPs, the scenario's base RTT)
//     seeds SRTT and the RTO as Linux's SYN/SYN-ACK measurement does. The
//     FCT runs from the application's write (tcp.Flow.StartPs) to the
//     ACK of the last byte at the sender (Stats.DonePs). A loop rotates
//     over IDsPerLoop flow ids, and a reused id gets a new ISN (Epoch),
//     so stale frames of a finished flow cannot be taken for new data.
//   - RDMA (components/rdma): one RC connection (QP) per loop, reused by
//     every flow, as RDMA applications keep their QPs; a flow is one
//     RDMA WRITE, its FCT from the post to the completion (the ACK of its
//     last PSN at the requester).
//
// FCTs go into a stats.Samples: exact quantiles while at most
// stats.MaxExact (65 536) distinct values were seen, within
// stats.RelativeError (≈0.05 %) after (a log-bucketed sketch). Memory
// does not grow with the number of flows: a finished flow keeps only its
// FCT sample (and the Counters). Everything is deterministic: no random
// numbers are drawn.
package flowgen

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/components/rdma"
	"archsim/components/stats"
	"archsim/components/tcp"
)

// Config is what a Client runs.
type Config struct {
	Bytes      int64 // flow size (application bytes)
	GapPs      int64 // from a flow's completion to the next flow's start on the same loop
	Flows      int   // flows to start in total (0: until the deadline)
	Parallel   int   // concurrent loops (>= 1)
	StartPs    int64 // when the loops start (loop i at StartPs + i·StaggerPs)
	StaggerPs  int64 // start offset between loops
	DeadlinePs int64 // no flow starts after it (0: none)
	FirstID    int   // TCP: flow ids FirstID .. FirstID+Parallel·IDsPerLoop-1; RDMA: QP ids FirstID .. FirstID+Parallel-1 (clients sharing a host need disjoint ranges)
	IDsPerLoop int   // TCP: ids a loop rotates over (0: 8)
	SynRTTPs   int64 // TCP: the handshake's RTT sample seeding each flow's RTO (0: none, RTO starts at RTOInit)
}

// Counters sum what the finished flows' transports did.
type Counters struct {
	Retransmits int // TCP segments / RDMA packets sent again
	Timeouts    int // TCP RTO expiries / RDMA transport-timer expiries
	LossProbes  int // TCP tail loss probes
	NAKs        int // RDMA sequence-error NAKs received
}

// Summary is the FCT distribution in microseconds (nearest-rank
// quantiles; Exact false: within stats.RelativeError).
type Summary struct {
	N     int     `json:"n"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	P9999 float64 `json:"p9999"`
	Max   float64 `json:"max"`
	Exact bool    `json:"exact"`
}

// MarshalJSON writes a summary of no flows with null quantiles, so that
// no reader takes its zeros for measured ones.
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.N == 0 {
		return []byte(`{"n":0,"p50":null,"p99":null,"p999":null,"p9999":null,"max":null,"exact":true}`), nil
	}
	type plain Summary
	return json.Marshal(plain(s))
}

// Client is a closed-loop fixed-size flow generator.
type Client struct {
	*sim.ComponentBase
	cfg     Config
	engine  sim.Engine
	tcpSrc  *tcp.Host
	tcpDst  *tcp.Host
	rdmaSrc *rdma.Host
	src     int
	dst     int
	loops   []loop
	fct     stats.Samples
	started int
	done    int
	count   Counters
	running bool
	err     error
}

// loop is one closed loop's state.
type loop struct {
	next   int      // TCP: index of the next id to use
	epochs []uint32 // TCP: per id, connections so far
	conn   *rdma.Conn
}

// Event kind of a loop's wake-up (RDMA: post the next WRITE); Port is
// the loop.
const evNext = packet.KindLocal

func (c Config) check() error {
	switch {
	case c.Bytes <= 0:
		return fmt.Errorf("flowgen: bytes must be > 0, got %d", c.Bytes)
	case c.GapPs < 0 || c.StartPs < 0 || c.StaggerPs < 0 || c.DeadlinePs < 0 || c.SynRTTPs < 0:
		return fmt.Errorf("flowgen: times must be >= 0")
	case c.Flows < 0:
		return fmt.Errorf("flowgen: flows must be >= 0, got %d", c.Flows)
	case c.Parallel < 1:
		return fmt.Errorf("flowgen: parallel must be >= 1, got %d", c.Parallel)
	case c.IDsPerLoop < 0:
		return fmt.Errorf("flowgen: ids_per_loop must be >= 0, got %d", c.IDsPerLoop)
	case c.Flows == 0 && c.DeadlinePs == 0:
		return fmt.Errorf("flowgen: a client needs a flow count or a deadline")
	}
	return nil
}

// NewTCP returns a client running TCP flows from host src (index srcIdx)
// to host dst (dstIdx); both hosts must be built with the same Config.
func NewTCP(name string, cfg Config, engine sim.Engine, src *tcp.Host, srcIdx int, dst *tcp.Host, dstIdx int) (*Client, error) {
	if cfg.IDsPerLoop == 0 {
		cfg.IDsPerLoop = 8
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Bytes > math.MaxInt32 {
		return nil, fmt.Errorf("flowgen: bytes must be < 2^31, got %d", cfg.Bytes)
	}
	if engine == nil || src == nil || dst == nil {
		return nil, fmt.Errorf("flowgen: client %s needs an engine and two hosts", name)
	}
	if hi := cfg.FirstID + cfg.Parallel*cfg.IDsPerLoop; cfg.FirstID < 0 || hi > tcp.MaxFlows {
		return nil, fmt.Errorf("flowgen: client %s: flow ids %d..%d outside 0..%d", name, cfg.FirstID, hi-1, tcp.MaxFlows-1)
	}
	c := &Client{ComponentBase: sim.NewComponentBase(name), cfg: cfg, engine: engine, tcpSrc: src, tcpDst: dst,
		src: srcIdx, dst: dstIdx, loops: make([]loop, cfg.Parallel)}
	for i := range c.loops {
		c.loops[i].epochs = make([]uint32, cfg.IDsPerLoop)
	}
	return c, nil
}

// NewRDMA returns a client running RDMA WRITEs from host src (index
// srcIdx) to host dst (dstIdx): it adds one RC connection per loop (ids
// FirstID..FirstID+Parallel-1) to both hosts.
func NewRDMA(name string, cfg Config, engine sim.Engine, src *rdma.Host, srcIdx int, dst *rdma.Host, dstIdx int) (*Client, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if engine == nil || src == nil || dst == nil {
		return nil, fmt.Errorf("flowgen: client %s needs an engine and two hosts", name)
	}
	c := &Client{ComponentBase: sim.NewComponentBase(name), cfg: cfg, engine: engine, rdmaSrc: src,
		src: srcIdx, dst: dstIdx, loops: make([]loop, cfg.Parallel)}
	for i := range c.loops {
		conn := &rdma.Conn{ID: cfg.FirstID + i, Src: srcIdx, Dst: dstIdx, SrcIP: src.IP(), DstIP: dst.IP()}
		if err := src.AddRequester(conn); err != nil {
			return nil, fmt.Errorf("flowgen: client %s: %v", name, err)
		}
		if err := dst.AddResponder(conn); err != nil {
			return nil, fmt.Errorf("flowgen: client %s: %v", name, err)
		}
		c.loops[i].conn = conn
	}
	return c, nil
}

// Start starts the loops (call once, before running the engine).
func (c *Client) Start() error {
	if c.running {
		return fmt.Errorf("flowgen: client %s started twice", c.Name())
	}
	c.running = true
	for i := range c.loops {
		if err := c.startFlow(i, c.cfg.StartPs+int64(i)*c.cfg.StaggerPs); err != nil {
			return err
		}
	}
	return nil
}

// more reports whether another flow may start at ps.
func (c *Client) more(ps int64) bool {
	return (c.cfg.Flows == 0 || c.started < c.cfg.Flows) && (c.cfg.DeadlinePs == 0 || ps <= c.cfg.DeadlinePs)
}

// startFlow starts loop i's next flow at ps (if the limits allow).
func (c *Client) startFlow(i int, ps int64) error {
	if !c.more(ps) {
		return nil
	}
	c.started++
	if c.tcpSrc != nil {
		return c.startTCP(i, ps)
	}
	packet.Schedule(c.engine, c, ps, evNext, nil, i)
	return nil
}

func (c *Client) startTCP(i int, ps int64) error {
	l := &c.loops[i]
	k := l.next
	l.next = (l.next + 1) % c.cfg.IDsPerLoop
	f := &tcp.Flow{ID: c.cfg.FirstID + i*c.cfg.IDsPerLoop + k, Src: c.src, Dst: c.dst, SrcIP: c.tcpSrc.IP(),
		DstIP: c.tcpDst.IP(), Bytes: c.cfg.Bytes, StartPs: ps, SynRTTPs: c.cfg.SynRTTPs, Epoch: l.epochs[k]}
	l.epochs[k]++
	f.OnDone = func(f *tcp.Flow) { c.tcpDone(i, f) }
	if err := c.tcpSrc.AddSender(f); err != nil {
		return err
	}
	return c.tcpDst.AddReceiver(f)
}

func (c *Client) tcpDone(i int, f *tcp.Flow) {
	c.record(f.Stats.DonePs - f.StartPs)
	st := &f.Stats
	c.count.Retransmits += st.Retransmits
	c.count.Timeouts += st.Timeouts
	c.count.LossProbes += st.LossProbes
	c.tcpSrc.RemoveSender(f.ID)
	c.tcpDst.RemoveReceiver(f.ID)
	if err := c.startFlow(i, f.Stats.DonePs+c.cfg.GapPs); err != nil && c.err == nil {
		c.err = err // e.g. another client's flow holds the id: this loop stops
	}
}

// Err is the first error that stopped a loop after Start (a flow id
// another client on the same host uses), nil if none.
func (c *Client) Err() error { return c.err }

// Handle posts loop Port's next RDMA WRITE.
func (c *Client) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	i := ev.Port
	conn := c.loops[i].conn
	w := &rdma.Write{Bytes: c.cfg.Bytes, PostPs: ev.AtPs()}
	w.OnDone = func(w *rdma.Write) {
		c.record(w.DonePs - w.PostPs)
		if err := c.startFlow(i, w.DonePs+c.cfg.GapPs); err != nil && c.err == nil {
			c.err = err
		}
	}
	return c.rdmaSrc.Post(conn.ID, w)
}

// NotifyRecv is unused.
func (c *Client) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (c *Client) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func (c *Client) record(fct int64) {
	c.fct.Add(fct)
	c.done++
}

// Started is the number of flows started.
func (c *Client) Started() int { return c.started }

// Done is the number of flows completed.
func (c *Client) Done() int { return c.done }

// Samples are the FCTs in picoseconds.
func (c *Client) Samples() *stats.Samples { return &c.fct }

// Counters sums the transports' recovery work over the finished flows
// (RDMA: over the client's connections, finished or not).
func (c *Client) Counters() Counters {
	if c.rdmaSrc == nil {
		return c.count
	}
	var n Counters
	for _, l := range c.loops {
		st := l.conn.Stats
		n.Retransmits += st.Retransmits
		n.Timeouts += st.Timeouts
		n.NAKs += st.NAKsRcvd
	}
	return n
}

// FCT summarizes the completed flows' FCTs in microseconds.
func (c *Client) FCT() Summary { return Summarize(&c.fct) }

// Summarize is the Summary of FCT samples in picoseconds.
func Summarize(s *stats.Samples) Summary {
	if s.N() == 0 {
		return Summary{Exact: true}
	}
	return Summary{N: s.N(), P50: s.Quantile(0.5) / 1e6, P99: s.Quantile(0.99) / 1e6, P999: s.Quantile(0.999) / 1e6,
		P9999: s.Quantile(0.9999) / 1e6, Max: float64(s.Max()) / 1e6, Exact: s.Exact()}
}
