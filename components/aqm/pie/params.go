package pie

import (
	"bytes"
	"fmt"
	"math"

	"gopkg.in/yaml.v3"

	"archsim/configs"
)

// Scaling tables of the drop probability update (how much of p is applied
// at the current drop_prob).
const (
	// ScalingRFC is RFC 8033 §4.2's table: p/2048 below 1e-6, /512 below
	// 1e-5, /128 below 1e-4, /32 below 1e-3, /8 below 1e-2, /2 below 0.1,
	// p unchanged above.
	ScalingRFC = "rfc"
	// ScalingNS3v31 is ns-3.31's table (pie-queue-disc.cc CalculateP, from
	// the pre-RFC draft): p/32 below 1e-3, /8 below 1e-2, /2 below 0.1,
	// then p/0.5 below 1, p/0.125 below 10, p/0.03125 above: the update is
	// multiplied once drop_prob >= 0.1.
	ScalingNS3v31 = "ns3-3.31"
	// ScalingNone applies p unscaled (the Tofino data-plane variants).
	ScalingNone = "none"
)

// Burst allowance rules.
const (
	// BurstRFC is RFC 8033 §4.4: the allowance starts at MAX_BURST, drops
	// by T_UPDATE per update, and is refilled when drop_prob is 0 and
	// both delay samples are below delay_ref/2; while it lasts no packet
	// is dropped but drop_prob is still updated.
	BurstRFC = "rfc"
	// BurstNS3 is ns-3.31's state machine: the first enqueue with no
	// allowance arms it (NO_BURST -> IN_BURST_PROTECTING), drop_prob is
	// forced to 0 while it lasts, and after it is spent, updates that are
	// quiet for BURST_RESET_TIMEOUT return to NO_BURST.
	BurstNS3 = "ns3"
	// BurstNone disables the allowance.
	BurstNone = "none"
)

// Flavour names (configs/pie.yaml pie.flavours).
const (
	FlavourRFC     = "rfc"
	FlavourDefault = "default"
)

// Params are a PIE controller's parameters. Times are picoseconds;
// Alpha and Beta are in Hz (RFC 8033 units: p is dimensionless when the
// delays are in seconds).
type Params struct {
	Flavour           string
	DelayRefPs        int64
	TUpdatePs         int64
	Alpha, Beta       float64
	MaxBurstPs        int64
	Scaling           string
	CapDropAdjustment bool
	Decay             float64
	ClampToOne        bool
	HighDelayBoostPs  int64 // 0: off; else drop_prob += 0.02 when qdelay exceeds it
	Burst             string
	BurstResetPs      int64 // BurstNS3: quiet time after which the allowance re-arms
	SafeguardProb     float64
	MeanPktBytes      int
	ByteMode          bool
	ECNThreshold      float64 // mark ECN-capable packets while drop_prob < it (0: never)
	// NoDrop makes Decide evaluate every rule but always admit the packet
	// (the paper's §VII.A rise/fall experiment observes drop_prob only).
	NoDrop bool
	// QueueLimitPs is the queue's limit in time at its port rate (0:
	// unknown); delay_ref must not exceed it.
	QueueLimitPs int64
}

// Validate checks the parameters; the error names the field.
func (p Params) Validate() error {
	switch {
	case p.TUpdatePs <= 0:
		return fmt.Errorf("pie: t_update must be > 0 (got %d ps)", p.TUpdatePs)
	case p.DelayRefPs <= 0:
		return fmt.Errorf("pie: delay_ref must be > 0 (got %d ps)", p.DelayRefPs)
	case p.Alpha < 0 || math.IsNaN(p.Alpha) || math.IsInf(p.Alpha, 0):
		return fmt.Errorf("pie: alpha must be a finite number >= 0 (got %g)", p.Alpha)
	case p.Beta < 0 || math.IsNaN(p.Beta) || math.IsInf(p.Beta, 0):
		return fmt.Errorf("pie: beta must be a finite number >= 0 (got %g)", p.Beta)
	case p.MaxBurstPs < 0:
		return fmt.Errorf("pie: max_burst must be >= 0 (got %d ps)", p.MaxBurstPs)
	case !(p.Decay > 0 && p.Decay <= 1):
		return fmt.Errorf("pie: decay must be in (0, 1] (got %g)", p.Decay)
	case p.SafeguardProb < 0 || p.SafeguardProb > 1:
		return fmt.Errorf("pie: safeguard_prob must be in [0, 1] (got %g)", p.SafeguardProb)
	case p.ECNThreshold < 0 || p.ECNThreshold > 1:
		return fmt.Errorf("pie: ecn_threshold must be in [0, 1] (got %g)", p.ECNThreshold)
	case p.MeanPktBytes < 0:
		return fmt.Errorf("pie: mean_pkt_bytes must be >= 0 (got %d)", p.MeanPktBytes)
	case p.ByteMode && p.MeanPktBytes == 0:
		return fmt.Errorf("pie: byte_mode needs mean_pkt_bytes > 0")
	case p.HighDelayBoostPs < 0:
		return fmt.Errorf("pie: high_delay_boost must be >= 0 (got %d ps)", p.HighDelayBoostPs)
	case p.QueueLimitPs < 0:
		return fmt.Errorf("pie: queue limit must be >= 0 (got %d ps)", p.QueueLimitPs)
	case p.QueueLimitPs > 0 && p.DelayRefPs > p.QueueLimitPs:
		return fmt.Errorf("pie: delay_ref %g us is above the queue limit %g us", usOf(p.DelayRefPs), usOf(p.QueueLimitPs))
	}
	switch p.Scaling {
	case ScalingRFC, ScalingNS3v31, ScalingNone:
	default:
		return fmt.Errorf("pie: scaling %q: want %s, %s or %s", p.Scaling, ScalingRFC, ScalingNS3v31, ScalingNone)
	}
	switch p.Burst {
	case BurstRFC, BurstNone:
	case BurstNS3:
		if p.BurstResetPs <= 0 {
			return fmt.Errorf("pie: burst %s needs burst_reset_timeout > 0", BurstNS3)
		}
	default:
		return fmt.Errorf("pie: burst %q: want %s, %s or %s", p.Burst, BurstRFC, BurstNS3, BurstNone)
	}
	return nil
}

