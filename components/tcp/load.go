package tcp

import (
	"bytes"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// File is a TCP host config as written in YAML (configs/tcp.yaml): times
// in the units people write them in.
type File struct {
	NICGbps       float64   `yaml:"nic_gbps"`
	PropUs        float64   `yaml:"prop_us"`
	StackDelayUs  float64   `yaml:"stack_delay_us"`
	MSS           int       `yaml:"mss"`
	InitCwnd      int       `yaml:"init_cwnd"`
	RcvWndBytes   int64     `yaml:"rcv_wnd_bytes"`
	WScale        int       `yaml:"wscale"`
	DupThresh     int       `yaml:"dupthresh"`
	RTOMinMs      float64   `yaml:"rto_min_ms"`
	RTOMaxMs      float64   `yaml:"rto_max_ms"`
	RTOInitMs     float64   `yaml:"rto_init_ms"`
	DelAckMs      float64   `yaml:"delack_ms"`
	QuickAcks     int       `yaml:"quick_acks"`
	MaxSACKBlocks int       `yaml:"max_sack_blocks"`
	ECN           bool      `yaml:"ecn"`
	RACK          bool      `yaml:"rack"`
	TLP           bool      `yaml:"tlp"`
	PacingSSRatio int       `yaml:"pacing_ss_ratio"`
	PacingCARatio int       `yaml:"pacing_ca_ratio"`
	TimestampHZ   int       `yaml:"timestamp_hz"`
	CC            string    `yaml:"cc"`
	Cubic         CubicFile `yaml:"cubic"`
	DCTCP         DCTCPFile `yaml:"dctcp"`
}

// DCTCPFile is DCTCPParams in YAML.
type DCTCPFile struct {
	ShiftG      int `yaml:"shift_g"`
	AlphaOnInit int `yaml:"alpha_on_init"`
}

// CubicFile is CubicParams in YAML.
type CubicFile struct {
	Beta              int  `yaml:"beta"`
	BicScale          int  `yaml:"bic_scale"`
	FastConvergence   bool `yaml:"fast_convergence"`
	TCPFriendliness   bool `yaml:"tcp_friendliness"`
	HyStart           bool `yaml:"hystart"`
	HyStartDetect     int  `yaml:"hystart_detect"`
	HyStartLowWindow  int  `yaml:"hystart_low_window"`
	HyStartAckDeltaUs int  `yaml:"hystart_ack_delta_us"`
	HZ                int  `yaml:"hz"`
	GSOMaxBytes       int  `yaml:"gso_max_bytes"`
}

func psOf(x, unit float64) int64 { return int64(x*unit + 0.5) }

// File returns c in its YAML form.
func (c Config) File() File {
	p := c.Cubic
	return File{NICGbps: c.NICGbps, PropUs: float64(c.PropPs) / 1e6, StackDelayUs: float64(c.StackDelayPs) / 1e6,
		MSS: c.MSS, InitCwnd: c.InitCwnd, RcvWndBytes: c.RcvWndBytes, WScale: c.WScale, DupThresh: c.DupThresh,
		RTOMinMs: float64(c.RTOMinPs) / 1e9, RTOMaxMs: float64(c.RTOMaxPs) / 1e9, RTOInitMs: float64(c.RTOInitPs) / 1e9,
		DelAckMs: float64(c.DelAckPs) / 1e9, QuickAcks: c.QuickAcks, MaxSACKBlocks: c.MaxSACKBlocks, ECN: c.ECN, RACK: c.RACK, TLP: c.TLP,
		PacingSSRatio: c.PacingSSRatio, PacingCARatio: c.PacingCARatio, TimestampHZ: c.TimestampHZ, CC: c.CC,
		DCTCP: DCTCPFile{ShiftG: c.DCTCP.ShiftG, AlphaOnInit: c.DCTCP.AlphaOnInit},
		Cubic: CubicFile{Beta: p.Beta, BicScale: p.BicScale, FastConvergence: p.FastConvergence,
			TCPFriendliness: p.TCPFriendliness, HyStart: p.HyStart, HyStartDetect: p.HyStartDetect,
			HyStartLowWindow: p.HyStartLowWindow, HyStartAckDeltaUs: p.HyStartAckDeltaUs, HZ: p.HZ, GSOMaxBytes: p.GSOMaxBytes}}
}

// Config converts the YAML form back.
func (f File) Config() Config {
	p := f.Cubic
	return Config{NICGbps: f.NICGbps, PropPs: psOf(f.PropUs, 1e6), StackDelayPs: psOf(f.StackDelayUs, 1e6),
		MSS: f.MSS, InitCwnd: f.InitCwnd, RcvWndBytes: f.RcvWndBytes, WScale: f.WScale, DupThresh: f.DupThresh,
		RTOMinPs: psOf(f.RTOMinMs, 1e9), RTOMaxPs: psOf(f.RTOMaxMs, 1e9), RTOInitPs: psOf(f.RTOInitMs, 1e9),
		DelAckPs: psOf(f.DelAckMs, 1e9), QuickAcks: f.QuickAcks, MaxSACKBlocks: f.MaxSACKBlocks, ECN: f.ECN, RACK: f.RACK, TLP: f.TLP,
		PacingSSRatio: f.PacingSSRatio, PacingCARatio: f.PacingCARatio, TimestampHZ: f.TimestampHZ, CC: f.CC,
		DCTCP: DCTCPParams{ShiftG: f.DCTCP.ShiftG, AlphaOnInit: f.DCTCP.AlphaOnInit},
		Cubic: CubicParams{Beta: p.Beta, BicScale: p.BicScale, FastConvergence: p.FastConvergence,
			TCPFriendliness: p.TCPFriendliness, HyStart: p.HyStart, HyStartDetect: p.HyStartDetect,
			HyStartLowWindow: p.HyStartLowWindow, HyStartAckDeltaUs: p.HyStartAckDeltaUs, HZ: p.HZ, GSOMaxBytes: p.GSOMaxBytes}}
}

// ParseConfig reads YAML (configs/tcp.yaml's keys, all optional) over
// base and validates the result. Unknown keys are errors; every error is
// one line starting with name.
func ParseConfig(name string, data []byte, base Config) (Config, error) {
	f := base.File()
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&f); err != nil && err != io.EOF {
		return Config{}, fmt.Errorf("%s: %s", name, oneLine(err.Error()))
	}
	c := f.Config()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %v", name, err)
	}
	return c, nil
}

func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}
