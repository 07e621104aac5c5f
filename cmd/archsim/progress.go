package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// progress shows what a long command is doing on stderr: finished steps
// as lines, and below them one status line (what runs now, seconds
// elapsed) repainted every second. It is silent with --quiet or when
// stderr is not a terminal, so that pipes, CI logs and the goldens see
// nothing of it. A nil *progress does nothing.
type progress struct {
	w      io.Writer
	mu     sync.Mutex
	start  time.Time
	status string
	shown  bool // a status line is on screen
	stop   chan struct{}
	done   sync.WaitGroup
	once   sync.Once
}

// startProgress returns the command's progress display, or nil when quiet
// or when stderr is not a terminal.
func startProgress(cmd *cobra.Command, quiet bool) *progress {
	if quiet || !isTerminal(cmd.ErrOrStderr()) {
		return nil
	}
	p := &progress{w: cmd.ErrOrStderr(), start: time.Now(), stop: make(chan struct{})}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.paint()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// paint redraws the status line (the caller holds mu).
func (p *progress) paint() {
	if p.status == "" {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s (%.0f s)", p.status, time.Since(p.start).Seconds())
	p.shown = true
}

// clear removes the status line (the caller holds mu).
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// Status sets what runs now.
func (p *progress) Status(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = fmt.Sprintf(format, args...)
	p.paint()
}

// Line prints a finished step above the status line.
func (p *progress) Line(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, format+"\n", args...)
	p.paint()
}

// Writer is an io.Writer whose lines become progress lines (for packages
// that report progress as lines: scenarios, validation); nil when the
// progress is off.
func (p *progress) Writer() io.Writer {
	if p == nil {
		return nil
	}
	return progressLines{p}
}

type progressLines struct{ p *progress }

func (l progressLines) Write(b []byte) (int, error) {
	for _, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		l.p.Line("%s", line)
	}
	return len(b), nil
}

// Stop ends the display and removes the status line (again: nothing).
func (p *progress) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		p.done.Wait()
		p.mu.Lock()
		p.clear()
		p.status = ""
		p.mu.Unlock()
	})
}
