package tcp

// CUBIC congestion control with the arithmetic of Linux's
// net/ipv4/tcp_cubic.c (module version 2.3): cwnd follows
// W(t) = C(t-K)^3 + W_max in the units Linux uses (time in 1/1024 s,
// computed from jiffies; C = bic_scale*10/1024), a Reno-emulation
// ("TCP friendliness") estimate caps the per-ACK increment from below,
// HyStart ends slow start on an ACK train or a delay increase, and a loss
// sets W_max with fast convergence and returns ssthresh = β·cwnd.
//
// One deviation: Linux computes K with a table-driven cube root plus one
// Newton step (its comment: average error 0.195 %); this uses the exact
// integer cube root, so K can differ from Linux's by that much.

// HyStart detection methods (tcp_cubic.c HYSTART_ACK_TRAIN, HYSTART_DELAY).
const (
	HyStartAckTrain = 1
	HyStartDelay    = 2
)

// HyStart delay-detection constants (tcp_cubic.c #defines): the samples a
// round needs, and the clamp of the delay threshold (delay_min/8).
const (
	hystartMinSamples = 8
	hystartDelayMinUs = 4000
	hystartDelayMaxUs = 16000
)

// betaScale is BICTCP_BETA_SCALE, the denominator of beta; bictcpHZ is
// BICTCP_HZ: CUBIC's time unit is 2^-10 s.
const (
	betaScale = 1024
	bictcpHZ  = 10
)

// CubicParams are tcp_cubic.c's module parameters and the kernel
// settings CUBIC reads.
type CubicParams struct {
	Beta              int  // multiplicative decrease, /1024 (tcp_cubic.c beta = 717)
	BicScale          int  // C = BicScale*10/1024 (tcp_cubic.c bic_scale = 41: C ≈ 0.4)
	FastConvergence   bool // tcp_cubic.c fast_convergence = 1
	TCPFriendliness   bool // tcp_cubic.c tcp_friendliness = 1
	HyStart           bool // tcp_cubic.c hystart = 1
	HyStartDetect     int  // HyStartAckTrain|HyStartDelay (tcp_cubic.c hystart_detect = 3)
	HyStartLowWindow  int  // cwnd where HyStart starts looking (tcp_cubic.c hystart_low_window = 16)
	HyStartAckDeltaUs int  // ACK spacing that still counts as a train (tcp_cubic.c hystart_ack_delta_us = 2000)
	HZ                int  // kernel jiffies per second (CONFIG_HZ; assumed 1000)
	GSOMaxBytes       int  // sk_gso_max_size for HyStart's ACK-delay cushion (GSO_LEGACY_MAX_SIZE = 65536)
}

// DefaultCubicParams are Linux's defaults.
func DefaultCubicParams() CubicParams {
	return CubicParams{Beta: 717, BicScale: 41, FastConvergence: true, TCPFriendliness: true,
		HyStart: true, HyStartDetect: HyStartAckTrain | HyStartDelay, HyStartLowWindow: 16,
		HyStartAckDeltaUs: 2000, HZ: 1000, GSOMaxBytes: 65536}
}

// Window is the part of the sender's state congestion control reads and
// changes (Linux tcp_sock: snd_cwnd, snd_ssthresh, snd_cwnd_cnt,
// snd_cwnd_clamp), in segments.
type Window struct {
	Cwnd     int
	Ssthresh int
	CwndCnt  int
	Clamp    int
}

// InfiniteSsthresh is TCP_INFINITE_SSTHRESH (include/net/tcp.h).
const InfiniteSsthresh = 0x7fffffff

// InSlowStart is tcp_in_slow_start: cwnd below ssthresh.
func (w *Window) InSlowStart() bool { return w.Cwnd < w.Ssthresh }

func (w *Window) clamp() {
	if w.Clamp > 0 && w.Cwnd > w.Clamp {
		w.Cwnd = w.Clamp
	}
}

// slowStart is tcp_slow_start (net/ipv4/tcp_cong.c): grow by the ACKed
// segments up to ssthresh; return the ACKed segments left over.
func (w *Window) slowStart(acked int) int {
	cwnd := min(w.Cwnd+acked, w.Ssthresh)
	acked -= cwnd - w.Cwnd
	w.Cwnd = cwnd
	w.clamp()
	return acked
}

// congAvoidAI is tcp_cong_avoid_ai (net/ipv4/tcp_cong.c): one segment
// per cnt segments ACKed, credits carried over.
func (w *Window) congAvoidAI(cnt, acked int) {
	if w.CwndCnt >= cnt {
		w.CwndCnt = 0
		w.Cwnd++
	}
	w.CwndCnt += acked
	if w.CwndCnt >= cnt {
		d := w.CwndCnt / cnt
		w.CwndCnt -= d * cnt
		w.Cwnd += d
	}
	w.clamp()
}

// AckSample is what an ACK tells congestion control (Linux ack_sample
// plus the socket fields HyStart reads).
type AckSample struct {
	NowPs      int64
	RTTUs      int64 // newest RTT sample in microseconds, -1 if none
	SndUna     int64 // bytes (any monotone unit shared with SndNxt)
	SndNxt     int64
	PacingRate int64 // sk_pacing_rate in bytes/s (0: none)
}

