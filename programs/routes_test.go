package programs

import (
	"strings"
	"testing"
)

// ndp's routes section builds one nexthop entry per host, each forwarding
// through the given port; it matches the static entry for the same host
// and port.
func TestRouteEntries(t *testing.T) {
	p, err := Resolve("ndp", nil)
	if err != nil {
		t.Fatal(err)
	}
	set, err := p.RouteEntries([]int{130, -1, 5})
	if err != nil {
		t.Fatal(err)
	}
	if set.Table != "nexthop_resolve" || len(set.Entries) != 2 {
		t.Fatalf("table %s, %d entries; want nexthop_resolve, 2 (host 1 has no port)", set.Table, len(set.Entries))
	}
	tb := p.Table("nexthop_resolve")
	for i, h := range []int{0, 2} {
		e := set.Entries[i]
		port := []int64{130, 5}[i]
		if e.Values[0] != int64(h+1) || e.Call.Action.Name != "ipv4_forward" || e.Call.Args[2] != port {
			t.Errorf("host %d: key %v, %s%v; want key %d, ipv4_forward(..., %d)", h, e.Values, e.Call.Action.Name, e.Call.Args, h+1, port)
		}
		// The static entry for host 2 on port 2 (its port in the single-
		// switch layout) has the same key and the same first arguments.
		static := tb.Entries[h]
		if static.Values[0] != e.Values[0] || static.Call.Args[0] != e.Call.Args[0] || static.Call.Args[1] != e.Call.Args[1] {
			t.Errorf("host %d: route %v%v, static %v%v", h, e.Values, e.Call.Args, static.Values, static.Call.Args)
		}
	}
}

func TestRoutesLoadErrors(t *testing.T) {
	for _, c := range []struct{ routes, want string }{
		{"routes:\n  table: nope\n  key: \"h\"\n  action: \"forward(p)\"\n", `routes: no table "nope"`},
		{"routes:\n  key: \"h\"\n", "routes: missing table"},
		{"routes:\n  table: fwd\n  key: \"h\"\n  action: \"jump(p)\"\n", "jump"},
		{"routes:\n  table: fwd\n  key: \"h\"\n  action: \"forward(p)\"\n  extra: 1\n", "extra"},
	} {
		_, err := Load([]byte(routeProg+c.routes), "r.yaml", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "r.yaml:") {
			t.Errorf("%q: error %v, want one naming the file and containing %q", c.routes, err, c.want)
		}
	}
	p, err := Load([]byte(routeProg), "r.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.RouteEntries([]int{1}); err == nil || !strings.Contains(err.Error(), "no routes section") {
		t.Errorf("a program without routes: %v", err)
	}
}

const routeProg = `program: r
headers:
  eth: {dst: 48, src: 48, etype: 16}
parser:
  states:
    start:
      extract: eth
actions:
  forward:
    params: {port: 9}
    do: std.egress_port = port
tables:
  fwd:
    key: {eth.dst: exact}
    actions: [forward]
    size: 16
ingress: |
  fwd.apply()
`
