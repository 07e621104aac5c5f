package pcap

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/gopacket/pcapgo"

	"archsim/components/packet"
)

// frame is an Ethernet + IPv4 head of n bytes (the rest zero).
func frame(n int, id byte) []byte {
	h := make([]byte, n)
	copy(h, []byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00})
	if n >= 34 {
		copy(h[14:], []byte{0x45, 0, 0, 20, 0, id, 0, 0, 64, 17, 0, 0, 10, 1, 0, 1, 10, 1, 1, 1})
	}
	return h
}

type rec struct {
	intf      int
	ns        int64
	capLen    int
	wireLen   int
	firstByte byte
}

func readAll(t *testing.T, path string) ([]rec, *pcapgo.NgReader) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	var out []rec
	for {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec{ci.InterfaceIndex, ci.Timestamp.UnixNano(), ci.CaptureLength, ci.Length, data[0]})
	}
	return out, r
}

func TestCaptureReadBack(t *testing.T) {
	dir := t.TempDir()
	c, err := New(dir, Options{Trimmed: func(p *packet.Packet) bool { return p.Len == 64 && p.Head[13] == 0 && p.ID == 7 }})
	if err != nil {
		t.Fatal(err)
	}
	tap := c.Tap("Tofino")
	// Port 3: data, a TM-trimmed copy, a mirror copy, a header the caller
	// calls trimmed; port 5: one frame. Times in ps.
	tap(3, &packet.Packet{ID: 1, Head: frame(64, 1), Len: 1564}, 1_000_000)
	tap(3, &packet.Packet{ID: 2, Head: frame(64, 2), Len: 64, Trimmed: true}, 1_125_120)
	tap(5, &packet.Packet{ID: 3, Head: frame(80, 3), Len: 80}, 1_200_000)
	tap(3, &packet.Packet{ID: 4, Head: frame(64, 4), Len: 1564, Mirrored: true}, 1_250_001)
	tap(3, &packet.Packet{ID: 7, Head: frame(64, 7), Len: 64}, 2_000_000)
	s, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 2 || s.Frames != 5 || s.Skipped != 0 || s.Warning() != "" {
		t.Fatalf("summary %+v", s)
	}
	got, r := readAll(t, filepath.Join(dir, "Tofino-port3.pcapng"))
	want := []rec{{0, 1000, 64, 1564, 2}, {1, 1125, 64, 64, 2}, {2, 1250, 64, 1564, 2}, {1, 2000, 64, 64, 2}}
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := r.NInterfaces(); n != 3 {
		t.Fatalf("%d interfaces, want 3", n)
	}
	for i, name := range []string{"Tofino.port3", "Tofino.port3.trimmed", "Tofino.port3.mirror"} {
		intf, err := r.Interface(i)
		if err != nil || intf.Name != name {
			t.Errorf("interface %d: %q (%v), want %q", i, intf.Name, err, name)
		}
	}
	got5, _ := readAll(t, filepath.Join(dir, "Tofino-port5.pcapng"))
	if len(got5) != 1 || got5[0].capLen != 80 || got5[0].wireLen != 80 {
		t.Errorf("port 5: %+v", got5)
	}
}

// TestCaptureLimit: past MaxBytes frames are counted, not written, and the
// files stay readable.
func TestCaptureLimit(t *testing.T) {
	dir := t.TempDir()
	c, err := New(dir, Options{MaxBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	tap := c.Tap("S")
	for i := 0; i < 200; i++ {
		tap(i%2, &packet.Packet{Head: frame(64, byte(i)), Len: 1500}, int64(i)*1_000_000)
	}
	s, err := c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped == 0 || s.Frames+s.Skipped != 200 || s.Bytes > 4096 {
		t.Fatalf("summary %+v", s)
	}
	if !strings.Contains(s.Warning(), "not captured") {
		t.Errorf("warning %q", s.Warning())
	}
	var n int64
	var size int64
	for _, f := range s.Files {
		recs, _ := readAll(t, f)
		n += int64(len(recs))
		for k := 1; k < len(recs); k++ {
			if recs[k].ns < recs[k-1].ns {
				t.Errorf("%s: timestamps out of order", f)
			}
		}
		st, _ := os.Stat(f)
		size += st.Size()
	}
	if n != s.Frames {
		t.Errorf("read %d frames, the capture says %d", n, s.Frames)
	}
	if size > 4096 || size != s.Bytes {
		t.Errorf("files hold %d bytes, the capture says %d, limit 4096 (file headers and statistics blocks included)", size, s.Bytes)
	}
}

// TestCaptureDiscard: a failed run's capture leaves no file behind, and
// the directory only if it was there before.
func TestCaptureDiscard(t *testing.T) {
	for _, existed := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "caps")
		if existed {
			os.Mkdir(dir, 0o755)
		}
		c, err := New(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		tap := c.Tap("S")
		for i := 0; i < 10; i++ {
			tap(i%3, &packet.Packet{Head: frame(64, byte(i)), Len: 1500}, int64(i)*1000)
		}
		c.Discard()
		_, err = os.Stat(dir)
		if existed && err != nil {
			t.Errorf("the directory that was there before is gone: %v", err)
		}
		if !existed && !os.IsNotExist(err) {
			left, _ := os.ReadDir(dir)
			t.Errorf("discarded capture left %s with %d files", dir, len(left))
		}
		if existed {
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("discarded capture left %d files", len(left))
			}
		}
	}
}

// TestTcpdumpReads reads a capture with tcpdump -r, where it is installed.
func TestTcpdumpReads(t *testing.T) {
	bin, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("tcpdump not installed")
	}
	dir := t.TempDir()
	c, _ := New(dir, Options{})
	tap := c.Tap("Sw")
	for i := 0; i < 10; i++ {
		tap(0, &packet.Packet{Head: frame(64, byte(i)), Len: 1564, Trimmed: i%3 == 0}, int64(i)*1_000_000_000)
	}
	if _, err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "-r", filepath.Join(dir, "Sw-port0.pcapng"), "-n", "-tt")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("tcpdump: %v: %s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[1], "0.001000") || !strings.Contains(lines[0], "10.1.0.1 > 10.1.1.1") {
		t.Fatalf("tcpdump printed:\n%s", out.String())
	}
}
