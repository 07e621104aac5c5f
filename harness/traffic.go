package harness

// The traffic generator: the test traffic a program describes (its
// traffic templates) for a latency measurement: per ingress port a train
// of packets at a fraction of the port's line rate, or one every
// interval_ns, sizes cycling through each template's size classes, the
// template of each packet drawn by weight from a seeded generator.

import (
	"fmt"
	"math/rand"
	"sort"

	"archsim/components/packet"
	"archsim/programs"
)

// PortRate gives the rate a source on a port sends at, or why the port
// cannot inject packets.
type PortRate func(port int) (gbps float64, err error)

// Offered is a generated train of packets.
type Offered struct {
	// Arrivals in generation order: port by port (ascending), each
	// port's packets in time order.
	Arrivals       []packet.Arrival
	LastArrivalPs  int64
	MeanFrameBytes float64
}

// Generate builds packets packets from the program's templates, spread
// over their ports (the first ports get one more when they do not divide),
// at load × each port's rate. A packet's flow is its template × 4096 + its
// port (what a reorder engine keeps in order).
func Generate(prog *programs.Program, rate PortRate, packets int, load float64, seed int64) (*Offered, error) {
	if len(prog.Traffic) == 0 {
		return nil, fmt.Errorf("%s: program %s has no traffic section, so there are no packets to measure latency with", prog.File, prog.Name)
	}
	type portFlows struct {
		port  int
		gbps  float64
		flows []int
	}
	var ports []*portFlows
	byPort := map[int]*portFlows{}
	for fi, ft := range prog.Traffic {
		for _, dp := range ft.Ports {
			pf, ok := byPort[dp]
			if !ok {
				gbps, err := rate(dp)
				if err != nil {
					return nil, fmt.Errorf("%s: traffic %q: %v", ft.Pos, ft.Name, err)
				}
				pf = &portFlows{port: dp, gbps: gbps}
				byPort[dp] = pf
				ports = append(ports, pf)
			}
			pf.flows = append(pf.flows, fi)
		}
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i].port < ports[j].port })
	if packets < len(ports) {
		return nil, fmt.Errorf("--packets %d: need at least one packet per ingress port (%d ports)", packets, len(ports))
	}
	if load <= 0 || load > 1 {
		return nil, fmt.Errorf("--load %g: must be in (0, 1]", load)
	}
	rng := rand.New(rand.NewSource(seed))
	out := &Offered{Arrivals: make([]packet.Arrival, 0, packets)}
	var id uint64
	var bytes float64
	for pi, pf := range ports {
		n := packets / len(ports)
		if pi < packets%len(ports) {
			n++
		}
		weights := 0
		for _, fi := range pf.flows {
			weights += prog.Traffic[fi].Weight
		}
		seq := make([]int, len(prog.Traffic))
		var t int64
		for k := 0; k < n; k++ {
			pick := rng.Intn(weights)
			fi := pf.flows[0]
			for _, f := range pf.flows {
				if pick < prog.Traffic[f].Weight {
					fi = f
					break
				}
				pick -= prog.Traffic[f].Weight
			}
			ft := prog.Traffic[fi]
			size := ft.Sizes[seq[fi]%len(ft.Sizes)]
			head := ft.BuildPacket(seq[fi], size)
			seq[fi]++
			size = max(size, len(head))
			gap := int64(float64(packet.SerializationPs(size, pf.gbps)) / load)
			if ft.IntervalNs > 0 {
				gap = ft.IntervalNs * 1000
			}
			if k == 0 {
				t = rng.Int63n(max(gap, 1))
			}
			id++
			pkt := &packet.Packet{ID: id, Flow: fi*4096 + pf.port, Head: head, Len: size, InPort: pf.port, BornPs: t, Passes: 1}
			out.Arrivals = append(out.Arrivals, packet.Arrival{Pkt: pkt, Port: pf.port, AtPs: t})
			bytes += float64(size)
			out.LastArrivalPs = max(out.LastArrivalPs, t)
			t += gap
		}
	}
	out.MeanFrameBytes = bytes / float64(len(out.Arrivals))
	return out, nil
}

// TimeOrdered returns the arrivals sorted by time (ties keep generation
// order).
func (o *Offered) TimeOrdered() []packet.Arrival {
	as := append([]packet.Arrival(nil), o.Arrivals...)
	sort.SliceStable(as, func(i, j int) bool { return as[i].AtPs < as[j].AtPs })
	return as
}
