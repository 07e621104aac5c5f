package tofino

import (
	"strings"
	"testing"

	"archsim/arch"
	"archsim/components/packet"
	"archsim/engine"
	"archsim/programs"
)

// The switch's packet generators through the chip-neutral hook: a
// port-down application fires when a port goes down and its packet runs
// through the pipe (pie-dp forwards it to port 1); a generated packet
// shares port 68's wire with recirculation; a port of no pipe is refused.
func TestSwitchPktGen(t *testing.T) {
	prog, err := programs.Resolve("pie-dp", nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := Tofino1.Load(arch.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tgt.Compile(prog)
	if err != nil || !c.Fits {
		t.Fatalf("compile: %v", err)
	}
	e := engine.NewSerial()
	s, err := tgt.Build(arch.BuildSpec{Engine: e, Compiled: c, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sw := s.(*Switch)
	pg := arch.PacketGenerator(sw)
	pd := *prog.Pktgen[0]
	pd.Name, pd.Trigger, pd.TimerNs, pd.Port = "pd", programs.TriggerPortDown, 0, 128+70
	bad := pd
	bad.Name, bad.Port = "bad", 5*128+68
	if err := pg.ConfigurePktGen([]*programs.PktgenApp{&bad}); err == nil || !strings.Contains(err.Error(), "port 708 is not a packet-generator port") {
		t.Errorf("pipe 5: %v", err)
	}
	if err := pg.ConfigurePktGen([]*programs.PktgenApp{&pd}); err != nil {
		t.Fatal(err)
	}
	if err := pg.EnablePktGen("pd", 0, -1); err != nil {
		t.Fatal(err)
	}
	if err := pg.EnablePktGen("nope", 0, -1); err == nil {
		t.Error("enabling an unknown application must fail")
	}
	// Port 198 (pipe 1's port 70) is busy with another frame until 2 us:
	// the generated packet waits for it.
	sw.ports.busyUntil[128+70] = 2_000_000
	if err := pg.PortDown(5, 1_000_000); err != nil {
		t.Fatal(err)
	}
	sw.SetDeadline(1_000_000_000)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	app := sw.PktGen(1).App("pd")
	ser := packet.SerializationPs(74, 100)
	if app.Stats.Packets != 1 || app.Stats.WirePs != 1_000_000 || pg.PktGenerated() != 1 || sw.Counters().Delivered != 1 {
		t.Errorf("stats %+v, generated %d, delivered %d", app.Stats, pg.PktGenerated(), sw.Counters().Delivered)
	}
	if got := sw.pipes[1].ingress.Stats.Packets; got != 1 {
		t.Errorf("pipe 1 ingress saw %d packets", got)
	}
	if sw.ports.busyUntil[128+70] != 2_000_000+ser {
		t.Errorf("the wire is busy until %d ps, want %d", sw.ports.busyUntil[128+70], 2_000_000+ser)
	}
}
