package harness

import (
	"errors"
	"os"
	"strings"
	"testing"

	"archsim/components/packet"
	"archsim/programs"
)

func smallProgram(t *testing.T, traffic string) *programs.Program {
	t.Helper()
	data, err := os.ReadFile("../programs/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	i := strings.Index(src, "traffic:")
	p, err := programs.Load([]byte(src[:i]+traffic), "small.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const twoPorts = `traffic:
  - ports: [0, 3]
    sizes: [64, 1000]
    headers:
      eth: {etype: 0x0800}
      ip: {ttl: 64, src: 10.1.2.3, dst: 10.0.0.1}
`

// Packets are spread over the ports (the first get the remainder), each
// port's train is spaced at the load's share of the port rate, sizes cycle
// through the template's classes, ids count in generation order and every
// packet's flow names its template and port.
func TestGenerateTrains(t *testing.T) {
	p := smallProgram(t, twoPorts)
	off, err := Generate(p, func(int) (float64, error) { return 100, nil }, 7, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(off.Arrivals) != 7 {
		t.Fatalf("%d arrivals", len(off.Arrivals))
	}
	perPort := map[int][]packet.Arrival{}
	for i, a := range off.Arrivals {
		if a.Pkt.ID != uint64(i+1) || a.Pkt.InPort != a.Port || a.Pkt.Flow != a.Port || a.Pkt.BornPs != a.AtPs {
			t.Errorf("arrival %d: id %d, in port %d, flow %d on port %d", i, a.Pkt.ID, a.Pkt.InPort, a.Pkt.Flow, a.Port)
		}
		perPort[a.Port] = append(perPort[a.Port], a)
	}
	if len(perPort[0]) != 4 || len(perPort[3]) != 3 {
		t.Fatalf("port 0: %d, port 3: %d packets; want 4 and 3", len(perPort[0]), len(perPort[3]))
	}
	for port, as := range perPort {
		for k := 1; k < len(as); k++ {
			prev := as[k-1].Pkt.Len
			if want := int64(float64(packet.SerializationPs(prev, 100)) / 0.5); as[k].AtPs-as[k-1].AtPs != want {
				t.Errorf("port %d packet %d: gap %d ps after a %d-byte frame, want %d", port, k, as[k].AtPs-as[k-1].AtPs, prev, want)
			}
			if as[k].Pkt.Len == prev {
				t.Errorf("port %d: sizes do not cycle (%d twice)", port, prev)
			}
		}
	}
	if off.LastArrivalPs != max(perPort[0][3].AtPs, perPort[3][2].AtPs) {
		t.Errorf("last arrival %d", off.LastArrivalPs)
	}
	again, _ := Generate(p, func(int) (float64, error) { return 100, nil }, 7, 0.5, 1)
	for i := range again.Arrivals {
		if again.Arrivals[i].AtPs != off.Arrivals[i].AtPs {
			t.Fatal("the same seed must give the same trains")
		}
	}
	sorted := off.TimeOrdered()
	for k := 1; k < len(sorted); k++ {
		if sorted[k].AtPs < sorted[k-1].AtPs {
			t.Fatal("TimeOrdered is not in time order")
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	p := smallProgram(t, twoPorts)
	ok := func(int) (float64, error) { return 100, nil }
	for _, c := range []struct {
		rate    PortRate
		packets int
		load    float64
		want    string
	}{
		{func(port int) (float64, error) { return 0, errors.New("port 3 is not an ingress port") }, 7, 0.5, `small.yaml:`},
		{ok, 1, 0.5, "--packets 1: need at least one packet per ingress port (2 ports)"},
		{ok, 7, 0, "--load 0: must be in (0, 1]"},
		{ok, 7, 1.5, "--load 1.5: must be in (0, 1]"},
	} {
		if _, err := Generate(p, c.rate, c.packets, c.load, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	none := smallProgram(t, "")
	if _, err := Generate(none, ok, 7, 0.5, 1); err == nil || !strings.Contains(err.Error(), "has no traffic section") {
		t.Errorf("no traffic: %v", err)
	}
}
