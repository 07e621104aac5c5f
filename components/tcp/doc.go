// Package tcp models end hosts running TCP CUBIC as Linux does
// (net/ipv4/tcp_cubic.c, tcp_input.c, tcp_output.c), for experiments
// where many long-lived TCP flows share an AQM bottleneck.
//
// A Host is an Akita component attached to a switch port like the hosts
// in components/hosts: its NIC sends real Ethernet/IPv4/TCP frames
// (timestamps and SACK options) into the switch port's ingress handler,
// and the switch delivers frames to it through a link.End. A Host runs
// any number of flows as sender and/or receiver:
//
//   - sender: CUBIC (cubic.go: Linux's integer arithmetic, HyStart,
//     Reno emulation, fast convergence), a SACK scoreboard with RFC 6675
//     loss marking, fast recovery once per window with proportional rate
//     reduction, RACK-TLP (RFC 8985: time-based loss detection, lost
//     retransmissions, tail loss probes; both switchable off), an RTO per
//     RFC 6298 with Linux's 200 ms floor, 120 s ceiling and exponential
//     backoff, optional ECN (RFC 3168);
//   - receiver: cumulative ACK plus SACK blocks, delayed ACKs (every
//     second full segment or after 40 ms, at once on out-of-order data),
//     a fixed advertised window.
//
// Not modelled (documented deviations from a Linux sender): the
// three-way handshake and FIN, F-RTO, DSACK and undo of spurious
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
