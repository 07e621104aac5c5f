// Package meter models the two-rate three-colour marker of RFC 2698 (trTCM),
// the meter Tofino's MAU meter ALUs implement (TNA Meter extern, MeterType_t
// BYTES or PACKETS).
package meter

// Color is a meter colour, with Tofino's encoding (TNA MeterColor_t).
type Color int64

// Colours.
const (
	Green  Color = 0
	Yellow Color = 1
	Red    Color = 3
)

func (c Color) String() string {
	switch c {
	case Green:
		return "green"
	case Yellow:
		return "yellow"
	}
	return "red"
}

// TrTCM is one colour-blind two-rate three-colour marker (RFC 2698 §3).
// Rates are in units per second, bucket sizes in units (bytes or packets).
type TrTCM struct {
	cirPerPs, pirPerPs float64
	cbs, pbs           float64
	tc, tp             float64
	lastPs             int64
	started            bool
}

// New returns a meter with both buckets full (RFC 2698 §3: "initially full").
func New(cir, pir float64, cbs, pbs int64) TrTCM {
	return TrTCM{
		cirPerPs: cir / 1e12, pirPerPs: pir / 1e12,
		cbs: float64(cbs), pbs: float64(pbs),
		tc: float64(cbs), tp: float64(pbs),
	}
}

// Mark meters an arrival of size units at time nowPs (picoseconds) and
// returns its colour: red if it exceeds the peak bucket, yellow if it
// exceeds the committed bucket, green otherwise (RFC 2698 §3, colour-blind
// mode).
func (m *TrTCM) Mark(nowPs int64, size int64) Color {
	if m.started && nowPs > m.lastPs {
		dt := float64(nowPs - m.lastPs)
		m.tc = min(m.cbs, m.tc+dt*m.cirPerPs)
		m.tp = min(m.pbs, m.tp+dt*m.pirPerPs)
	}
	if !m.started || nowPs > m.lastPs {
		m.lastPs = nowPs
	}
	m.started = true
	b := float64(size)
	switch {
	case m.tp < b:
		return Red
	case m.tc < b:
		m.tp -= b
		return Yellow
	default:
		m.tp -= b
		m.tc -= b
		return Green
	}
}
