package trio

import (
	"fmt"

	"archsim/components/packet"
	"archsim/programs"
)

// Trio has no packet generator. A program's generator applications (its
// pktgen section, written for Tofino) run on a PFE as what Trio offers for
// the same purpose: timer threads ([TRIO] §5). Each trigger starts a
// thread that writes the application's template into a new packet head and
// hands it to packet processing, as if it had arrived on the application's
// port; the thread's own cost (its start and the template write) is not
// modelled (assumed small against the packet's processing). Port-down
// triggers have no Trio equivalent here: they are refused.
type genApp struct {
	app     *programs.PktgenApp
	until   int64
	enabled bool
	seq     int
}

// evPktGen is a timer-thread trigger of application Port.
const evPktGen = evReleased + 1

// ConfigurePktGen installs the applications (timer triggers only).
func (p *PFE) ConfigurePktGen(apps []*programs.PktgenApp) error {
	p.gen = p.gen[:0]
	for _, a := range apps {
		if !a.Timer() {
			return fmt.Errorf("%s: pktgen %s: a %s trigger has no Trio equivalent (timer threads start periodically or once)", a.Pos, a.Name, a.Trigger)
		}
		p.gen = append(p.gen, &genApp{app: a})
	}
	return nil
}

// EnablePktGen starts an application's timer: its first trigger comes one
// timer after atPs; none after untilPs (< 0: the run's deadline).
func (p *PFE) EnablePktGen(name string, atPs, untilPs int64) error {
	for i, g := range p.gen {
		if g.app.Name != name {
			continue
		}
		g.enabled, g.until = true, untilPs
		if untilPs < 0 {
			g.until = p.deadlinePs
		}
		if first := atPs + g.app.TimerNs*1000; first <= g.until {
			p.post(first, evPktGen, nil, i)
		}
		return nil
	}
	return fmt.Errorf("%s: no packet-generator application %q is configured", p.Name(), name)
}

// DisablePktGen stops an application: no trigger fires from atPs on.
func (p *PFE) DisablePktGen(name string, atPs int64) error {
	for _, g := range p.gen {
		if g.app.Name == name {
			g.until = min(g.until, atPs-1)
			return nil
		}
	}
	return fmt.Errorf("%s: no packet-generator application %q is configured", p.Name(), name)
}

// PortDown is refused at ConfigurePktGen: no application waits for it.
func (p *PFE) PortDown(int, int64) error { return nil }

// PktGenerated is the number of packets the timer threads made.
func (p *PFE) PktGenerated() int { return p.genMade }

// pktGen runs a trigger of application i: its batches of packets enter
// processing now (packets of a batch IPG apart, batches IBG apart).
func (p *PFE) pktGen(i int, now int64) {
	g := p.gen[i]
	if now > g.until {
		return // disabled since it was posted
	}
	a := g.app
	for b := 0; b < max(1, a.Batches); b++ {
		for k := 0; k < max(1, a.Packets); k++ {
			at := now + int64(b)*a.IBGNs*1000 + int64(k)*a.IPGNs*1000
			head := a.Template.BuildPacket(g.seq, a.Length)
			g.seq++
			p.genMade++
			pkt := &packet.Packet{ID: 1<<61 | uint64(p.genMade), Flow: 1<<24 + a.Port*16 + i, Head: head,
				Len: max(a.Length, len(head)), InPort: a.Port, BornPs: at, Passes: 1}
			p.Inject(pkt, at)
		}
	}
	if a.Trigger == programs.TriggerPeriodic {
		if next := now + a.TimerNs*1000; next <= g.until {
			p.post(next, evPktGen, nil, i)
		}
	}
}
