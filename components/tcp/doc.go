// Package tcp models end hosts running TCP CUBIC or DCTCP as Linux does
// (net/ipv4/tcp_cubic.c, tcp_dctcp.c, tcp_input.c, tcp_output.c), for
// experiments where many long-lived TCP flows share an AQM bottleneck
// and for short fixed-size flows (components/flowgen).
//
// A Host is an Akita component attached to a switch port like the hosts
// in components/hosts: its NIC sends real Ethernet/IPv4/TCP frames
// (timestamps and SACK options) into the switch port's ingress handler,
// and the switch delivers frames to it through a link.End. A Host runs
// any number of flows as sender and/or receiver:
//
//   - sender: CUBIC (cubic.go: Linux's integer arithmetic, HyStart,
//     Reno emulation, fast convergence) or DCTCP (dctcp.go, Config.CC =
//     "dctcp", needs ECN: alpha per window with g = 1/16, one reduction
//     per window to cwnd·(1 - alpha/2) on ECE, Reno growth, cwnd/2 on
//     loss; ECT(0) on every data segment, retransmissions included), a
//     SACK scoreboard with RFC 6675
//     loss marking, fast recovery once per window with proportional rate
//     reduction, RACK-TLP (RFC 8985: time-based loss detection, lost
//     retransmissions, tail loss probes; both switchable off), an RTO per
//     RFC 6298 with Linux's 200 ms floor, 120 s ceiling and exponential
//     backoff, optional ECN (RFC 3168);
//   - receiver: cumulative ACK plus SACK blocks, delayed ACKs (every
//     second full segment or after 40 ms, at once on out-of-order data
//     and on a short in-order segment, Linux tcp_measure_rcv_mss and
//     tcp_cleanup_rbuf), a fixed advertised window; with DCTCP the
//     RFC 8257 §3.2 CE-echo state machine (ECE tells the CE state of the
//     data ACKed; a change ACKs at once, after flushing a pending delayed
//     ACK with the old state).
//
// The RTO floor is Config.RTOMinPs (Linux's 200 ms by default). A
// scenario modelling a datacenter host set up as in the Protego testbed
// (`ip route ... rto_min 1ms`, paper §4) sets RTOMinPs = 1e9, or
// overlays `rto_min_ms: 1` (with `cc: dctcp` and `ecn: true`) on
// configs/tcp.yaml through ParseConfig. Short flows are new connections
// whose handshake is not simulated: Flow.SynRTTPs gives the RTT sample
// the SYN/SYN-ACK exchange would have given (else the first RTO is
// RTOInit, 1 s), and Flow.Epoch a new ISN when a flow id is reused.
// Flow.OnDone reports completion; Host.RemoveSender/RemoveReceiver
// free a finished flow's state.
//
// Not modelled (documented deviations from a Linux sender): the
// three-way handshake and FIN (see SynRTTPs), DCTCP's cwnd undo and
// dctcp_clamp_alpha_on_loss, ECT on pure ACKs, the quick-ACK mode Linux
// enters on a CWR (tcp_ecn_accept_cwr), receive-side GRO, F-RTO, DSACK and undo of spurious
// reductions, reordering detection (RACK's window never grows), TSO/GSO
// and pacing (the host does not pace, as Linux CUBIC without the fq
// qdisc), receive-buffer autotuning, idle restart (cubictcp_cwnd_event,
// tcp_slow_start_after_idle), the per-destination metrics cache, SACK
// compression (Linux >= 4.18 delays the 4th and later duplicate ACKs of a
// hole by up to 1 ms; here every out-of-order segment is ACKed at once),
// the host qdisc and TCP small queues (the NIC queue is unbounded).
//
// Events: one engine event per frame arrival (the NIC computes each
// frame's departure when it is queued) and timers as single lazily moved
// events (timer in host.go).
package tcp
