package experiments

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/gopacket/pcapgo"
)

// TestPcapCapturesEveryFrame runs a two-switch scenario with captures on:
// every frame a switch sent out of a port is in its port's file (the
// count equals the switches' transmissions), timestamps are ordered,
// captured bytes never exceed the frame, trimmed headers have their own
// interface, and a second run writes the same bytes.
func TestPcapCapturesEveryFrame(t *testing.T) {
	s, err := Load("testdata/line.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = 40
	dirs := []string{t.TempDir(), t.TempDir()}
	var res []*Result
	for _, d := range dirs {
		r, err := s.Execute(Options{Jobs: 1, Pcap: d})
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	for _, run := range res[0].Runs {
		runDir := filepath.Join(dirs[0], run.Variant)
		files, _ := filepath.Glob(filepath.Join(runDir, "*.pcapng"))
		if len(files) == 0 {
			t.Fatalf("%s: no capture", runDir)
		}
		frames, trimmed := 0, 0
		for _, f := range files {
			n, tr := checkCapture(t, f)
			frames, trimmed = frames+n, trimmed+tr
			other, err := os.ReadFile(filepath.Join(dirs[1], run.Variant, filepath.Base(f)))
			mine, _ := os.ReadFile(f)
			if err != nil || !bytes.Equal(mine, other) {
				t.Errorf("%s: not the same bytes in a second run (%v)", f, err)
			}
		}
		t.Logf("%s: %d frames, %d trimmed headers captured; %d delivered trimmed", run.Variant, frames, trimmed, run.DeliveredTrimmed)
		if frames != run.SwitchHops {
			t.Errorf("%s: %d frames captured, the switches sent %d", run.Variant, frames, run.SwitchHops)
		}
		if run.DeliveredTrimmed > 0 && trimmed == 0 {
			t.Errorf("%s: %d trimmed headers delivered, none on a trimmed interface", run.Variant, run.DeliveredTrimmed)
		}
		if w := res[0].PcapWarnings(); len(w) != 0 {
			t.Errorf("warnings %v under the default limit", w)
		}
	}
}

// checkCapture reads a capture and returns its frames and those on the
// trimmed-header interface.
func checkCapture(t *testing.T, path string) (int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n, trimmed := 0, 0
	var last int64
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ns := ci.Timestamp.UnixNano()
		if ns < last {
			t.Errorf("%s: frame %d at %d ns after one at %d ns", path, n, ns, last)
		}
		if len(data) != ci.CaptureLength || ci.CaptureLength > ci.Length || ci.CaptureLength == 0 {
			t.Errorf("%s: frame %d captured %d of %d bytes", path, n, ci.CaptureLength, ci.Length)
		}
		if ci.InterfaceIndex == 1 {
			trimmed++
		}
		last = ns
		n++
	}
	return n, trimmed
}

// TestPcapLimit: a tiny limit leaves frames out and says so.
func TestPcapLimit(t *testing.T) {
	s, err := Load("testdata/line.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s.DurationUs = 20
	s.KeepVariant("Ideal")
	res, err := s.Execute(Options{Jobs: 1, Pcap: t.TempDir(), PcapMaxBytes: 2048})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.PcapWarnings(); len(w) != 1 {
		t.Errorf("warnings %q, want one", w)
	}
}

// TestPcapAndRecordsBeyondNDP: the PIE and Protego runners capture their
// switches' ports too (they wrote nothing before), PIE's runs stream their
// per-packet records, and Protego's, which keep none, refuse --records.
func TestPcapAndRecordsBeyondNDP(t *testing.T) {
	pie, err := Load("pie-risefall")
	if err != nil {
		t.Fatal(err)
	}
	pie.DurationUs = 50
	if err := pie.KeepVariant("PIE_DP"); err != nil {
		t.Fatal(err)
	}
	pro, err := Load("protego-trio-small")
	if err != nil {
		t.Fatal(err)
	}
	pro.DurationUs, pro.Protego.DrainUs = 20, 10
	if err := pro.KeepVariant("Protego-trio"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Scenario{pie, pro} {
		caps, recs := t.TempDir(), t.TempDir()
		opt := Options{Jobs: 1, Pcap: caps}
		if s == pie {
			opt.Records = recs
		}
		r, err := s.Execute(opt)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(caps, r.Runs[0].Variant, "*.pcapng"))
		frames := 0
		for _, f := range files {
			n, _ := checkCapture(t, f)
			frames += n
		}
		if frames == 0 {
			t.Errorf("%s: no frame captured (%d files)", s.Name, len(files))
		}
		if s == pie {
			data, err := os.ReadFile(filepath.Join(recs, "packets-PIE_DP.csv"))
			if err != nil || !bytes.Contains(data, []byte(",sent,true,")) {
				t.Errorf("PIE records: %v (%d bytes)", err, len(data))
			}
		}
	}
	if err := pro.Preflight(Options{Records: t.TempDir()}); err == nil {
		t.Error("a Protego scenario accepted --records, which it would not write")
	}
}

// Captures stamp a frame when its first bit leaves the port: on Trio, not
// when the egress thread finished it (frames that finished together were
// stamped closer than the wire allows), and the ideal switch's PIE ports
// are captured too (they wrote nothing).
func TestCapturesAtTheWire(t *testing.T) {
	s := loadText(t, `scenario: trio-wire
doc: two NDP senders into one 10 Gb/s port of a Trio PFE
source: test
seed: 1
duration_us: 60
hosts: 3
link: {gbps: 10, prop_ns: 100}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 20, flow_packets: 0, pull_rate: 0.99}
pattern: {kind: incast, senders: 2}
variants:
  - {name: Trio, chip: trio, program: ndp}
`)
	caps := t.TempDir()
	if _, err := s.Execute(Options{Jobs: 1, Pcap: caps}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(caps, "Trio", "*.pcapng"))
	frames := 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			t.Fatal(err)
		}
		var last, lastLen int64 = -1, 0
		for {
			_, ci, err := r.ReadPacketData()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			ns := ci.Timestamp.UnixNano()
			// Ethernet framing: 24 bytes besides the frame, at 10 Gb/s.
			if wire := (lastLen + 24) * 8 / 10; last >= 0 && ns-last < wire {
				t.Errorf("%s: a frame %d ns after a %d-byte one, which holds the wire %d ns", path, ns-last, lastLen, wire)
			}
			last, lastLen = ns, int64(ci.Length)
			frames++
		}
		f.Close()
	}
	if frames == 0 {
		t.Fatal("nothing captured")
	}

	pie, err := loadEdited(t, "pie-risefall", "duration_us: 15000000", "duration_us: 50")
	if err != nil {
		t.Fatal(err)
	}
	if err := pie.KeepVariant("ns3-rfc"); err != nil {
		t.Fatal(err)
	}
	caps = t.TempDir()
	if _, err := pie.Execute(Options{Jobs: 1, Pcap: caps}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(caps, "ns3-rfc", "*.pcapng")); len(files) == 0 {
		t.Error("the ideal switch's PIE ports wrote no capture")
	}
}
