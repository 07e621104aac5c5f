package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressSilentOffTerminal: progress goes to a terminal only; a
// command whose stderr is a buffer (a pipe, CI, the goldens) prints none.
func TestProgressSilentOffTerminal(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenario", "trim-modes", "--no-files"},
		{"validate", "--only", "pie.placement"},
	} {
		var out, errb bytes.Buffer
		cmd := newRootCmd(&out)
		cmd.SetArgs(args)
		cmd.SetErr(&errb)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if errb.Len() != 0 {
			t.Errorf("%v: stderr is not a terminal, yet got %q", args, errb.String())
		}
	}
}

// TestProgressDisplay: steps are lines, the status line is repainted and
// removed at the end; a nil display does nothing.
func TestProgressDisplay(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, start: time.Now(), stop: make(chan struct{})}
	p.Status("run [1/2] a")
	p.Line("[1/2] a: ok")
	p.Writer().Write([]byte("[2/2] b: ok\n"))
	p.Stop()
	p.Stop()
	got := buf.String()
	for _, want := range []string{"\r\033[Krun [1/2] a (0 s)", "\r\033[K[1/2] a: ok\n", "[2/2] b: ok\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output %q lacks %q", got, want)
		}
	}
	if !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("the status line is not removed at the end: %q", got)
	}
	var none *progress
	none.Status("x")
	none.Line("y")
	none.Stop()
	if none.Writer() != nil {
		t.Errorf("a nil progress has a writer")
	}
}
