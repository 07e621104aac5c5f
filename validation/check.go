package validation

import "math"

// The skeleton every claim shares: what a measurement returns (a reading),
// the checks a claim's row names, and the run that puts them together.

// reading is what a claim measured.
type reading struct {
	text  string    // the measured text
	value float64   // reported as the measured value
	v     []float64 // what the check tests
	err   error     // the measurement failed
	// fail decides the claim without the check (nothing to measure),
	// reporting value 0 and target.
	fail   bool
	target float64
}

// read is a reading of the values the check tests; the first is reported.
func read(text string, value float64, more ...float64) reading {
	return reading{text: text, value: value, v: append([]float64{value}, more...)}
}

// decided is a reading of a measurement that tested the claim itself:
// ok is reported (and checked by holds) as 1 or 0.
func decided(text string, ok bool) reading { return read(text, b2f(ok)) }

// unmeasured fails a claim that had nothing to measure, reporting value 0
// and target.
func unmeasured(text string, target float64) reading {
	return reading{text: text, fail: true, target: target}
}

// reporting reports value as the measured value instead of the first
// value the check tests.
func (rd reading) reporting(value float64) reading { rd.value = value; return rd }

// broken reports a measurement that failed with err.
func broken(err error) reading { return reading{err: err} }

// check decides a claim from its measured values and names the expected
// value reported beside them.
type check struct {
	target float64
	pass   func(v []float64) bool
}

// The checks below test every measured value (one, unless a reading has
// more) and report their value or bound as the expected value.

// every checks that ok holds for every measured value, reporting target.
func every(target float64, ok func(x float64) bool) check {
	return check{target, func(v []float64) bool {
		for _, x := range v {
			if !ok(x) {
				return false
			}
		}
		return true
	}}
}

// near: |x - want| ≤ tol (plus 1e-9 for rounding), reporting want.
func near(want, tol float64) check {
	return every(want, func(x float64) bool { return within(x, want, tol) })
}

// rel: near want within a fraction of it, |x - want| ≤ want·frac.
func rel(want, frac float64) check { return near(want, want*frac) }

// atMost: x ≤ limit.
func atMost(limit float64) check {
	return every(limit, func(x float64) bool { return x <= limit })
}

// atLeast: x ≥ limit.
func atLeast(limit float64) check {
	return every(limit, func(x float64) bool { return x >= limit })
}

// between: lo ≤ x ≤ hi, reporting target.
func between(lo, hi, target float64) check {
	return every(target, func(x float64) bool { return x >= lo && x <= hi })
}

// equal: x == want exactly (for counts).
func equal(want float64) check {
	return every(want, func(x float64) bool { return x == want })
}

// holds: the measurement's own test passed (a decided reading), reporting
// target.
func holds(target float64) check {
	return every(target, func(x float64) bool { return x == 1 })
}

// each checks the i-th measured value with the i-th check, reporting the
// first check's target.
func each(cs ...check) check {
	return check{cs[0].target, func(v []float64) bool {
		if len(v) != len(cs) {
			return false
		}
		for i, c := range cs {
			if !c.pass(v[i : i+1]) {
				return false
			}
		}
		return true
	}}
}

// expecting reports target as the expected value instead of the check's.
func (c check) expecting(target float64) check { c.target = target; return c }

// run measures the claim in a context.
func (cl Claim) run(c *Context) Result {
	if cl.full && !c.Full {
		return skipFull()
	}
	if cl.long && !c.Long {
		return skipLong()
	}
	var rd reading
	if cl.scenario != "" {
		r, err := c.scenarioOf(cl.scenario, cl.variants, cl.values...)
		if err != nil {
			return failed(err)
		}
		rd = cl.measure(r)
	} else {
		rd = cl.probe(c)
	}
	switch {
	case rd.err != nil:
		return failed(rd.err)
	case rd.fail:
		return Result{Measured: rd.text, Pass: false, Target: rd.target}
	}
	return Result{Measured: rd.text, Pass: cl.check.pass(rd.v), Value: rd.value, Target: cl.check.target}
}

// A claim that was not run neither passes nor fails: Pass is false and
// Skipped says why (a count of passing claims must not include it).

func skipLong() Result {
	return Result{Measured: "not run (set ARCHSIM_LONG=1 to run this sweep under go test)", Skipped: true}
}

func skipFull() Result {
	return Result{Measured: "not run (about 15 minutes more: archsim validate --full, or ARCHSIM_FULL=1 under go test)", Skipped: true}
}

func failed(err error) Result {
	return Result{Measured: "error", Err: err.Error(), Pass: false}
}

// within reports |got - want| <= tol.
func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol+1e-9 }