func usOf(ps int64) float64 { return float64(ps) / 1e6 }

// psOfUs converts microseconds to picoseconds, rounded.
func psOfUs(us float64) int64 { return int64(math.Round(us * 1e6)) }

// flavourFile is one flavour's entry in configs/pie.yaml.
type flavourFile struct {
	DelayRefUs          float64 `yaml:"delay_ref_us"`
	TUpdateUs           float64 `yaml:"t_update_us"`
	Alpha               float64 `yaml:"alpha"`
	Beta                float64 `yaml:"beta"`
	MaxBurstUs          float64 `yaml:"max_burst_us"`
	Scaling             string  `yaml:"scaling"`
	CapDropAdjustment   bool    `yaml:"cap_drop_adjustment"`
	Decay               float64 `yaml:"decay"`
	ClampToOne          bool    `yaml:"clamp_to_one"`
	HighDelayBoostUs    float64 `yaml:"high_delay_boost_us"`
	Burst               string  `yaml:"burst"`
	BurstResetTimeoutUs float64 `yaml:"burst_reset_timeout_us"`
	SafeguardProb       float64 `yaml:"safeguard_prob"`
	MeanPktBytes        int     `yaml:"mean_pkt_bytes"`
	ByteMode            bool    `yaml:"byte_mode"`
	ECNThreshold        float64 `yaml:"ecn_threshold"`
}

// TofinoSpec is configs/pie.yaml's pie.tofino: the PIE-on-Tofino
// parameterisation's inputs (paper §VI.A, Table II).
type TofinoSpec struct {
	From         string  `yaml:"from"`
	DelayRefUs   float64 `yaml:"delay_ref_us"`
	TUpdateMaxUs float64 `yaml:"t_update_max_us"`
	TUpdateUs    float64 `yaml:"t_update_us"`
	QueueLimitUs float64 `yaml:"queue_limit_us"`
	ProbBits     int     `yaml:"prob_bits"`
}

type configFile struct {
	PIE struct {
		Flavours map[string]flavourFile `yaml:"flavours"`
		Tofino   TofinoSpec             `yaml:"tofino"`
	} `yaml:"pie"`
}

const configName = "pie.yaml"

