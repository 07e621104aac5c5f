package programs

import "gopkg.in/yaml.v3"

// maxTimerThreads bounds a timer's threads: std.timer_index is 16 bits.
const maxTimerThreads = 1 << 16

// declareTimers is the first pass over timers: it registers every name, so
// that code calling a timer as if it were a function gets a clear error
// whatever the declaration order. n is the timers mapping, or a zero node
// when there is none.
func (l *loader) declareTimers(n node) error {
	l.timers = map[string]*Timer{}
	if n.n == nil {
		return nil
	}
	ps, err := n.pairs()
	if err != nil {
		return err
	}
	for _, p := range ps {
		t := &Timer{Name: p.key, Threads: 1, Pos: Pos{File: l.file, Line: p.line}}
		l.timers[t.Name] = t
		l.prog.Timers = append(l.prog.Timers, t)
		l.tmBodies = append(l.tmBodies, p)
	}
	return nil
}

// MaxTimerPeriodNs bounds a timer's period: 1000 s is far past any run
// (the engine's clock counts picoseconds in 64 bits, about 106 days).
const MaxTimerPeriodNs = 1_000_000_000_000

// loadTimers is the second pass, after the functions: it checks the
// names, reads period_ns and threads (constant expressions) and parses
// each body (control code).
func (l *loader) loadTimers(node) error {
	for i, p := range l.tmBodies {
		t := l.prog.Timers[i]
		// Errors about the timer as a whole sit on its name's line.
		at := node{n: &yaml.Node{Kind: yaml.ScalarNode, Line: p.line}, file: l.file, what: p.val.path()}
		if err := l.checkCodeName(at, t.Name, "timer"); err != nil {
			return err
		}
		if !p.val.isMap() {
			return at.errf("a timer is a mapping {period_ns: N, threads: K, do: code}")
		}
		f, err := p.val.fields("period_ns", "threads", "do")
		if err != nil {
			return err
		}
		pn, ok := f["period_ns"]
		if !ok {
			return at.errf("missing period_ns (the time between two starts of the timer's threads)")
		}
		if t.PeriodNs, err = l.consts.intValue(pn); err != nil {
			return err
		}
		if t.PeriodNs <= 0 || t.PeriodNs > MaxTimerPeriodNs {
			return pn.errf("must be 1..%d ns (1000 s), got %d", int64(MaxTimerPeriodNs), t.PeriodNs)
		}
		if tn, ok := f["threads"]; ok {
			v, err := l.consts.intValue(tn)
			if err != nil {
				return err
			}
			if v < 1 || v > maxTimerThreads {
				return tn.errf("threads must be 1..%d (std.timer_index is 16 bits), got %d", maxTimerThreads, v)
			}
			t.Threads = int(v)
		}
		do, ok := f["do"]
		if !ok {
			return at.errf("missing do (the timer's control code)")
		}
		if !do.isScalar() {
			return do.errf("a timer's do is control code (a string, e.g. do: |)")
		}
		if do.n.Tag == "!!null" {
			continue // a timer that does nothing
		}
		c := l.code(do, ctxControl)
		c.what = "timer " + t.Name
		if t.Body, err = c.parse(); err != nil {
			return err
		}
	}
	return nil
}
