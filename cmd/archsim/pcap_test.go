package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMainJobPcap: --pcap on the main job writes a capture per port that
// carried traffic; bad uses exit 2.
func TestMainJobPcap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "caps")
	if _, msg, code := run(t, "--arch", "tofino", "--program", "ndp", "--packets", "200", "--pcap", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-port*.pcapng"))
	if len(files) == 0 {
		t.Fatal("no capture written")
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() < 200 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--program", "ndp", "--no-sim", "--pcap", dir + "-new"}, "--no-sim"},
		{[]string{"--program", "ndp", "--packets", "200", "--pcap", dir}, "already holds captures"},
		{[]string{"run", "--scenario", "trim-modes", "--no-files", "--pcap", filepath.Dir(dir)}, "already holds captures"},
		{[]string{"--program", "ndp", "--pcap", dir, "--pcap-max-mb", "0"}, "--pcap-max-mb"},
		{[]string{"run", "--scenario", "trim-modes", "--pcap", dir, "--pcap-max-mb", "-3"}, "--pcap-max-mb"},
		{[]string{"run", "--scenario", "trim-modes", "--pcap", "/proc/archsim-no/caps"}, "--pcap"},
		{[]string{"run", "--scenario", "trim-modes", "--pcap-max-mb", "5"}, "--pcap-max-mb limits the captures --pcap writes"},
		{[]string{"--program", "ndp", "--pcap-max-mb", "5"}, "--pcap-max-mb limits the captures --pcap writes"},
	} {
		_, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d %q, want exit 2 naming %s", c.args, code, msg, c.want)
		}
	}
}
