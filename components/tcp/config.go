package tcp

import "fmt"

// Config holds a TCP host's parameters. DefaultConfig documents where
// each default comes from.
type Config struct {
	NICGbps      float64 // NIC and host link rate
	PropPs       int64   // one-way propagation delay from the host to its switch port
	StackDelayPs int64   // host stack latency added to every frame the host sends (0: none)

	MSS           int    // payload bytes per segment
	InitCwnd      int    // initial congestion window, segments
	RcvWndBytes   int64  // receive window the receiver advertises
	WScale        int    // window scale shift both ends use (no handshake is modelled)
	DupThresh     int    // SACKed segments above a hole that make it lost
	RTOMinPs      int64  // lower bound of the RTT variance term of the RTO
	RTOMaxPs      int64  // upper bound of the RTO
	RTOInitPs     int64  // RTO before the first RTT sample
	DelAckPs      int64  // delayed-ACK timeout
	QuickAcks     int    // segments ACKed at once at the start of a connection
	MaxSACKBlocks int    // SACK blocks per ACK
	ECN           bool   // send ECT(0), echo CE with ECE, reduce cwnd on ECE
	RACK          bool   // RACK time-based loss detection (else DupThresh SACKs only)
	TLP           bool   // tail loss probes
	PacingSSRatio int    // sk_pacing_rate factor in slow start, percent (HyStart reads the rate)
	PacingCARatio int    // sk_pacing_rate factor in congestion avoidance, percent
	TimestampHZ   int    // TSval clock rate
	CC            string // congestion control: CCCubic (default) or CCDCTCP (needs ECN)
	Cubic         CubicParams
	DCTCP         DCTCPParams
}

// Congestion-control names (Linux net.ipv4.tcp_congestion_control).
const (
	CCCubic = "cubic"
	CCDCTCP = "dctcp"
)

// DefaultConfig returns Linux's defaults (sources beside each value). The
// link values (NICGbps, PropPs, StackDelayPs) are the scenario's.
func DefaultConfig() Config {
	return Config{
		NICGbps: 10,
		PropPs:  1_000_000, // 1 us, assumed; a scenario sets its own
		// 1448 = 1500 (Ethernet MTU) - 20 (IPv4) - 20 (TCP) - 12 (timestamp option).
		MSS:         1448,
		InitCwnd:    10,      // TCP_INIT_CWND, include/net/tcp.h (RFC 6928)
		RcvWndBytes: 6291456, // net.ipv4.tcp_rmem[2] default (Documentation/networking/ip-sysctl.rst)
		WScale:      7,       // what Linux picks for a 6 MB tcp_rmem (tcp_select_initial_window)
		DupThresh:   3,       // TCP_FASTRETRANS_THRESH / sysctl_tcp_reordering, RFC 6675 §2
		RTOMinPs:    200e9,   // TCP_RTO_MIN = HZ/5, include/net/tcp.h
		RTOMaxPs:    120e12,  // TCP_RTO_MAX = 120 s, include/net/tcp.h
		RTOInitPs:   1e12,    // TCP_TIMEOUT_INIT = 1 s, RFC 6298 §2.1
		DelAckPs:    40e9,    // TCP_DELACK_MIN = TCP_ATO_MIN = HZ/25, include/net/tcp.h
		QuickAcks:   16,      // TCP_MAX_QUICKACKS, include/net/tcp.h
		// Three blocks fit with the timestamp option (RFC 2018 §3: 40 option bytes).
		MaxSACKBlocks: 3,
		RACK:          true,    // net.ipv4.tcp_recovery = 1 (RFC 8985)
		TLP:           true,    // net.ipv4.tcp_early_retrans = 3 (RFC 8985 §7)
		PacingSSRatio: 200,     // net.ipv4.tcp_pacing_ss_ratio
		PacingCARatio: 120,     // net.ipv4.tcp_pacing_ca_ratio
		TimestampHZ:   1000,    // TCP_TS_HZ, include/net/tcp.h
		CC:            CCCubic, // net.ipv4.tcp_congestion_control default (CONFIG_DEFAULT_TCP_CONG)
		Cubic:         DefaultCubicParams(),
		DCTCP:         DefaultDCTCPParams(),
	}
}

