package rdma

import (
	"bytes"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// Config holds a RoCEv2 NIC's parameters (configs/rdma.yaml).
// DefaultConfig documents where each default comes from.
type Config struct {
	NICGbps    float64 // NIC and host link rate
	PropPs     int64   // one-way propagation delay from the host to its switch port
	NICDelayPs int64   // NIC processing latency added to every frame it sends (0: none)
	PathMTU    int     // payload bytes per packet (an IB MTU: 256, 512, 1024, 2048 or 4096)
	AckEvery   int     // the requester sets the BTH AckReq bit every AckEvery packets (and on a message's last)
	TimeoutPs  int64   // the requester's transport (retransmission) timer
}

// DefaultConfig returns the defaults (sources beside each value).
func DefaultConfig() Config {
	return Config{
		NICGbps: 100,       // the Protego testbed's 100G links (paper §4); a scenario sets its own
		PropPs:  1_000_000, // 1 us, assumed; a scenario sets its own
		// 1024: the largest IB MTU (IBA §7.7.8: 256..4096) that fits a
		// 1500-byte Ethernet MTU with the RoCEv2 headers (assumed: the
		// paper's testbed runs a 1500-byte MTU for TCP).
		PathMTU:   1024,
		AckEvery:  16,  // assumed: NICs coalesce ACKs; the IBA leaves the rate to the implementation (§9.7.5.1.1)
		TimeoutPs: 1e9, // ≈1 ms: the RC retransmission timeout the Protego paper measured on CX6-DX (§4)
	}
}

// Validate checks a config: one error naming the first bad field.
func (c Config) Validate() error {
	switch {
	case !(c.NICGbps > 0):
		return fmt.Errorf("rdma: nic_gbps must be > 0, got %g", c.NICGbps)
	case c.PropPs < 0:
		return fmt.Errorf("rdma: prop_us must be >= 0, got %d ps", c.PropPs)
	case c.NICDelayPs < 0:
		return fmt.Errorf("rdma: nic_delay_us must be >= 0, got %d ps", c.NICDelayPs)
	case c.PathMTU != 256 && c.PathMTU != 512 && c.PathMTU != 1024 && c.PathMTU != 2048 && c.PathMTU != 4096:
		return fmt.Errorf("rdma: path_mtu must be 256, 512, 1024, 2048 or 4096 (IBA §7.7.8), got %d", c.PathMTU)
	case c.AckEvery < 1:
		return fmt.Errorf("rdma: ack_every must be >= 1, got %d", c.AckEvery)
	case c.TimeoutPs <= 0:
		return fmt.Errorf("rdma: timeout_us must be > 0, got %d ps", c.TimeoutPs)
	}
	return nil
}

// File is Config as written in YAML (configs/rdma.yaml).
type File struct {
	NICGbps    float64 `yaml:"nic_gbps"`
	PropUs     float64 `yaml:"prop_us"`
	NICDelayUs float64 `yaml:"nic_delay_us"`
	PathMTU    int     `yaml:"path_mtu"`
	AckEvery   int     `yaml:"ack_every"`
	TimeoutUs  float64 `yaml:"timeout_us"`
}

func psOf(x, unit float64) int64 { return int64(x*unit + 0.5) }

// File returns c in its YAML form.
func (c Config) File() File {
	return File{NICGbps: c.NICGbps, PropUs: float64(c.PropPs) / 1e6, NICDelayUs: float64(c.NICDelayPs) / 1e6,
		PathMTU: c.PathMTU, AckEvery: c.AckEvery, TimeoutUs: float64(c.TimeoutPs) / 1e6}
}

// Config converts the YAML form back.
func (f File) Config() Config {
	return Config{NICGbps: f.NICGbps, PropPs: psOf(f.PropUs, 1e6), NICDelayPs: psOf(f.NICDelayUs, 1e6),
		PathMTU: f.PathMTU, AckEvery: f.AckEvery, TimeoutPs: psOf(f.TimeoutUs, 1e6)}
}

// ParseConfig reads YAML (configs/rdma.yaml's keys, all optional) over
// base and validates the result. Unknown keys are errors; every error is
// one line starting with name.
func ParseConfig(name string, data []byte, base Config) (Config, error) {
	f := base.File()
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&f); err != nil && err != io.EOF {
		return Config{}, fmt.Errorf("%s: %s", name, bytes.Join(bytes.Fields([]byte(err.Error())), []byte(" ")))
	}
	c := f.Config()
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %v", name, err)
	}
	return c, nil
}
