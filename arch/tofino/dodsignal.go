package tofino

import (
	"github.com/sarchlab/akita/v3/sim"

	"archsim/components/packet"
	"archsim/programs"
)

// dodSignal delivers a program's deflect-on-drop signal
// (programs.DoDSignal): when the traffic manager dequeues a deflected packet
// from a deflect-on-drop queue, every pipe runs the signal's register
// actions on the cell of the packet's original egress port LatencyNs later,
// with std.tstamp the delivery time. It is the trimming paper's simulated
// notification (§6.2), which bypasses the ingress pipeline: no issue slot,
// no parser, no recirculation port. One event per signal reaches all pipes
// ("to all pipelines at once").
type dodSignal struct {
	*sim.ComponentBase
	sw      *Switch
	sig     programs.DoDSignal
	execs   []*programs.Exec // per pipe, on the pipe's state
	phvs    [][]int64
	tstamp  int
	Raised  int // signals raised (DoD dequeues)
	Arrived int // signals delivered before the end of the run
}

// NotifyRecv is unused: signals arrive as scheduled events.
func (d *dodSignal) NotifyRecv(sim.VTimeInSec, sim.Port) {}

// NotifyPortFree is unused.
func (d *dodSignal) NotifyPortFree(sim.VTimeInSec, sim.Port) {}

func newDoDSignal(sw *Switch, sig programs.DoDSignal) *dodSignal {
	d := &dodSignal{ComponentBase: sim.NewComponentBase(sw.name + ".DoDSignal"), sw: sw, sig: sig,
		tstamp: sw.prog.Std[programs.StdTstamp].Slot}
	for _, u := range sw.pipes {
		x := programs.NewExec(u.state, nil)
		x.Gress = "traffic manager"
		phv := make([]int64, len(sw.prog.Fields))
		x.PHV = phv
		d.execs = append(d.execs, x)
		d.phvs = append(d.phvs, phv)
	}
	return d
}

// raise is the traffic manager's hook at a deflect-on-drop dequeue (or,
// with AtDeflect, at the deflection into the DoD queue). The
// event's port carries the packet's original egress port and, with
// ToOrigin, 1 + the pipe of the DoD queue above bit 16.
func (d *dodSignal) raise(now int64, pkt *packet.Packet) {
	if int64(pkt.DeqDepthCells) < d.sig.MinBacklogCells {
		return // the what-if: no signal while the DoD queue has not built
	}
	d.Raised++
	port := pkt.OrigPort
	if d.sig.ToOrigin {
		port |= (1 + d.sw.cfg.PipeOf(pkt.InPort)) << 16
	}
	packet.Schedule(d.sw.engine, d, now+d.sig.LatencyNs*1000, packet.KindLocal, nil, port)
}

// Handle delivers a signal to every pipe.
func (d *dodSignal) Handle(e sim.Event) error {
	ev := e.(*packet.Event)
	now := ev.AtPs()
	if dl := d.sw.deadlinePs; dl > 0 && now > dl {
		return nil
	}
	d.Arrived++
	index, only := int64(ev.Port&0xffff), ev.Port>>16-1 // only < 0: every pipe
	for i, x := range d.execs {
		if only >= 0 && i != only {
			continue
		}
		d.phvs[i][d.tstamp] = (now / 1000) & (1<<48 - 1)
		x.NowPs = now
		for _, ra := range d.sig.Arm {
			x.RunRegisterAction(ra, index)
		}
	}
	return nil
}
