package programs

import (
	"strings"
	"testing"
)

const pktgenTemplate = `    headers:
      eth: {dst: 1, src: 2, etype: 0x0800}
      ip: {ttl: 64, dst: [10.0.0.1, 10.0.0.2]}
`

// The pktgen: section loads applications with their defaults (one batch of
// one packet, the header on, id and offset open) and their template.
func TestPktgenLoads(t *testing.T) {
	p, err := loadSmall(t, func(s string) string {
		return s + "pktgen:\n  - name: tick\n    trigger: periodic\n    port: 68\n    timer_ns: PORT * 1000\n    length: 64\n" + pktgenTemplate
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Pktgen) != 1 {
		t.Fatalf("%d apps", len(p.Pktgen))
	}
	a := p.Pktgen[0]
	if a.Name != "tick" || a.Trigger != TriggerPeriodic || a.Port != 68 || a.TimerNs != 3000 || a.Batches != 1 || a.Packets != 1 ||
		a.App != -1 || a.Offset != -1 || !a.Header || a.Length != 64 || a.BufferBytes() != 58 || !a.Timer() {
		t.Errorf("app %+v", a)
	}
	if len(a.Template.Headers) != 2 || len(a.Template.Values[p.Field("ip.dst")]) != 2 || a.Template.IntervalNs != 0 {
		t.Errorf("template %+v", a.Template)
	}
	if a.Pos.Line == 0 || a.Pos.File != "small.yaml" {
		t.Errorf("pos %v", a.Pos)
	}
}

// Bad applications are one-line errors at their file and line.
func TestPktgenErrors(t *testing.T) {
	cases := []struct{ app, want string }{
		{"  - name: a\n    port: 68\n    length: 64\n", "missing trigger"},
		{"  - name: a\n    trigger: sometimes\n    port: 68\n    length: 64\n", `trigger "sometimes"`},
		{"  - name: a\n    trigger: periodic\n    port: 68\n    length: 64\n", "missing timer_ns"},
		{"  - name: a\n    trigger: periodic\n    timer_ns: 0\n    port: 68\n    length: 64\n", "timer_ns must be ≥ 1"},
		{"  - name: a\n    trigger: port_down\n    timer_ns: 5\n    port: 68\n    length: 64\n", "has no timer"},
		{"  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    length: 64\n", "missing port"},
		{"  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    port: 68\n    length: 4\n", "shorter than the 6-byte generator header"},
		{"  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    port: 68\n    length: 64\n    header: maybe\n", "header must be true or false"},
		{"  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    port: 68\n    length: 64\n    batches: 0\n", "batches must be ≥ 1"},
		{"  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    port: 68\n    length: 64\n    jitter: 3\n", `unknown key "jitter"`},
	}
	for _, c := range cases {
		_, err := loadSmall(t, func(s string) string { return s + "pktgen:\n" + c.app + pktgenTemplate })
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "small.yaml:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want %q", c.app, err, c.want)
		}
	}
	_, err := loadSmall(t, func(s string) string {
		return s + "pktgen:\n  - name: a\n    trigger: one_shot\n    timer_ns: 5\n    port: 68\n    length: 64\n"
	})
	if err == nil || !strings.Contains(err.Error(), "missing headers") {
		t.Errorf("no headers: %v", err)
	}
	// interval_ns was the stand-in: it now points to the pktgen: section.
	_, err = loadSmall(t, func(s string) string {
		return strings.Replace(s, "traffic:\n  - ", "traffic:\n  - interval_ns: 5\n    ", 1)
	})
	if err == nil || !strings.Contains(err.Error(), "pktgen: section") {
		t.Errorf("interval_ns: %v", err)
	}
}
