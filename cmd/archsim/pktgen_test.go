package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A packet-generator application on a port that is not a pktgen port is
// bad input: one line naming the program file, line and port, exit 2.
func TestPktgenBadPort(t *testing.T) {
	src, err := os.ReadFile("../../programs/builtin/pie-dp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "    trigger: periodic\n    port: 68\n", "    trigger: periodic\n    port: 3\n", 1)
	if s == string(src) {
		t.Fatal("pie-dp's pktgen application moved; update the test")
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, msg, code := run(t, "--arch", "tofino", "--program", file, "--packets", "100")
	if code != 2 || out != "" || strings.Contains(msg, "\n") || !strings.Contains(msg, "bad.yaml:") ||
		!strings.Contains(msg, "pktgen pie-sampling: port 3 is not a packet-generator port") {
		t.Errorf("exit %d, message %q, output %d bytes", code, msg, len(out))
	}
}
