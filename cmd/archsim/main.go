// Command archsim models network switch ASICs: it places a data-plane
// program on a chip (or says precisely why it cannot), measures per-packet
// pipeline latency by simulation on the Akita engine, and checks the model
// against the papers' numbers (archsim validate). See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"archsim/engine"
)

// exitError carries an exit status with a message already printed or to
// print.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	tuneGC()
	sig := interruptOnSignal()
	cmd := newRootCmd(os.Stdout)
	err := cmd.Execute()
	prof.finish(err)
	if err != nil && engine.Interrupted() {
		// The simulations stopped at the signal and the command's failure
		// path removed what it wrote: 128 + the signal, as a shell reports.
		fmt.Fprintf(os.Stderr, "archsim: interrupted (%v): stopped; the files this command was writing were removed\n", sig.Load())
		os.Exit(signalExit(sig.Load()))
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(os.Stderr, "archsim: "+ee.msg)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "archsim: "+oneLine(err.Error()))
		os.Exit(2)
	}
}

func oneLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// interruptOnSignal makes SIGINT and SIGTERM stop the running simulations
// (engine.Interrupt: each stops within a few thousand events and fails, so
// the command removes the captures, records and files it was writing);
// a second signal exits at once. It returns where the first signal is
// kept.
func interruptOnSignal() *atomic.Value {
	var got atomic.Value
	got.Store(os.Signal(syscall.SIGINT))
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		got.Store(s)
		engine.Interrupt()
		select {
		case s = <-ch:
			fmt.Fprintf(os.Stderr, "archsim: %v again: exiting at once\n", s)
		case <-time.After(interruptGrace):
			// Not in a simulation (loading a program, placing it): nothing
			// looks at the flag, and nothing is half-written yet.
			fmt.Fprintf(os.Stderr, "archsim: %v: no simulation stopped within %v: exiting\n", s, interruptGrace)
		}
		os.Exit(signalExit(s))
	}()
	return &got
}

// interruptGrace is how long a signalled command has to stop its
// simulations and take back its files before it exits regardless.
const interruptGrace = 5 * time.Second

// signalExit is the exit status of a process a signal ended: 128 + its
// number (130 for SIGINT, 143 for SIGTERM).
func signalExit(s any) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}
