package experiments

import (
	"strings"
	"testing"
)

// TestHtsimFraming runs one NDP flow inside its initial window (line rate,
// no pulls needed) on Ethernet and on htsim framing, through the ideal
// switch and the Tofino running ndp.p4. On Ethernet a 1564-byte data
// packet holds each link for 1588 bytes and carries 1514 bytes of payload;
// on htsim's links it holds them for 1564 and carries 1500 (htsim's sink
// counts size - 64). The goodputs must differ by exactly that ratio, and
// htsim's cannot exceed its line-rate payload.
func TestHtsimFraming(t *testing.T) {
	eth := `scenario: framing
doc: d
source: s
seed: 1
duration_us: 100
hosts: 2
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 1000, flow_packets: 0, pull_rate: 0.99}
pattern: {kind: pairs, flows: [[0, 1]]}
variants:
  - {name: Ideal, switch: ideal, queue_packets: 10}
  - {name: Tofino, switch: tofino, program: ndp}
`
	htsim := strings.Replace(eth, "prop_ns: 500}", "prop_ns: 500, framing: htsim}", 1)
	goodput := func(body string) map[string]float64 {
		s := loadText(t, body)
		res, err := s.Execute(Options{Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		g := map[string]float64{}
		for _, r := range res.Runs {
			if !r.ConservationOK || len(r.GoodputGbps) != 1 {
				t.Fatalf("%s: conservation %v, %d flows", r.Variant, r.ConservationOK, len(r.GoodputGbps))
			}
			g[r.Variant] = r.GoodputGbps[0]
		}
		return g
	}
	ge, gh := goodput(eth), goodput(htsim)
	want := (1500.0 / 1564) / (1514.0 / 1588) // 1.0059
	for _, v := range []string{"Ideal", "Tofino"} {
		if r := gh[v] / ge[v]; r < want-0.001 || r > want+0.001 {
			t.Errorf("%s: goodput %.3f Gb/s on htsim framing, %.3f on Ethernet: ratio %.5f, want %.5f", v, gh[v], ge[v], r, want)
		}
		// Line rate less the first packet's way through (two links, the
		// switch): at least 98 of the 100 us carry payload.
		if line := 100 * 1500.0 / 1564; gh[v] > line || gh[v] < 0.98*line {
			t.Errorf("%s: %.3f Gb/s on htsim framing, want 0.98..1 x %.3f (1500 payload bytes per 1564 on the wire)", v, gh[v], line)
		}
	}
}
