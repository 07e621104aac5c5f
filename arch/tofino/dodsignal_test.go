package tofino

import (
	"fmt"
	"strings"
	"testing"

	"archsim/components/packet"
	"archsim/programs"
)

// tmSignal is tmDoD's setup plus a register the deflect-on-drop signal arms
// with the delivery time (ns), and the signal itself.
const tmSignal = `registers:
  armed:
    width: 32
    size: 256
    actions:
      arm: value = std.tstamp[31:0]
tm:
  queues:
    - {qid: 0, priority: 0, limit_cells: 30}
    - {qid: 1, priority: 6}
  on_drop: {mode: deflect, queue: 1, signal: {latency_ns: %d, arm: [armed.arm]}}
`

type regCall struct {
	pipe  int
	index int64
	at    int64
}

// armedCalls records the calls of the signal's register action "armed"
// (in the slice the returned pointer points to).
func armedCalls(r *tmRig) *[]regCall {
	var calls []regCall
	r.sw.TraceRegister(func(pipe int, ra *programs.RegisterAction, index int64, now int64) {
		if ra.Register.Name == "armed" {
			calls = append(calls, regCall{pipe, index, now})
		}
	})
	return &calls
}

// dodBurst sends twenty 200-byte deflect-on-drop packets to port 1 (paused
// by the caller), one per 800 ps, resumes the port at 5 us and runs: ten
// fit the data queue, ten are deflected.
func dodBurst(r *tmRig) {
	tm := r.sw.TM()
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
}

// TestDoDSignalReachesEveryPipe: ten packets deflected into pipe 0's DoD
// queue; each dequeue from that queue arms the signal's register in every
// pipe, on the cell of the packet's original port (1), exactly 1 us later,
// with std.tstamp the delivery time.
func TestDoDSignalReachesEveryPipe(t *testing.T) {
	r := newTMRigProg(t, tmProg(t, "", "", fmt.Sprintf(tmSignal, 1000)))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	var deq dequeueTrace
	tm.TraceDeflectQueue(0, deq.f)
	recorded := armedCalls(r)
	dodBurst(r)
	calls := *recorded
	if tm.Stats.Deflected != 10 || len(deq.deqs) != 10 {
		t.Fatalf("%d deflected, %d DoD dequeues; want 10 and 10", tm.Stats.Deflected, len(deq.deqs))
	}
	if raised, arrived := r.sw.DoDSignals(); raised != 10 || arrived != 10 {
		t.Errorf("DoDSignals() = %d, %d; want 10, 10", raised, arrived)
	}
	if len(calls) != 4*len(deq.deqs) {
		t.Fatalf("%d register calls, want 4 pipes x %d dequeues: %v", len(calls), len(deq.deqs), calls)
	}
	for k, d := range deq.deqs {
		for pipe := 0; pipe < 4; pipe++ {
			c := calls[4*k+pipe]
			if want := (regCall{pipe, 1, d + 1_000_000}); c != want {
				t.Errorf("signal %d, pipe %d: %+v, want %+v (DoD dequeue at %d ps + 1 us)", k, pipe, c, want, d)
			}
		}
	}
	reg := r.sw.prog.Register("armed")
	last := (deq.deqs[len(deq.deqs)-1] + 1_000_000) / 1000
	for pipe, st := range r.sw.StateControl.States {
		if got := st.Regs[reg.Index].Get(1); got != last {
			t.Errorf("pipe %d: armed[1] = %d, want the last signal's time %d ns", pipe, got, last)
		}
	}
	r.conserve()
}

// TestDoDSignalOff: latency 0 (the program's as-written path) raises no
// signal and arms nothing.
func TestDoDSignalOff(t *testing.T) {
	r := newTMRigProg(t, tmProg(t, "", "", fmt.Sprintf(tmSignal, 0)))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	n := 0
	r.sw.TraceRegister(func(int, *programs.RegisterAction, int64, int64) { n++ })
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
	if tm.Stats.Deflected != 10 {
		t.Fatalf("%d deflected, want 10", tm.Stats.Deflected)
	}
	if raised, _ := r.sw.DoDSignals(); raised != 0 || n != 0 {
		t.Errorf("%d signals raised, %d register calls; want none", raised, n)
	}
}

// TestDoDSignalBadAction: the signal names an action that does not exist.
func TestDoDSignalBadAction(t *testing.T) {
	src := strings.Replace(strings.Replace(tmProgram, "#HEADERS\n", "", 1), "#EGRESS\n", "", 1) +
		strings.Replace(fmt.Sprintf(tmSignal, 1000), "armed.arm]", "armed.nope]", 1)
	_, err := programs.Load([]byte(src), "tm_test.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), `no action "nope"`) {
		t.Fatalf("err = %v, want a one-line error naming the missing action", err)
	}
}

