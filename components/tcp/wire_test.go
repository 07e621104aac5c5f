package tcp

import (
	"encoding/binary"
	"strings"
	"testing"

	"archsim/components/packet"
	"archsim/configs"
)

// TestWireRoundTrip encodes a data segment and a SACK-carrying ACK and
// reads them back: the fields, Linux's frame sizes (1514-byte data frame
// for MSS 1448 with timestamps), a valid IPv4 checksum, the ECN bits.
func TestWireRoundTrip(t *testing.T) {
	data := Segment{Src: HostIP(3), Dst: HostIP(9), ECN: ECNECT0, SrcPort: PortBase + 7, DstPort: DataPort,
		Seq: 0xfffffff0, Ack: 5, Flags: FlagACK | FlagCWR, Window: 49152, TSval: 123, TSecr: 99, Payload: 1448}
	ack := Segment{Src: HostIP(9), Dst: HostIP(3), SrcPort: DataPort, DstPort: PortBase + 7, Ack: 0x10, Flags: FlagACK | FlagECE,
		Window: 100, TSval: 1, TSecr: 2, NSack: 3,
		Sack: [4]SackBlock{{10, 20}, {30, 40}, {0xfffffff0, 0x100}}}
	for _, c := range []struct {
		s   Segment
		len int
	}{{data, 1514}, {ack, 14 + 20 + 20 + 12 + 4 + 24}} {
		b := encode(make([]byte, 0, headCap), &c.s, 77)
		if c.s.FrameLen() != c.len {
			t.Errorf("frame length %d, want %d", c.s.FrameLen(), c.len)
		}
		if binary.BigEndian.Uint16(b[12:]) != 0x0800 || b[ethLen+9] != 6 {
			t.Errorf("not Ethernet/IPv4/TCP: % x", b[:24])
		}
		if packet.IPv4Checksum(b[ethLen:ethLen+ipLen]) != binary.BigEndian.Uint16(b[ethLen+10:]) {
			t.Error("bad IPv4 header checksum")
		}
		if _, ecn, _ := packet.DSCPECN(b); ecn != int(c.s.ECN) {
			t.Errorf("ECN %d, want %d", ecn, c.s.ECN)
		}
		var got Segment
		if !Decode(b, &got) || got != c.s {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, c.s)
		}
	}
	var s Segment
	udp := encode(make([]byte, 0, headCap), &data, 1)
	udp[ethLen+9] = 17
	if Decode(udp, &s) || Decode(udp[:40], &s) {
		t.Error("a UDP or truncated frame decoded as TCP")
	}
}

// TestConfigValidate checks that bad parameters are refused with a
// one-line error naming the field, by Build too.
func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	cases := []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.MSS = 0 }, "tcp: mss must be in 536..9000, got 0"},
		{func(c *Config) { c.MSS = -5 }, "mss"},
		{func(c *Config) { c.NICGbps = 0 }, "nic_gbps"},
		{func(c *Config) { c.InitCwnd = 0 }, "init_cwnd"},
		{func(c *Config) { c.RTOMinPs = 0 }, "rto"},
		{func(c *Config) { c.RcvWndBytes = 1 << 40 }, "rcv_wnd_bytes"},
		{func(c *Config) { c.Cubic.Beta = 1024 }, "beta"},
		{func(c *Config) { c.DelAckPs = -1 }, "delack"},
		{func(c *Config) { c.CC = "reno" }, "cc must be"},
		{func(c *Config) { c.CC = CCDCTCP }, "dctcp needs ecn"},
		{func(c *Config) { c.CC, c.ECN, c.DCTCP.ShiftG = CCDCTCP, true, 11 }, "shift_g"},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
		if _, err := MakeBuilder().WithConfig(cfg).Build("H"); err == nil {
			t.Errorf("Build accepted a config with a bad %s", c.want)
		}
	}
	h, err := MakeBuilder().WithEngine(nil).Build("H")
	if err == nil || h != nil {
		t.Error("Build without engine and uplink accepted")
	}
}

// TestConfigFile checks that configs/tcp.yaml holds exactly DefaultConfig,
// that a scenario can override a few keys, and that unknown keys and bad
// values are refused with one line naming the file.
func TestConfigFile(t *testing.T) {
	data, err := configs.Read("tcp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig("configs/tcp.yaml", data, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c != DefaultConfig() {
		t.Errorf("configs/tcp.yaml and DefaultConfig differ:\n%+v\n%+v", c, DefaultConfig())
	}
	c, err = ParseConfig("s.yaml", []byte("nic_gbps: 25\nstack_delay_us: 170\ncubic: {hystart: false}\n"), DefaultConfig())
	if err != nil || c.NICGbps != 25 || c.StackDelayPs != 170e6 || c.Cubic.HyStart || c.Cubic.Beta != 717 {
		t.Errorf("overrides: %+v, %v", c, err)
	}
	for _, bad := range []string{"mss: 0\n", "msss: 1448\n", "cubic: {beta: 2000}\n", "mss: [1]\n"} {
		_, err := ParseConfig("s.yaml", []byte(bad), DefaultConfig())
		if err == nil || !strings.HasPrefix(err.Error(), "s.yaml: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

// TestFlowChecks checks that AddSender and AddReceiver refuse flow ids
// outside the port range, negative sizes and duplicates.
func TestFlowChecks(t *testing.T) {
	n := newTestNet(t, DefaultConfig(), 1, 10, 1e6, 1e12)
	for _, f := range []*Flow{{ID: -1}, {ID: MaxFlows}, {ID: 1, Bytes: -1}} {
		if n.snd.AddSender(f) == nil || n.rcv.AddReceiver(f) == nil {
			t.Errorf("flow %+v accepted", *f)
		}
	}
	f := &Flow{ID: 2, Src: 0, Dst: 1}
	if n.snd.AddSender(f) != nil || n.snd.AddSender(f) == nil || n.rcv.AddReceiver(f) != nil || n.rcv.AddReceiver(f) == nil {
		t.Error("a flow added twice to one side must be refused (once accepted)")
	}
	if f.SrcIP != HostIP(0) || f.DstIP != HostIP(1) {
		t.Errorf("default addresses %#x %#x", f.SrcIP, f.DstIP)
	}
}
