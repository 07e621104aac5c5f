package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run this package's main in a child process (the
// signal test needs a process to interrupt).
func TestMain(m *testing.M) {
	if os.Getenv("ARCHSIM_TEST_MAIN") == "1" {
		os.Args = append([]string{"archsim"}, strings.Split(os.Getenv("ARCHSIM_TEST_ARGS"), "\x1f")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// SIGINT (and SIGTERM) in the middle of a run stop its simulations; the
// command removes the run directories, captures and records it was
// writing and exits 128 + the signal.
func TestInterruptRemovesOutputs(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		out, pcap, rec := filepath.Join(dir, "out"), filepath.Join(dir, "pcap"), filepath.Join(dir, "rec")
		args := []string{"run", "--scenario", "trim-fig6", "--quiet", "--out", out, "--pcap", pcap, "--records", rec}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "ARCHSIM_TEST_MAIN=1", "ARCHSIM_TEST_ARGS="+strings.Join(args, "\x1f"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Interrupt once the run is writing: its records exist.
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if files, _ := filepath.Glob(filepath.Join(rec, "*.csv")); len(files) > 0 || time.Now().After(deadline) {
				break
			}
		}
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.code {
			t.Errorf("%v: %v, want exit %d", c.sig, err, c.code)
		}
		for _, p := range []string{out, pcap, rec} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%v: %s is still there (%v)", c.sig, p, err)
			}
		}
	}
}