// Validate checks a config: one error naming the first bad field.
func (c Config) Validate() error {
	switch {
	case c.MSS < 536 || c.MSS > 9000:
		return fmt.Errorf("tcp: mss must be in 536..9000, got %d", c.MSS)
	case !(c.NICGbps > 0):
		return fmt.Errorf("tcp: nic_gbps must be > 0, got %g", c.NICGbps)
	case c.PropPs < 0:
		return fmt.Errorf("tcp: prop_ps must be >= 0, got %d", c.PropPs)
	case c.StackDelayPs < 0:
		return fmt.Errorf("tcp: stack_delay_ps must be >= 0, got %d", c.StackDelayPs)
	case c.InitCwnd < 1:
		return fmt.Errorf("tcp: init_cwnd must be >= 1, got %d", c.InitCwnd)
	case c.WScale < 0 || c.WScale > 14:
		return fmt.Errorf("tcp: wscale must be in 0..14 (RFC 7323 §2.3), got %d", c.WScale)
	case c.RcvWndBytes < int64(c.MSS) || c.RcvWndBytes > 65535<<uint(c.WScale):
		return fmt.Errorf("tcp: rcv_wnd_bytes must be in mss..65535<<wscale (%d), got %d", int64(65535)<<uint(c.WScale), c.RcvWndBytes)
	case c.DupThresh < 1:
		return fmt.Errorf("tcp: dupthresh must be >= 1, got %d", c.DupThresh)
	case c.RTOMinPs <= 0 || c.RTOMaxPs < c.RTOMinPs || c.RTOInitPs <= 0:
		return fmt.Errorf("tcp: rto bounds must satisfy 0 < rto_min <= rto_max and rto_init > 0, got min %d max %d init %d ps", c.RTOMinPs, c.RTOMaxPs, c.RTOInitPs)
	case c.DelAckPs <= 0:
		return fmt.Errorf("tcp: delack_ps must be > 0, got %d", c.DelAckPs)
	case c.QuickAcks < 0:
		return fmt.Errorf("tcp: quick_acks must be >= 0, got %d", c.QuickAcks)
	case c.MaxSACKBlocks < 0 || c.MaxSACKBlocks > 3:
		return fmt.Errorf("tcp: max_sack_blocks must be in 0..3 (with timestamps), got %d", c.MaxSACKBlocks)
	case c.PacingSSRatio <= 0 || c.PacingCARatio <= 0:
		return fmt.Errorf("tcp: pacing ratios must be > 0, got %d and %d", c.PacingSSRatio, c.PacingCARatio)
	case c.TimestampHZ <= 0:
		return fmt.Errorf("tcp: timestamp_hz must be > 0, got %d", c.TimestampHZ)
	case c.CC != CCCubic && c.CC != CCDCTCP:
		return fmt.Errorf("tcp: cc must be %q or %q, got %q", CCCubic, CCDCTCP, c.CC)
	case c.CC == CCDCTCP && !c.ECN:
		return fmt.Errorf("tcp: cc dctcp needs ecn: true (RFC 8257 §3.1)")
	case c.DCTCP.ShiftG < 0 || c.DCTCP.ShiftG > 10:
		return fmt.Errorf("tcp: dctcp shift_g must be in 0..10, got %d", c.DCTCP.ShiftG)
	case c.DCTCP.AlphaOnInit < 0 || c.DCTCP.AlphaOnInit > dctcpMaxAlpha:
		return fmt.Errorf("tcp: dctcp alpha_on_init must be in 0..1024, got %d", c.DCTCP.AlphaOnInit)
	}
	p := c.Cubic
	switch {
	case p.Beta <= 0 || p.Beta >= betaScale:
		return fmt.Errorf("tcp: cubic beta must be in 1..1023 (/1024), got %d", p.Beta)
	case p.BicScale <= 0:
		return fmt.Errorf("tcp: cubic bic_scale must be > 0, got %d", p.BicScale)
	case p.HZ < 100 || p.HZ > 1000000:
		return fmt.Errorf("tcp: cubic hz must be in 100..1000000, got %d", p.HZ)
	case p.HyStartLowWindow < 0 || p.HyStartAckDeltaUs < 0 || p.GSOMaxBytes < 0:
		return fmt.Errorf("tcp: cubic hystart parameters must be >= 0")
	case p.HyStartDetect&^(HyStartAckTrain|HyStartDelay) != 0:
		return fmt.Errorf("tcp: cubic hystart_detect must be a subset of 3, got %d", p.HyStartDetect)
	}
	return nil
}
