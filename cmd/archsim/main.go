// Command archsim models network switch ASICs: it places a data-plane
// program on a chip (or says precisely why it cannot), measures per-packet
// pipeline latency by simulation on the Akita engine, and checks the model
// against the papers' numbers (archsim validate). See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
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
	cmd := newRootCmd(os.Stdout)
	err := cmd.Execute()
	prof.finish(err)
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
