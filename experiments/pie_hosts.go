package experiments

import (
	"fmt"

	"github.com/sarchlab/akita/v3/sim"

	"archsim/arch"
	"archsim/components/packet"
)

// aqmHostSet is the hosts of a PIE run.
type aqmHostSet struct {
	sources      []rateSetter
	goodputBytes func() int64
}

// controlLoop is a control-plane program running beside the bottleneck.
type controlLoop interface {
	updates() int
	periodUs() float64
}

func (s *Scenario) aqmHosts(spec runSpec, eng sim.Engine, net *network, deadline int64, tap func(*packet.Packet)) (*aqmHostSet, error) {
	return nil, fmt.Errorf("workload %s: hosts not wired yet", s.Workload.Kind)
}

func startControl(name string, sw arch.Switch, eng sim.Engine, deadline int64) (controlLoop, error) {
	if name == "" {
		return nil, nil
	}
	return nil, fmt.Errorf("not wired yet")
}
