// Package rdma models RoCEv2 NICs doing one-sided RDMA WRITEs over the
// InfiniBand reliable connection (RC) transport, as the Protego paper's
// testbed runs them on NVIDIA ConnectX-6 Dx NICs (paper §4: "NIC-based
// reliable delivery (RC) which we found to have a RTO of ~1 ms").
//
// A Host is an Akita component attached to a switch port like tcp.Host:
// its NIC sends real frames (Ethernet/IPv4/UDP to port 4791/BTH, RETH on
// the first packet of a WRITE, payload, ICRC; ACKs and NAKs with AETH;
// wire.go) into the switch port's ingress handler, and the switch
// delivers frames to it through a link.End. A Host holds requester and
// responder queue pairs (Conn); a scenario posts WRITEs (Post) on a
// requester and reads each one's completion time (Write.DonePs: the ACK
// covering its last PSN reached the requester).
//
// Reliability is go-back-N (IBA §9.7): the responder accepts only the
// expected PSN, sends one sequence-error NAK per gap and drops
// out-of-order packets; the requester resends from the NAK's PSN, or from
// the oldest unacknowledged PSN when its transport timer (TimeoutPs,
// default 1 ms) expires; ACKs are coalesced by the AckReq bit, set every
// AckEvery packets and on a WRITE's last packet. A lost last packet
// therefore costs a timeout: nothing after it can reveal the gap.
//
// Not modelled (documented deviations): DCQCN congestion control (the
// NIC sends at line rate; ECN is not set), end-to-end credits, the retry
// counter limit (retry_cnt: the QP never goes to the error state), RNR
// NAKs, selective repeat (newer NICs), PFC, the ICRC value, and the
// NIC's internal pipelines (a fixed NICDelayPs per frame stands for
// them). Events: two per frame sent (its arrival at the uplink and the
// NIC's wake-up when the frame's last bit leaves, so that a NAK or a
// timeout changes the very next frame) and timers as single lazily moved
// events.
package rdma
