package experiments

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortRiseFall is pie-risefall cut to a few milliseconds: drop_prob only
// starts to rise, so rise_s and fall_s stay null.
func shortRiseFall(t *testing.T, us float64, variants ...string) *Result {
	t.Helper()
	s, err := Load("pie-risefall")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = us
	var keep []Variant
	for _, v := range s.Variants {
		for _, n := range variants {
			if v.Name == n {
				keep = append(keep, v)
			}
		}
	}
	s.Variants = keep
	r, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// In the first 20 ms of the overload every variant updates drop_prob about
// every 117 us (PIE_CP every ~125 us: its loop also pays the CPU's
// operations), the bottleneck queue sits at its 500 us limit, and the
// drop probability rises from 0 without anything dropped by the AQM.
func TestRiseFallStart(t *testing.T) {
	r := shortRiseFall(t, 20000, "PIE_CP", "PIE_DP", "ns3-rfc", "PIE_RFC-trio")
	for _, run := range r.Runs {
		p := run.PIERun
		if p == nil {
			t.Fatalf("%s: no PIE result", run.Variant)
		}
		period := 117.0
		if run.Variant == "PIE_CP" {
			period = 125
		}
		want := 20000 / period
		if math.Abs(float64(p.Updates)-want) > 0.05*want+2 {
			t.Errorf("%s: %d updates in 20 ms, want about %.0f (one per %.0f us)", run.Variant, p.Updates, want, period)
		}
		if p.QueueDelayUs.P99 < 470 || p.QueueDelayUs.P99 > 510 {
			t.Errorf("%s: p99 queueing delay %.1f us, want the 500 us limit", run.Variant, p.QueueDelayUs.P99)
		}
		if !(p.FinalDropProb > 0 && p.FinalDropProb < 0.1) {
			t.Errorf("%s: drop_prob %g after 20 ms of overload, want a start of the rise", run.Variant, p.FinalDropProb)
		}
		if p.AQMDrops != 0 || p.TailDrops == 0 {
			t.Errorf("%s: %d AQM drops (told not to drop) and %d tail drops (100 Gb/s into 10 Gb/s)", run.Variant, p.AQMDrops, p.TailDrops)
		}
		if p.RiseS != nil || p.FallS != nil {
			t.Errorf("%s: rise/fall reported after 20 ms", run.Variant)
		}
		if run.Variant == "PIE_CP" && (p.CPPeriodUs == nil || math.Abs(*p.CPPeriodUs-125) > 1) {
			t.Errorf("PIE_CP: control-plane period %v, want 125 us", p.CPPeriodUs)
		}
		// The frames' ledger: every frame sent is delivered, dropped (all
		// of them at the tail, here) or still queued at the end.
		if !run.ConservationOK || run.DataSent != p.PacketsSent || run.DataSent == 0 || run.Dropped != p.TailDrops ||
			run.DeliveredFull+run.Dropped+run.InFlight != run.DataSent || run.InFlight == 0 {
			t.Errorf("%s: ledger: conservation %v, %d sent (%d by the sources), %d delivered + %d dropped (%d at the tail) + %d in flight",
				run.Variant, run.ConservationOK, run.DataSent, p.PacketsSent, run.DeliveredFull, run.Dropped, p.TailDrops, run.InFlight)
		}
	}
}

// Two runs with the same seed give the same JSON, byte for byte.
func TestPIERunsDeterministic(t *testing.T) {
	a, _ := json.Marshal(shortRiseFall(t, 3000, "PIE_TABLE", "ns3-default").Runs)
	b, _ := json.Marshal(shortRiseFall(t, 3000, "PIE_TABLE", "ns3-default").Runs)
	if string(a) != string(b) {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

// A short pie-tcp run: the CUBIC connections fill the bottleneck; PIE_CP's
// queue stays above delay_ref while PIE_DP's is kept far below it.
func TestPIETCPShort(t *testing.T) {
	if testing.Short() {
		t.Skip("0.2 s of 10 Gb/s TCP")
	}
	s, err := Load("pie-tcp")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = 200000
	s.Sweep.Values = []string{"10"}
	if err := s.KeepVariant("PIE_CP"); err != nil {
		t.Fatal(err)
	}
	r, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Runs[0].PIERun
	if p.TotalGoodputGbps < 8.5 || p.TotalGoodputGbps > 9.5 {
		t.Errorf("PIE_CP, 10 connections: goodput %.2f Gb/s, want close to the 9.41 Gb/s of a 10 Gb/s link", p.TotalGoodputGbps)
	}
	if p.PacketsSent < 100000 {
		t.Errorf("%d segments sent in 0.2 s", p.PacketsSent)
	}
	// The segments' ledger: every data segment sent is delivered, dropped
	// or still in flight, none delivered twice; segments due after the
	// deadline count in packets_sent but are never sent.
	if run := r.Runs[0]; !run.ConservationOK || run.DataSent < 100000 || run.DataSent > p.PacketsSent ||
		run.DeliveredFull+run.InFlight > run.DataSent {
		t.Errorf("PIE_CP ledger: conservation %v, %d sent (%d counted by the senders), %d delivered, %d in flight",
			run.ConservationOK, run.DataSent, p.PacketsSent, run.DeliveredFull, run.InFlight)
	}
	if p.QueueDelayUs.P50 < 125 {
		t.Errorf("PIE_CP median queueing delay %.1f us, want above delay_ref (the paper's finding)", p.QueueDelayUs.P50)
	}
}

// Bad PIE scenarios are refused at load or preflight, naming the field.
func TestBadPIEScenarios(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "configs", "scenarios", "pie-risefall.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	cases := []loadCase{
		{"", "", ""},
		{"aqm: {switch: B, host: 2, sample_us: 10, plot_us: 2000}", "", "aqm: missing"},
		{"aqm: {switch: B, host: 2, sample_us: 10", "aqm: {switch: C, host: 2, sample_us: 10", `aqm.switch: no switch "C"`},
		{"sample_us: 10,", "sample_us: 0,", "aqm.sample_us: got 0"},
		{"low_rate_gbps: 5 ", "low_rate_gbps: 500 ", "workload.low_rate_gbps: got 500"},
		{"aqm: {register: drop_prob_reg, control: pie-cp}", "aqm: {register: drop_prob_reg, control: pie-xx}", `aqm.control: got "pie-xx"`},
		{"aqm: {register: drop_prob_reg, control: pie-cp}", "aqm: {control: pie-cp}", "aqm.register: missing"},
	}
	wantLoadErrors(t, good, cases)

	// Errors only a loaded program shows: the preflight finds them.
	dir := t.TempDir()
	for i, c := range []loadCase{
		{"aqm: {register: drop_probability_reg, updates: [drop_probability_reg.add, drop_probability_reg.sub]}",
			"aqm: {register: drop_probability_reg, updates: [drop_probability_reg.add, drop_probability_reg.sub], control: pie-cp}",
			"control pie-cp: program pie-dp has no register delay_reg"},
		{"aqm: {register: drop_prob_reg, control: pie-cp}", "aqm: {register: drop_reg, control: pie-cp}", `register: program pie-cp has no register "drop_reg"`},
		{"updates: [drop_probability_reg.add, drop_probability_reg.sub]}", "updates: [drop_probability_reg.nope]}", `"drop_probability_reg.nope" is not a register action`},
	} {
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(good, c.from, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		err = s.Preflight(Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "s.yaml:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("case %d: preflight error %v, want one line naming the file and containing %q", i, err, c.want)
		}
	}
}

// TestAQMHostBehindItsSwitch: the bottleneck is aqm.switch's port to
// aqm.host, so a host behind another switch is refused at its line (the
// run failed later, exit 1, blaming the program's register).
func TestAQMHostBehindItsSwitch(t *testing.T) {
	_, err := loadEdited(t, "pie-risefall", "aqm: {switch: B, host: 2,", "aqm: {switch: B, host: 0,")
	if err == nil || !strings.Contains(err.Error(), "aqm.host: host 0 is not behind switch B (its hosts: [1 2])") {
		t.Fatalf("error %v, want host 0 refused as not behind B", err)
	}
}

// A udp-risefall run's senders are its flows (one), not its hosts
// (three: it read 3).
func TestRiseFallSendersAreItsFlows(t *testing.T) {
	s, err := loadEdited(t, "pie-risefall", "duration_us: 15000000", "duration_us: 200")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.KeepVariant("ns3-rfc"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Runs[0].Senders; got != 1 {
		t.Errorf("senders %d, want 1 (one flow)", got)
	}
}