func loadFile() (*configFile, error) {
	data, err := configs.Read(configName)
	if err != nil {
		return nil, fmt.Errorf("configs/%s: %v", configName, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	cf := &configFile{}
	if err := dec.Decode(cf); err != nil {
		return nil, fmt.Errorf("configs/%s: %v", configName, err)
	}
	return cf, nil
}

// Flavours are the flavour names configs/pie.yaml defines, sorted.
func Flavours() []string { return []string{FlavourDefault, FlavourRFC} }

// LoadFlavour returns a flavour's parameters from configs/pie.yaml
// ("rfc" or "default"), checked.
func LoadFlavour(name string) (Params, error) {
	cf, err := loadFile()
	if err != nil {
		return Params{}, err
	}
	f, ok := cf.PIE.Flavours[name]
	if !ok {
		return Params{}, fmt.Errorf("configs/%s: pie.flavours has no flavour %q (want %s or %s)", configName, name, FlavourRFC, FlavourDefault)
	}
	p := Params{
		Flavour: name, DelayRefPs: psOfUs(f.DelayRefUs), TUpdatePs: psOfUs(f.TUpdateUs),
		Alpha: f.Alpha, Beta: f.Beta, MaxBurstPs: psOfUs(f.MaxBurstUs), Scaling: f.Scaling,
		CapDropAdjustment: f.CapDropAdjustment, Decay: f.Decay, ClampToOne: f.ClampToOne,
		HighDelayBoostPs: psOfUs(f.HighDelayBoostUs), Burst: f.Burst, BurstResetPs: psOfUs(f.BurstResetTimeoutUs),
		SafeguardProb: f.SafeguardProb, MeanPktBytes: f.MeanPktBytes, ByteMode: f.ByteMode, ECNThreshold: f.ECNThreshold,
	}
	if err := p.Validate(); err != nil {
		return Params{}, fmt.Errorf("configs/%s: pie.flavours.%s: %v", configName, name, err)
	}
	return p, nil
}

// Tuning is the result of RFC 8033's tuning guidance applied as
// pie-for-tofino's control plane does (run_controlplane_pie.cpp).
type Tuning struct {
	Halvings  int     // times t_update was halved
	TUpdateUs float64 // the halved t_update (117.1875 us for 15 ms -> <= 150 us)
	// Alpha and Beta in Hz after the halvings and the delay_ref scaling
	// (Table II's tuned row).
	Alpha, Beta float64
	// AlphaScaled and BetaScaled are in units of a ProbBits-wide drop
	// probability register per microsecond of delay (Table II's "scaled"
	// row): Alpha x (2^ProbBits - 1) / 10^6.
	AlphaScaled, BetaScaled float64
	// AlphaShift and BetaShift are the nearest powers of two of the scaled
	// values (the PIE_DP data plane's << 9 and << 19, paper §VI.C).
	AlphaShift, BetaShift int
}

// Tune applies RFC 8033's tuning rules: halve t_update (from tUpdateUs)
// until it is at most maxTUpdateUs, adding alpha/4 to beta and halving
// alpha each time (§4.2 guidance, as the paper's §II states it), then
// scale alpha and beta by delayRefUs/newRefUs (reducing delay_ref raises
// them by the same factor). probBits sizes the scaled values.
func Tune(alpha, beta, tUpdateUs, delayRefUs, newRefUs, maxTUpdateUs float64, probBits int) (Tuning, error) {
	if !(tUpdateUs > 0) || !(maxTUpdateUs > 0) || !(delayRefUs > 0) || !(newRefUs > 0) {
		return Tuning{}, fmt.Errorf("pie: tuning needs t_update, t_update_max, delay_ref and the new delay_ref > 0")
	}
	if probBits < 1 || probBits > 63 {
		return Tuning{}, fmt.Errorf("pie: prob_bits must be in 1..63 (got %d)", probBits)
	}
	t := Tuning{TUpdateUs: tUpdateUs, Alpha: alpha, Beta: beta}
	for t.TUpdateUs > maxTUpdateUs {
		t.TUpdateUs /= 2
		t.Beta += t.Alpha / 4
		t.Alpha /= 2
		t.Halvings++
	}
	k := delayRefUs / newRefUs
	t.Alpha *= k
	t.Beta *= k
	perUs := (math.Exp2(float64(probBits)) - 1) / 1e6
	t.AlphaScaled = t.Alpha * perUs
	t.BetaScaled = t.Beta * perUs
	t.AlphaShift = int(math.Round(math.Log2(t.AlphaScaled)))
	t.BetaShift = int(math.Round(math.Log2(t.BetaScaled)))
	return t, nil
}

// Tofino is the PIE-on-Tofino parameterisation (paper Table II) from
// configs/pie.yaml: the spec, the tuning computed by Tune, and the
// parameters of its base flavour with delay_ref, t_update (the period run,
// t_update_us), alpha, beta and the queue limit replaced.
func Tofino() (TofinoSpec, Tuning, Params, error) {
	cf, err := loadFile()
	if err != nil {
		return TofinoSpec{}, Tuning{}, Params{}, err
	}
	s := cf.PIE.Tofino
	base, err := LoadFlavour(s.From)
	if err != nil {
		return s, Tuning{}, Params{}, fmt.Errorf("configs/%s: pie.tofino.from: %v", configName, err)
	}
	t, err := Tune(base.Alpha, base.Beta, usOf(base.TUpdatePs), usOf(base.DelayRefPs), s.DelayRefUs, s.TUpdateMaxUs, s.ProbBits)
	if err != nil {
		return s, t, Params{}, fmt.Errorf("configs/%s: pie.tofino: %v", configName, err)
	}
	p := base.WithTofino(s, t)
	if err := p.Validate(); err != nil {
		return s, t, Params{}, fmt.Errorf("configs/%s: pie.tofino: %v", configName, err)
	}
	return s, t, p, nil
}

// WithTofino returns p with the Tofino parameterisation's delay_ref,
// update period, tuned alpha and beta and queue limit (the paper's ns-3
// runs use Table II's values with either flavour's rules).
func (p Params) WithTofino(s TofinoSpec, t Tuning) Params {
	p.DelayRefPs = psOfUs(s.DelayRefUs)
	p.TUpdatePs = psOfUs(s.TUpdateUs)
	p.Alpha, p.Beta = t.Alpha, t.Beta
	p.QueueLimitPs = psOfUs(s.QueueLimitUs)
	return p
}
