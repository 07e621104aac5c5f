package validation

import (
	"errors"
	"testing"
)

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      check
		v      []float64
		pass   bool
		target float64
	}{
		{"near inside", near(6, 1), []float64{6.9}, true, 6},
		{"near at the edge", near(6, 1), []float64{7}, true, 6},
		{"near outside", near(6, 1), []float64{7.1}, false, 6},
		{"rel", rel(12, 0.25), []float64{9}, true, 12},
		{"rel outside", rel(12, 0.25), []float64{8.9}, false, 12},
		{"atMost", atMost(250), []float64{250}, true, 250},
		{"atMost above", atMost(250), []float64{251}, false, 250},
		{"atLeast", atLeast(0.95), []float64{0.95}, true, 0.95},
		{"atLeast below", atLeast(0.95), []float64{0.94}, false, 0.95},
		{"between", between(0, 0.2, 0.1), []float64{0.2}, true, 0.1},
		{"between below", between(0, 0.2, 0.1), []float64{-0.01}, false, 0.1},
		{"equal", equal(4), []float64{4}, true, 4},
		{"equal off", equal(4), []float64{3}, false, 4},
		{"every value", equal(0), []float64{0, 0}, true, 0},
		{"every value, second off", equal(0), []float64{0, 1}, false, 0},
		{"holds", holds(4096), []float64{1}, true, 4096},
		{"holds not", holds(1), []float64{0}, false, 1},
		{"each", each(near(6, 1), atLeast(0.9)), []float64{6, 0.9}, true, 6},
		{"each, second off", each(near(6, 1), atLeast(0.9)), []float64{6, 0.8}, false, 6},
		{"each, wrong count", each(near(6, 1), atLeast(0.9)), []float64{6}, false, 6},
		{"expecting", atMost(2.05).expecting(2), []float64{2.05}, true, 2},
	} {
		if got := tc.c.pass(tc.v); got != tc.pass || tc.c.target != tc.target {
			t.Errorf("%s: pass %v, target %g; want %v, %g", tc.name, got, tc.c.target, tc.pass, tc.target)
		}
	}
}

func TestClaimRun(t *testing.T) {
	probe := func(rd reading) Claim { return Claim{probe: func(*Context) reading { return rd }, check: atMost(2)} }
	long := probe(read("1", 1))
	long.long = true
	for _, tc := range []struct {
		name string
		cl   Claim
		want Result
	}{
		{"pass", probe(read("1.5 x", 1.5)), Result{Measured: "1.5 x", Pass: true, Value: 1.5, Target: 2}},
		{"fail", probe(read("3 x", 3)), Result{Measured: "3 x", Value: 3, Target: 2}},
		{"reporting", probe(read("a, b", 1, 1).reporting(0)), Result{Measured: "a, b", Pass: true, Target: 2}},
		{"unmeasured", probe(unmeasured("nothing", 7)), Result{Measured: "nothing", Target: 7}},
		{"error", probe(broken(errors.New("boom"))), Result{Measured: "error", Err: "boom"}},
		{"long, short run", long, skipLong()},
	} {
		if got := tc.cl.run(NewContext()); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestClaimRows checks that every claim names what it measures and how it
// is checked.
func TestClaimRows(t *testing.T) {
	ids := map[string]bool{}
	for _, cl := range Claims() {
		switch {
		case cl.ID == "" || cl.Source == "" || cl.Expected == "" || cl.Tolerance == "":
			t.Errorf("%q: a claim needs an id, a source, the expected value and a tolerance", cl.ID)
		case ids[cl.ID]:
			t.Errorf("%s: duplicate id", cl.ID)
		case (cl.scenario != "") != (cl.measure != nil) || (cl.scenario == "") != (cl.probe != nil):
			t.Errorf("%s: a claim has a scenario and a measure, or a probe", cl.ID)
		case len(cl.values) > 0 && cl.scenario == "":
			t.Errorf("%s: sweep values without a scenario", cl.ID)
		case cl.check.pass == nil:
			t.Errorf("%s: no check", cl.ID)
		}
		ids[cl.ID] = true
	}
}

// TestClaimsShareRuns checks that claims reading different variants of a
// scenario share the runs they have in common, and that the prefetch makes
// every run its claims need, once.
func TestClaimsShareRuns(t *testing.T) {
	ctx := NewContext()
	one, err := ctx.scenarioOf("trim-fig5a", []string{"Ideal"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := ctx.scenario("trim-fig5a")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Runs) != 1 || all.Find("Ideal", "") != one.Runs[0] {
		t.Error("the whole scenario made Ideal's run again")
	}
	if len(ctx.runs) != len(all.Runs) {
		t.Errorf("%d runs made for a scenario of %d", len(ctx.runs), len(all.Runs))
	}

	ctx = NewContext()
	ctx.prefetch([]Claim{
		{scenario: "trim-fig5a", variants: []string{"Ideal", "Tofino"}},
		{probe: func(*Context) reading { return reading{} }, needs: []need{{scenario: "trim-fig5a"}}},
		{scenario: "trim-fig6", long: true}, // skipped: not a long context
	})
	made := len(ctx.runs)
	if made != len(all.Runs) {
		t.Errorf("the prefetch made %d runs, the claims need %d", made, len(all.Runs))
	}
	if _, err := ctx.scenarioOf("trim-fig5a", []string{"Tofino"}); err != nil {
		t.Fatal(err)
	}
	if len(ctx.runs) != made {
		t.Error("a claim made a run the prefetch had made")
	}
}

// TestSeeds checks that a need's seedPlus and the context's SeedOffset run
// a scenario at its seed plus both, apart from the runs at its own seed,
// and that another seed gives another run (trim-fig5a's hosts jitter their
// starts by the seed).
func TestSeeds(t *testing.T) {
	ctx := NewContext()
	base, err := ctx.scenarioOf("trim-fig5a", []string{"Tofino"})
	if err != nil {
		t.Fatal(err)
	}
	plus, err := ctx.result(need{scenario: "trim-fig5a", variants: []string{"Tofino"}, seedPlus: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.runs) != 2 {
		t.Fatalf("%d runs made, want one per seed", len(ctx.runs))
	}
	seed := base.Scenario.Seed
	if base.Runs[0].Seed != seed || plus.Runs[0].Seed != seed+2 {
		t.Errorf("runs at seeds %d and %d, want %d and %d", base.Runs[0].Seed, plus.Runs[0].Seed, seed, seed+2)
	}
	off := NewContext()
	off.SeedOffset = 1
	shifted, err := off.result(need{scenario: "trim-fig5a", variants: []string{"Tofino"}, seedPlus: 1})
	if err != nil {
		t.Fatal(err)
	}
	if shifted.Runs[0].Seed != seed+2 || off.seedOf(shifted) != seed+1 {
		t.Errorf("offset 1 + seedPlus 1: run at seed %d (want %d), context seed %d (want %d)", shifted.Runs[0].Seed, seed+2, off.seedOf(shifted), seed+1)
	}
	if a, b := plus.Runs[0], base.Runs[0]; a.Events == b.Events && a.Trims == b.Trims {
		t.Errorf("seed+2 gave the scenario seed's run (%d events, %d trims)", a.Events, a.Trims)
	}
}