// Cubic is one connection's CUBIC state (tcp_cubic.c struct bictcp).
type Cubic struct {
	p            CubicParams
	betaScaleTCP int64  // beta_scale: 8*(1024+beta)/3/(1024-beta)
	cubeRTTScale uint64 // cube_rtt_scale: bic_scale*10
	cubeFactor   uint64 // cube_factor: 2^40 / (bic_scale*10)

	cnt         int
	lastMaxCwnd int
	lastCwnd    int
	lastTime    int64 // jiffies
	originPoint int
	k           uint64 // bic_K, in 2^-10 s
	delayMinUs  int64
	epochStart  int64 // jiffies
	inEpoch     bool  // Linux's epoch_start != 0
	ackCnt      int64
	tcpCwnd     int

	sampleCnt  int
	found      bool
	roundStart int64 // us
	endSeq     int64
	lastAck    int64 // us
	currRTT    int64 // us
}

// NewCubic returns CUBIC state with parameters p (cubictcp_register's
// precomputed scales).
func NewCubic(p CubicParams) *Cubic {
	c := &Cubic{p: p}
	c.betaScaleTCP = int64(8*(betaScale+p.Beta)/3) / int64(betaScale-p.Beta)
	c.cubeRTTScale = uint64(p.BicScale * 10)
	c.cubeFactor = (uint64(1) << (10 + 3*bictcpHZ)) / uint64(p.BicScale*10)
	return c
}

func (c *Cubic) jiffies(ps int64) int64 { return ps * int64(c.p.HZ) / 1e12 }

func (c *Cubic) usecsToJiffies(us int64) int64 {
	return (us*int64(c.p.HZ) + 999999) / 1000000
}

// reset is bictcp_reset: forget everything, W_max and delay_min included.
func (c *Cubic) reset() {
	*c = Cubic{p: c.p, betaScaleTCP: c.betaScaleTCP, cubeRTTScale: c.cubeRTTScale, cubeFactor: c.cubeFactor}
}

func (c *Cubic) hystartReset(nowPs, sndNxt int64) {
	c.roundStart = nowPs / 1e6
	c.lastAck = c.roundStart
	c.endSeq = sndNxt
	c.currRTT = -1 // ~0U: larger than any sample
	c.sampleCnt = 0
}

// Init is cubictcp_init (connection start).
func (c *Cubic) Init(nowPs, sndNxt int64) {
	c.reset()
	if c.p.HyStart {
		c.hystartReset(nowPs, sndNxt)
	}
}

// OnLoss is cubictcp_state(TCP_CA_Loss): an RTO resets CUBIC and HyStart.
func (c *Cubic) OnLoss(nowPs, sndNxt int64) {
	c.reset()
	c.hystartReset(nowPs, sndNxt)
}

// Ssthresh is cubictcp_recalc_ssthresh: end the epoch, remember W_max
// (reduced further by fast convergence when cwnd did not reach the last
// W_max) and return β·cwnd (at least 2).
func (c *Cubic) Ssthresh(w *Window) int {
	c.inEpoch = false
	if w.Cwnd < c.lastMaxCwnd && c.p.FastConvergence {
		c.lastMaxCwnd = w.Cwnd * (betaScale + c.p.Beta) / (2 * betaScale)
	} else {
		c.lastMaxCwnd = w.Cwnd
	}
	return max(w.Cwnd*c.p.Beta/betaScale, 2)
}

// WMax is last_max_cwnd; K is bic_K in seconds.
func (c *Cubic) WMax() int { return c.lastMaxCwnd }

// K is the time from the epoch start to W_max, in seconds.
func (c *Cubic) K() float64 { return float64(c.k) / (1 << bictcpHZ) }

// DelayMinUs is the smallest RTT CUBIC has seen (delay_min).
func (c *Cubic) DelayMinUs() int64 { return c.delayMinUs }

// HyStartFound reports whether HyStart ended slow start.
func (c *Cubic) HyStartFound() bool { return c.found }

// CongAvoid is cubictcp_cong_avoid: slow start below ssthresh, then one
// segment per cnt ACKed segments with cnt from the cubic curve.
func (c *Cubic) CongAvoid(w *Window, nowPs int64, acked int, cwndLimited bool) {
	if !cwndLimited {
		return
	}
	if w.InSlowStart() {
		acked = w.slowStart(acked)
		if acked == 0 {
			return
		}
	}
	c.update(w.Cwnd, acked, c.jiffies(nowPs))
	w.congAvoidAI(c.cnt, acked)
}

