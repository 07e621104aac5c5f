package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// profiler writes Go's CPU and heap profiles for any command
// (--cpuprofile, --memprofile), for `go tool pprof`.
type profiler struct {
	cpuFile, memFile string
	cpu, mem         *os.File
}

var prof profiler

// tieBreak is --tie-break (engine.ParseOrder), set for the whole process.
var tieBreak string

// start begins the CPU profile and opens the heap profile's file, if
// asked for (a path that cannot be written is refused before any work).
func (p *profiler) start() error {
	if p.memFile != "" && p.cpuFile != "" && filepath.Clean(p.memFile) == filepath.Clean(p.cpuFile) {
		return &exitError{code: 2, msg: fmt.Sprintf("--cpuprofile and --memprofile both name %s: one profile would overwrite the other", p.cpuFile)}
	}
	if p.memFile != "" {
		f, err := os.Create(p.memFile)
		if err != nil {
			return &exitError{code: 2, msg: fmt.Sprintf("--memprofile: %v", err)}
		}
		p.mem = f
	}
	if p.cpuFile == "" {
		return nil
	}
	f, err := os.Create(p.cpuFile)
	if err != nil {
		return &exitError{code: 2, msg: fmt.Sprintf("--cpuprofile: %v", err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return &exitError{code: 2, msg: fmt.Sprintf("--cpuprofile: %v", err)}
	}
	p.cpu = f
	return nil
}

// stop ends the CPU profile and writes the heap profile (allocations over
// the whole run), if asked for.
func (p *profiler) stop() {
	if p.cpu != nil {
		pprof.StopCPUProfile()
		p.cpu.Close()
		p.cpu = nil
	}
	if p.mem == nil {
		return
	}
	f := p.mem
	p.mem = nil
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintf(os.Stderr, "archsim: --memprofile: %v\n", err)
	}
}

// finish ends the profiles after the command: written when it ran (exit
// 0, or 1: it ran and found a program does not fit or a result wrong),
// removed when it refused its input (exit 2).
func (p *profiler) finish(err error) {
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.code == 2) {
		p.abandon()
		return
	}
	p.stop()
}

// abandon ends the profiles of a command that refused its input and
// removes their files: nothing is left half-written by a rejected run.
func (p *profiler) abandon() {
	if p.cpu != nil {
		pprof.StopCPUProfile()
		p.cpu.Close()
		p.cpu = nil
		os.Remove(p.cpuFile)
	}
	if p.mem != nil {
		p.mem.Close()
		p.mem = nil
		os.Remove(p.memFile)
	}
}
