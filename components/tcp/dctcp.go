package tcp

// DCTCP congestion control (RFC 8257; Linux net/ipv4/tcp_dctcp.c, facts
// only). The sender keeps alpha, the fraction of its bytes the network
// marked, as an EWMA updated once per window of data:
//
//	alpha = (1 - g)·alpha + g·F, g = 2^-ShiftG, F = CE-echoed / delivered
//
// in tcp_dctcp.c's integer form (alpha in 1/1024: DCTCP_MAX_ALPHA = 1024;
// alpha -= min_not_zero(alpha, alpha >> g); alpha += (F·1024) >> g). An
// ECN echo starts one cwnd reduction per window (Linux's CWR state, as
// for RFC 3168) to ssthresh = cwnd·(1 - alpha/2) (dctcp_ssthresh:
// cwnd - (cwnd·alpha >> 11), at least 2). A loss halves instead
// (dctcp_react_to_loss: ssthresh = max(cwnd/2, 2) on entering Recovery
// and on an RTO). Window growth is Reno (DCTCP's cong_avoid is
// tcp_reno_cong_avoid). Not modelled: undo (dctcp_cwnd_undo) and
// dctcp_clamp_alpha_on_loss (0 by default in Linux).

// dctcpMaxAlpha is DCTCP_MAX_ALPHA (tcp_dctcp.c): alpha's scale.
const dctcpMaxAlpha = 1024

// DCTCPParams are tcp_dctcp.c's module parameters.
type DCTCPParams struct {
	ShiftG      int // g = 2^-ShiftG (tcp_dctcp.c dctcp_shift_g = 4: g = 1/16; RFC 8257 §4.2)
	AlphaOnInit int // initial alpha in 1/1024 (tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA)
}

// DefaultDCTCPParams are Linux's defaults.
func DefaultDCTCPParams() DCTCPParams { return DCTCPParams{ShiftG: 4, AlphaOnInit: dctcpMaxAlpha} }

// DCTCP is one connection's DCTCP state (tcp_dctcp.c struct dctcp).
type DCTCP struct {
	p            DCTCPParams
	alpha        int   // in 1/1024
	nextSeq      int64 // the window ends when snd_una reaches it (bytes)
	delivered    int64 // segments delivered in this window
	deliveredCE  int64 // of which the ACK echoed CE
	updates      int   // alpha updates so far
	lossCwnd     int
	lastFraction float64
}

// NewDCTCP returns DCTCP state with parameters p.
func NewDCTCP(p DCTCPParams) *DCTCP {
	return &DCTCP{p: p, alpha: min(p.AlphaOnInit, dctcpMaxAlpha)}
}

// Alpha is alpha as a fraction (alpha/1024).
func (d *DCTCP) Alpha() float64 { return float64(d.alpha) / dctcpMaxAlpha }

// AlphaUpdates is the number of windows alpha was updated for.
func (d *DCTCP) AlphaUpdates() int { return d.updates }

// Init is dctcp_init: alpha from AlphaOnInit, a window starting at sndNxt.
func (d *DCTCP) Init(nowPs, sndNxt int64) {
	d.alpha = min(d.p.AlphaOnInit, dctcpMaxAlpha)
	d.lossCwnd = 0
	d.reset(sndNxt)
}

func (d *DCTCP) reset(sndNxt int64) {
	d.nextSeq = sndNxt
	d.delivered, d.deliveredCE = 0, 0
}

// Ssthresh is dctcp_ssthresh: cwnd·(1 - alpha/2), at least 2.
func (d *DCTCP) Ssthresh(w *Window) int {
	d.lossCwnd = w.Cwnd
	return max(w.Cwnd-(w.Cwnd*d.alpha>>11), 2)
}

// CongAvoid is tcp_reno_cong_avoid: slow start, then one segment per
// cwnd segments ACKed.
func (d *DCTCP) CongAvoid(w *Window, nowPs int64, acked int, cwndLimited bool) {
	if !cwndLimited {
		return
	}
	if w.InSlowStart() {
		acked = w.slowStart(acked)
		if acked == 0 {
			return
		}
	}
	w.congAvoidAI(w.Cwnd, acked)
}

// PktsAcked does nothing (DCTCP has no pkts_acked hook).
func (d *DCTCP) PktsAcked(*Window, AckSample) {}

// OnAck is dctcp_update_alpha, run on every ACK (in_ack_event) after
// the delivered counts are updated (tcp_count_delivered: an ACK with ECE
// counts everything it delivered as CE): once snd_una passes the end of
// the window, fold the window's marked fraction into alpha.
func (d *DCTCP) OnAck(delivered int, ece bool, sndUna, sndNxt int64) {
	d.delivered += int64(delivered)
	if ece {
		d.deliveredCE += int64(delivered)
	}
	if sndUna < d.nextSeq {
		return
	}
	a := d.alpha
	// alpha -= min_not_zero(alpha, alpha >> g)
	if dec := a >> uint(d.p.ShiftG); dec != 0 {
		a -= dec
	} else {
		a = 0
	}
	d.lastFraction = 0
	if d.deliveredCE > 0 {
		f := (d.deliveredCE << uint(10-d.p.ShiftG)) / max(d.delivered, 1)
		a = min(a+int(f), dctcpMaxAlpha)
		d.lastFraction = float64(d.deliveredCE) / float64(max(d.delivered, 1))
	}
	d.alpha = a
	d.updates++
	d.reset(sndNxt)
}

// OnLoss is dctcp_react_to_loss (Recovery entered, or an RTO): ssthresh
// = max(cwnd/2, 2).
func (d *DCTCP) OnLoss(w *Window) {
	d.lossCwnd = w.Cwnd
	w.Ssthresh = max(w.Cwnd>>1, 2)
}

// congestionControl is what the sender asks of CUBIC or DCTCP (Linux
// struct tcp_congestion_ops, the hooks modelled).
type congestionControl interface {
	Init(nowPs, sndNxt int64)
	Ssthresh(w *Window) int
	CongAvoid(w *Window, nowPs int64, acked int, cwndLimited bool)
	PktsAcked(w *Window, s AckSample)
	// onAck runs after every ACK's accounting (in_ack_event).
	onAck(delivered int, ece bool, sndUna, sndNxt int64)
	// onRecovery runs on entering fast recovery, after Ssthresh
	// (set_state(TCP_CA_Recovery)).
	onRecovery(w *Window)
	// onRTO runs on an RTO: after Ssthresh when the window was reduced
	// (CA_EVENT_LOSS), and resetCC in any case (set_state(TCP_CA_Loss)).
	onRTO(w *Window, reduced bool, nowPs, sndNxt int64)
}

func (c *Cubic) onAck(int, bool, int64, int64) {}
func (c *Cubic) onRecovery(*Window)            {}
func (c *Cubic) onRTO(_ *Window, _ bool, nowPs, sndNxt int64) {
	c.OnLoss(nowPs, sndNxt)
}

func (d *DCTCP) onAck(delivered int, ece bool, sndUna, sndNxt int64) {
	d.OnAck(delivered, ece, sndUna, sndNxt)
}
func (d *DCTCP) onRecovery(w *Window) { d.OnLoss(w) }
func (d *DCTCP) onRTO(w *Window, reduced bool, _, _ int64) {
	if reduced {
		d.OnLoss(w)
	}
}