// TestDoDSignalToOrigin: with to_origin only the pipe whose DoD queue the
// packet left (pipe 0: it came in on port 0) is armed, 1 us after each
// dequeue.
func TestDoDSignalToOrigin(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(tmSignal, 1000), "signal: {", "signal: {to_origin: 1, ", 1)
	r := newTMRigProg(t, tmProg(t, "", "", src))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	var deq dequeueTrace
	tm.TraceDeflectQueue(0, deq.f)
	var calls []regCall
	r.sw.TraceRegister(func(pipe int, ra *programs.RegisterAction, index int64, now int64) {
		calls = append(calls, regCall{pipe, index, now})
	})
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
	if len(deq.deqs) != 10 || len(calls) != 10 {
		t.Fatalf("%d DoD dequeues, %d register calls; want 10 and 10 (pipe 0 only): %v", len(deq.deqs), len(calls), calls)
	}
	for k, d := range deq.deqs {
		if want := (regCall{0, 1, d + 1_000_000}); calls[k] != want {
			t.Errorf("signal %d: %+v, want %+v", k, calls[k], want)
		}
	}
}

// TestDoDSignalMinBacklog: with min_backlog_cells 3 (one 200-byte packet)
// only dequeues that leave a packet behind raise the signal: of the DoD
// queue's depths after each dequeue (0, then 8 down to 0 packets), eight.
func TestDoDSignalMinBacklog(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(tmSignal, 1000), "signal: {", "signal: {min_backlog_cells: 3, ", 1)
	r := newTMRigProg(t, tmProg(t, "", "", src))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	var deq dequeueTrace
	tm.TraceDeflectQueue(0, deq.f)
	for k := 0; k < 20; k++ {
		r.send(0, int64(k)*800, 200, tmHdr{port: 1, dod: true})
	}
	r.at(5_000_000, func(now int64) { tm.Pause(1, 0, false, now) })
	r.run()
	left := 0
	for i, d := range deq.depths {
		if i > 0 && d < deq.depths[i-1] && d > 0 {
			left++
		}
	}
	if raised, arrived := r.sw.DoDSignals(); raised != left || arrived != left || left != 8 {
		t.Errorf("DoDSignals() = %d, %d; want %d dequeues that leave a packet (8)", raised, arrived, left)
	}
}

// TestDoDSignalAtDeflect: with at_deflect 1 the signal leaves when a packet
// is deflected into the DoD queue, not when it leaves it: with the
// recirculation port paused until 5 us, all ten signals arrive 1 us after
// their deflections, before the first dequeue. A bad value and the
// combination with min_backlog_cells are refused where they stand.
func TestDoDSignalAtDeflect(t *testing.T) {
	src := strings.Replace(fmt.Sprintf(tmSignal, 1000), "signal: {", "signal: {at_deflect: 1, ", 1)
	r := newTMRigProg(t, tmProg(t, "", "", src))
	tm := r.sw.TM()
	tm.Pause(1, 0, true, 0)
	var deflected []int64
	tm.OnDeflect(func(now int64, _ *packet.Packet) { deflected = append(deflected, now) })
	recorded := armedCalls(r)
	dodBurst(r)
	calls := *recorded
	if raised, arrived := r.sw.DoDSignals(); raised != 10 || arrived != 10 || len(deflected) != 10 {
		t.Fatalf("DoDSignals() = %d, %d with %d deflections; want 10, 10, 10", raised, arrived, len(deflected))
	}
	if len(calls) != 40 {
		t.Fatalf("%d register calls, want 4 pipes x 10", len(calls))
	}
	for k, c := range calls {
		if want := deflected[k/4] + 1_000_000; c.at != want || c.index != 1 {
			t.Errorf("signal %d: %+v, want index 1 at %d ps (its deflection + 1 us)", k, c, want)
		}
	}
	for _, bad := range []struct{ sig, msg string }{
		{"signal: {at_deflect: 2, ", "at_deflect must be 0 or 1"},
		{"signal: {at_deflect: 1, min_backlog_cells: 3, ", "cannot go with at_deflect 1"},
	} {
		src := strings.Replace(fmt.Sprintf(tmSignal, 1000), "signal: {", bad.sig, 1)
		_, err := programs.Load([]byte(strings.Replace(strings.Replace(tmProgram, "#HEADERS\n", "", 1), "#EGRESS\n", "", 1)+src), "tm_test.yaml", nil)
		if err == nil || !strings.Contains(err.Error(), bad.msg) || !strings.Contains(err.Error(), "tm_test.yaml:") {
			t.Errorf("%q: error %v, want one naming the line and %q", bad.sig, err, bad.msg)
		}
	}
}
