// Command archsim models network switch ASICs: it places a data-plane
// program on a chip (or says precisely why it cannot), measures per-packet
// pipeline latency by simulation on the Akita engine, and checks the model
// against the papers' numbers (archsim validate). See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
)

// gcPercent is the Go collector's target unless GOGC says otherwise. A
// simulation allocates packets fast and keeps little alive (its live heap
// is bounded by the packets in flight), so collecting at every doubling of
// a small heap costs a fifth of the run in marking and write barriers;
// letting the heap grow to 5x the live data trades a few tens of MB for
// that time.
const gcPercent = 400

// exitError carries an exit status with a message already printed or to
// print.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	cmd := newRootCmd(os.Stdout)
	err := cmd.Execute()
	prof.stop()
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
