package harness

// The traffic generator: the test traffic a program describes (its
// traffic templates) for a latency measurement: per ingress port a train
// of packets at a fraction of the port's line rate, sizes cycling through
// each template's size classes, the template of each packet drawn by
// weight from a seeded generator. The program's periodic packet-generator
// applications count as sources too: a chip with a packet generator runs
// them for their share of the packets; to a chip without one, their
// packets are offered as periodic arrivals on their port.

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
	// Pktgen lists the periodic packet-generator applications the chip's
	// generator runs (Generate with pktgen), with their share.
	Pktgen []PktgenRun
}

// PktgenRun is a periodic packet-generator application's share of a
// latency run: enabled at 0, it fires Triggers times, the last at
// UntilPs.
type PktgenRun struct {
	App      *programs.PktgenApp
	Triggers int
	UntilPs  int64
}

// Generate builds packets packets from the program's templates and its
// periodic packet-generator applications (offered as periodic arrivals),
// spread over their ports (the first ports get one more when they do not
// divide), at load × each port's rate. A packet's flow is its template ×
// 4096 + its port (what a reorder engine keeps in order); an
// application's template number follows the traffic templates'.
func Generate(prog *programs.Program, rate PortRate, packets int, load float64, seed int64) (*Offered, error) {
	return GenerateWith(prog, rate, packets, load, seed, false)
}

// GenerateWith is Generate; with pktgen the periodic packet-generator
// applications are not offered as arrivals but listed in Offered.Pktgen
// with the number of triggers their share asks for (a chip's generator
// makes their packets).
// maxArrivalPs bounds the offered arrivals' times: a quarter of the
// int64 picosecond clock (about 27 days), leaving room for the run after
// them.
const maxArrivalPs = float64(1 << 61)

func GenerateWith(prog *programs.Program, rate PortRate, packets int, load float64, seed int64, pktgen bool) (*Offered, error) {
	templates := append([]*programs.FlowTemplate(nil), prog.Traffic...)
	apps := map[int]*programs.PktgenApp{} // template index -> application
	for _, a := range prog.Pktgen {
		if a.Trigger != programs.TriggerPeriodic {
			continue
		}
		apps[len(templates)] = a
		templates = append(templates, a.Template.Periodic(a.TimerNs))
	}
	if len(templates) == 0 {
		return nil, fmt.Errorf("%s: program %s has no traffic section, so there are no packets to measure latency with", prog.File, prog.Name)
	}
	type portFlows struct {
		port  int
		gbps  float64
		flows []int
		app   *programs.PktgenApp // a packet-generator application's own source
	}
	var ports []*portFlows
	byPort := map[int]*portFlows{}
	for fi, ft := range templates {
		for _, dp := range ft.Ports {
			if a := apps[fi]; a != nil {
				// An application is a source of its own, after the
				// traffic on its port; offered as arrivals, the port
				// must take them.
				pf := &portFlows{port: dp, flows: []int{fi}, app: a}
				if !pktgen {
					gbps, err := rate(dp)
					if err != nil {
						return nil, fmt.Errorf("%s: pktgen %q: %v", a.Pos, a.Name, err)
					}
					pf.gbps = gbps
				}
				ports = append(ports, pf)
				continue
			}
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
	sort.SliceStable(ports, func(i, j int) bool { return ports[i].port < ports[j].port })
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
	var frames int
	for pi, pf := range ports {
		n := packets / len(ports)
		if pi < packets%len(ports) {
			n++
		}
		if a := pf.app; a != nil && pktgen {
			until := int64(n) * a.TimerNs * 1000
			out.Pktgen = append(out.Pktgen, PktgenRun{App: a, Triggers: n, UntilPs: until})
			k := n * a.Batches * a.Packets
			bytes += float64(k * a.Length)
			frames += k
			out.LastArrivalPs = max(out.LastArrivalPs, until)
			continue
		}
		weights := 0
		for _, fi := range pf.flows {
			weights += templates[fi].Weight
		}
		seq := make([]int, len(templates))
		var t int64
		for k := 0; k < n; k++ {
			pick := rng.Intn(weights)
			fi := pf.flows[0]
			for _, f := range pf.flows {
				if pick < templates[f].Weight {
					fi = f
					break
				}
				pick -= templates[f].Weight
			}
			ft := templates[fi]
			size := ft.Sizes[seq[fi]%len(ft.Sizes)]
			head := ft.BuildPacket(seq[fi], size)
			seq[fi]++
			size = max(size, len(head))
			gapF := float64(packet.SerializationPs(size, pf.gbps)) / load
			if ft.IntervalNs > 0 {
				gapF = float64(ft.IntervalNs) * 1000
			}
			// The arrivals must stay within the engine's picosecond clock
			// (a tiny --load spreads them over centuries).
			if float64(t)+gapF*float64(n-k) > maxArrivalPs {
				return nil, fmt.Errorf("--packets %d at --load %g: port %d's arrivals would span %.3g s of simulated time (the engine allows %.3g s); raise --load or lower --packets",
					packets, load, pf.port, (float64(t)+gapF*float64(n-k))/1e12, maxArrivalPs/1e12)
			}
			gap := int64(gapF)
			if k == 0 {
				t = rng.Int63n(max(gap, 1))
			}
			at := t
			if a := pf.app; a != nil && a.Batches*a.Packets > 1 {
				// Trigger k / (B·P) at first + j·timer; batch b and
				// packet p within it IBG and IPG apart.
				per := a.Batches * a.Packets
				j, b, p := k/per, k%per/a.Packets, k%a.Packets
				at = t - int64(k)*gap + int64(j)*gap + int64(b)*a.IBGNs*1000 + int64(p)*a.IPGNs*1000
			}
			id++
			pkt := &packet.Packet{ID: id, Flow: fi*4096 + pf.port, Head: head, Len: size, InPort: pf.port, BornPs: at, Passes: 1}
			out.Arrivals = append(out.Arrivals, packet.Arrival{Pkt: pkt, Port: pf.port, AtPs: at})
			bytes += float64(size)
			frames++
			out.LastArrivalPs = max(out.LastArrivalPs, at)
			t += gap
		}
	}
	out.MeanFrameBytes = bytes / float64(frames)
	return out, nil
}

// TimeOrdered returns the arrivals sorted by time (ties keep generation
// order).
func (o *Offered) TimeOrdered() []packet.Arrival {
	as := append([]packet.Arrival(nil), o.Arrivals...)
	sort.SliceStable(as, func(i, j int) bool { return as[i].AtPs < as[j].AtPs })
	return as
}
