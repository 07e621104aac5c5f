package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProfilesOfRefusedInput: --cpuprofile and --memprofile files are
// written when the command ran (exit 0 or 1) and removed when it refused
// its input (exit 2), so a rejected run leaves nothing behind.
func TestProfilesOfRefusedInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		err  error
		kept bool
	}{{nil, true}, {&exitError{code: 1, msg: "does not fit"}, true}, {&exitError{code: 2, msg: "bad"}, false}} {
		p := profiler{cpuFile: filepath.Join(dir, "cpu.prof"), memFile: filepath.Join(dir, "mem.prof")}
		if err := p.start(); err != nil {
			t.Fatal(err)
		}
		p.finish(c.err)
		for _, f := range []string{p.cpuFile, p.memFile} {
			_, err := os.Stat(f)
			if kept := err == nil; kept != c.kept {
				t.Errorf("%v: %s kept %v, want %v", c.err, f, kept, c.kept)
			}
			os.Remove(f)
		}
	}
}

// TestPcapDirOfFailedRun: a --pcap directory the command made is removed
// when the command fails before writing a capture (here: pie-rfc does not
// fit Tofino 1); one that existed before is left alone.
func TestPcapDirOfFailedRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "caps")
	if _, _, code := run(t, "--program", "pie-rfc", "--pcap", dir); code != 1 {
		t.Fatalf("pie-rfc on Tofino 1: exit %d, want 1 (does not fit)", code)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left behind (%v)", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "--program", "pie-rfc", "--pcap", dir)
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a directory that existed before was removed: %v", err)
	}
}
