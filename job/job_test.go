package job

import (
	"strings"
	"testing"

	"archsim/arch"
	"archsim/harness"
)

// A job loads the chip, resolves and compiles the program and measures it;
// a program that does not fit is reported, not measured; bad input is an
// error naming what is wrong.
func TestRun(t *testing.T) {
	o, err := Run(Spec{Arch: "trio", Program: "pie-rfc", Seed: 3, Sim: &harness.Sim{Packets: 100, Load: 0.5, RateProbe: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Compiled.Fits || o.Measurement == nil || o.Measurement.Latency.Offered != 100 || o.Measurement.Rate == nil {
		t.Fatalf("pie-rfc on Trio: fits %v, measurement %+v", o.Compiled.Fits, o.Measurement)
	}
	if s := o.Summary(); s.Arch != "trio" || s.RateMpps <= 0 || s.LatencyMeanNs <= 0 {
		t.Errorf("summary %+v", s)
	}

	o, err = Run(Spec{Arch: "tofino", Program: "pie-rfc", Seed: 3, Sim: &harness.Sim{Packets: 100, Load: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Compiled.Fits || o.Measurement != nil || o.Report == nil {
		t.Errorf("pie-rfc on Tofino must be refused and not measured: fits %v", o.Compiled.Fits)
	}
	// Tofino's rate follows from its clock: no rate probe.
	o, err = Run(Spec{Arch: "tofino", Program: "ndp", Seed: 3, Sim: &harness.Sim{Packets: 100, Load: 0.5, RateProbe: 200}})
	if err != nil || o.Measurement.Rate != nil {
		t.Errorf("Tofino rate probe: %v, %v", err, o.Measurement)
	}

	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Arch: "nope", Program: "ndp"}, `unknown architecture "nope"`},
		{Spec{Arch: "tofino", Program: "nope"}, `unknown program "nope"`},
		{Spec{Arch: "tofino", Program: "ndp", Overrides: arch.Overrides{Sets: []string{"tofino.mau.stages=0"}}}, "tofino.mau.stages = 0 is out of range"},
		{Spec{Arch: "tofino", Program: "ndp", Sim: &harness.Sim{Packets: 100, Load: 2}}, "--load 2"},
	} {
		if _, err := Run(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.s, err, c.want)
		}
	}
}