// update is bictcp_update: the per-ACK increment cnt from the cubic
// target one delay_min ahead, bounded by the Reno emulation.
func (c *Cubic) update(cwnd, acked int, now int64) {
	c.ackCnt += int64(acked)
	if c.lastCwnd == cwnd && now-c.lastTime <= int64(c.p.HZ/32) {
		return
	}
	// cnt is recomputed at most once per jiffy (a reduction ends the
	// epoch, which forces it).
	if !(c.inEpoch && now == c.lastTime) {
		c.lastCwnd = cwnd
		c.lastTime = now
		if !c.inEpoch {
			c.inEpoch = true
			c.epochStart = now
			c.ackCnt = int64(acked)
			c.tcpCwnd = cwnd
			if c.lastMaxCwnd <= cwnd {
				c.k = 0
				c.originPoint = cwnd
			} else {
				c.k = cbrt64(c.cubeFactor * uint64(c.lastMaxCwnd-cwnd))
				c.originPoint = c.lastMaxCwnd
			}
		}
		t := uint64(now-c.epochStart+c.usecsToJiffies(c.delayMinUs)) << bictcpHZ / uint64(c.p.HZ)
		var offs uint64
		if t < c.k {
			offs = c.k - t
		} else {
			offs = t - c.k
		}
		delta := int(c.cubeRTTScale * offs * offs * offs >> (10 + 3*bictcpHZ))
		target := c.originPoint + delta
		if t < c.k {
			target = c.originPoint - delta
		}
		if target > cwnd {
			c.cnt = cwnd / (target - cwnd)
		} else {
			c.cnt = 100 * cwnd // very small increment
		}
		// Before the first loss, grow at least 5 % per RTT.
		if c.lastMaxCwnd == 0 && c.cnt > 20 {
			c.cnt = 20
		}
	}
	if c.p.TCPFriendliness {
		d := int64(cwnd) * c.betaScaleTCP >> 3
		for d > 0 && c.ackCnt > d {
			c.ackCnt -= d
			c.tcpCwnd++
		}
		if c.tcpCwnd > cwnd {
			maxCnt := cwnd / (c.tcpCwnd - cwnd)
			if c.cnt > maxCnt {
				c.cnt = maxCnt
			}
		}
	}
	// At most one segment per two ACKed: 1.5x per RTT.
	c.cnt = max(c.cnt, 2)
}

// RenoCwnd is the Reno-emulation estimate (tcp_cwnd in bictcp).
func (c *Cubic) RenoCwnd() int { return c.tcpCwnd }

// PktsAcked is cubictcp_acked: track delay_min (not in the first second
// of an epoch) and run HyStart in slow start.
func (c *Cubic) PktsAcked(w *Window, s AckSample) {
	if s.RTTUs < 0 {
		return
	}
	if c.inEpoch && c.jiffies(s.NowPs)-c.epochStart < int64(c.p.HZ) {
		return
	}
	delay := max(s.RTTUs, 1)
	if c.delayMinUs == 0 || c.delayMinUs > delay {
		c.delayMinUs = delay
	}
	if !c.found && w.InSlowStart() && c.p.HyStart && w.Cwnd >= c.p.HyStartLowWindow {
		c.hystartUpdate(w, s, delay)
	}
}

// hystartAckDelay is hystart_ack_delay: a cushion for TSO/GRO
// aggregation, 4 GSO packets at the pacing rate, at most 1 ms.
func (c *Cubic) hystartAckDelay(rate int64) int64 {
	if rate <= 0 {
		return 0
	}
	return min(1000, int64(c.p.GSOMaxBytes)*4*1000000/rate)
}

// hystartUpdate is hystart_update: a new round when snd_una passes the
// round's end; ACK-train detection (ACKs closely spaced for longer than
// (delay_min + cushion)/2 since the round began: the host does not pace)
// and delay detection (the round's minimum RTT over 8 samples exceeds
// delay_min by clamp(delay_min/8, 4 ms, 16 ms)) both set ssthresh = cwnd.
func (c *Cubic) hystartUpdate(w *Window, s AckSample, delay int64) {
	if s.SndUna > c.endSeq {
		c.hystartReset(s.NowPs, s.SndNxt)
	}
	if c.p.HyStartDetect&HyStartAckTrain != 0 {
		now := s.NowPs / 1e6
		if now-c.lastAck <= int64(c.p.HyStartAckDeltaUs) {
			c.lastAck = now
			threshold := (c.delayMinUs + c.hystartAckDelay(s.PacingRate)) >> 1
			if now-c.roundStart > threshold {
				c.found = true
				w.Ssthresh = w.Cwnd
			}
		}
	}
	if c.p.HyStartDetect&HyStartDelay != 0 {
		if c.currRTT < 0 || c.currRTT > delay {
			c.currRTT = delay
		}
		if c.sampleCnt < hystartMinSamples {
			c.sampleCnt++
		} else if c.currRTT > c.delayMinUs+min(max(c.delayMinUs>>3, hystartDelayMinUs), hystartDelayMaxUs) {
			c.found = true
			w.Ssthresh = w.Cwnd
		}
	}
}

// cbrt64 is the integer cube root: the largest x with x³ <= a.
func cbrt64(a uint64) uint64 {
	if a == 0 {
		return 0
	}
	// Bit-by-bit: at most 22 bits for a < 2^64.
	var x uint64
	for bit := 21; bit >= 0; bit-- {
		y := x | 1<<uint(bit)
		if y <= 2642245 && y*y*y <= a {
			x = y
		}
	}
	return x
}
