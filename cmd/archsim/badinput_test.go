package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputStyle: bad scenarios, programs, chip configs, aggregation
// settings and SONiC configs all fail the same way: exit 2, one line,
// FILE:LINE (or the flag that set the value), the field, what is wrong.
func TestBadInputStyle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	scenario := `scenario: t
doc: d
source: s
seed: 1
duration_us: 50
hosts: 4
link: {gbps: 100, prop_ns: 500}
workload: {kind: ndp, mss: 1564, ctrl: 64, window: 10, pull_rate: 0.99}
pattern: {kind: incast, senders: 2}
variants:
  - {name: T, chip: tofino, program: ndp}
`
	sc := func(name, from, to string) string { return write(name, strings.Replace(scenario, from, to, 1)) }
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--no-files", "--scenario", sc("field.yaml", "seed: 1", "seed: 1\ncolour: red")}, "field.yaml:5: colour: unknown field (allowed: aqm, doc, duration_us, hosts,"},
		{[]string{"run", "--no-files", "--scenario", sc("twodocs.yaml", "variants:", "---\nvariants:")}, "twodocs.yaml:11: a second YAML document (after ---); a file holds one, and the rest would be ignored"},
		{[]string{"--no-sim", "--program", "ndp", "--config", write("null-config.yaml", "tofino:\n  mau: {stages: null}\n")}, "null-config.yaml:2: tofino.mau.stages: no value (null); give one, or leave the key out for the default"},
		{[]string{"--no-sim", "--program", "ndp", "--config", write("twodocs-config.yaml", "tofino: {mau: {stages: 3}}\n---\ntofino: {mau: {stages: 30}}\n")}, "twodocs-config.yaml:3: a second YAML document"},
		{[]string{"--no-sim", "--program", write("twodocs-program.yaml", "program: a\n---\nprogram: b\n")}, "twodocs-program.yaml:3: a second YAML document"},
		{[]string{"run", "--no-files", "--scenario", sc("missing.yaml", "duration_us: 50\n", "")}, "missing.yaml:1: duration_us: missing (allowed: 0 < duration_us ≤ 1e6)"},
		{[]string{"run", "--no-files", "--scenario", sc("prog.yaml", "program: ndp", "program: nope")}, `prog.yaml:11: variants[0].program: unknown program "nope" (allowed: `},
		{[]string{"run", "--no-files", "--scenario", sc("set.yaml", "program: ndp}", "program: ndp, set: [tofino.mau.stages=2.5]}")}, "set.yaml:11: variants[0].set: --set tofino.mau.stages=2.5: must be an integer, got 2.5"},
		{[]string{"run", "--no-files", "--scenario", sc("param.yaml", "program: ndp}", "program: ndp, params: {NOPE: 3}}")}, "param.yaml:11: variants[0].program: "},
		{[]string{"run", "--no-files", "--scenario", sc("type.yaml", "hosts: 4", "hosts: four")}, `type.yaml:6: hosts: expected an integer, got the text "four"`},
		{[]string{"run", "--no-files", "--scenario", sc("range.yaml", "gbps: 100", "gbps: 100000")}, "range.yaml:7: link.gbps: got 100000 (allowed: 0.001 ≤ gbps ≤ 1600)"},
		{[]string{"--program", write("p.yaml", "program: x\nheaders:\n  h: {a: 8}\nparser:\n  states:\n    start:\n      extract: h\ningress: |\n  meta.nope = 1\n")}, "p.yaml:9: ingress: undefined field meta.nope"},
		{[]string{"--program", "ndp", "--config", write("dec.yaml", "tofino:\n  mau:\n    stages: 2.9\n")}, "dec.yaml:3: tofino.mau.stages: must be an integer, got 2.9"},
		{[]string{"--program", "ndp", "--config", write("key.yaml", "tofino:\n  mau:\n\n    stagez: 3\n")}, "key.yaml:4: tofino.mau.stagez: unknown config key"},
		{[]string{"--program", "ndp", "--set", "tofino.mau.stages=2.5"}, "--set tofino.mau.stages=2.5: must be an integer, got 2.5"},
		{[]string{"aggregate", "--set", "aggregation.training.window=2.5"}, "--set aggregation.training.window=2.5: must be an integer, got 2.5"},
		{[]string{"aggregate", "--set", "aggregation.host.nic_gbps=-1"}, "--set aggregation.host.nic_gbps=-1: aggregation.host.nic_gbps = -1 is out of range"},
		{[]string{"--program", "ndp", "--config", write("dupkey.yaml", "tofino:\n  mau:\n    stages: 3\n    stages: 4\n")}, "dupkey.yaml:4: tofino.mau.stages: given twice (first at line 3)"},
		{[]string{"--program", "ndp", "--config", write("list.yaml", "- tofino\n")}, "list.yaml:1: the file must be a mapping of config keys"},
		{[]string{"--program", "ndp", "--param", "T0_NS=abc"}, `ndp.yaml:18: constants T0_NS: the value given for it (--param or a scenario's params), "abc": undefined constant "abc"`},
		{[]string{"--program", "ndp", "--packets", "8", "--load", "1e-15"}, "--packets 8 at --load 1e-15: port 0's arrivals would span 1.41e+07 s of simulated time"},
		{[]string{"compare", "--program", "ndp", "--packets", "8", "--load", "1e-15"}, "--packets 8 at --load 1e-15: port 0's arrivals would span"},
		{[]string{"aggregate", "--gradients", "134217728", "--iterations", "1"}, "134217728 gradients at 1024 per packet are 131072 blocks per iteration; trio-ml's block records tell blocks apart by the low 16 bits of block_id"},
		// NaN passes a range check that compares; every way in refuses it.
		{[]string{"--program", "ndp", "--set", "tofino.clock_mhz=NaN"}, `--set tofino.clock_mhz=NaN: must be a finite number, got "NaN"`},
		{[]string{"--program", "ndp", "--clock-mhz", "NaN"}, "--clock-mhz NaN: must be a finite number"},
		{[]string{"--program", "ndp", "--load", "NaN"}, "--load NaN: must be a finite number"},
		{[]string{"--program", "ndp", "--config", write("nan.yaml", "tofino:\n  clock_mhz: .nan\n")}, "nan.yaml:2: tofino.clock_mhz: must be a finite number, got NaN"},
		{[]string{"--program", "ndp", "--set", "tofino.recirc_gbps=+Inf"}, "--set tofino.recirc_gbps=+Inf: must be a finite number"},
		{[]string{"aggregate", "--compare", "--probs", "NaN"}, "--probs [NaN]: must be a finite number"},
		{[]string{"aggregate", "--straggle-prob", "NaN"}, "--straggle-prob NaN: must be a finite number"},
		{[]string{"aggregate", "--set", "aggregation.straggler.probability=NaN"}, "--set aggregation.straggler.probability=NaN: must be a finite number"},
		{[]string{"aggregate", "--set", "aggregation.straggler.probability=0.5"}, "--set aggregation.straggler.probability: the trio.straggler.speedup claim's"},
		{[]string{"--program", "ndp", "--set", "tofino.name="}, "--set tofino.name=: tofino.name: must not be empty"},
		{[]string{"aggregate", "--set", "aggregation.straggler.slow_min=3"}, "--set aggregation.straggler.slow_min=3: aggregation.straggler.slow_max = 2 is out of range [3, 1000] (a bound set by aggregation.straggler.slow_min)"},
		{[]string{"aggregate", "--set", "aggregation.straggler.iterations=5"}, "--set aggregation.straggler.iterations: the trio.straggler.speedup claim's"},
		{[]string{"--program", "ndp", "--set", "tofino.mau.stages=18446744073709551615"}, "--set tofino.mau.stages=18446744073709551615: 18446744073709551615 is out of the integer range"},
		{[]string{"--program", "ndp", "--set", "tofino.tm.buffer_bytes=1"}, "tofino.tm.buffer_bytes = 1 is out of range [80, 1099511627776] (a bound set by tofino.tm.cell_bytes)"},
		{[]string{"--program", "ndp", "--set", "tofino.dev_port_pipe_stride=16"}, "--set tofino.dev_port_pipe_stride=16: tofino.recirc_local_port = 68 is out of range [16, 14] (a bound set by tofino.dev_port_pipe_stride)"},
		{[]string{"aggregate", "--switch", "tofino", "--gradients", "256", "--iterations", "10000", "--compute-ms", "1000000"}, "10000 iterations of 1000000 ms compute are 1e+07 s of simulated time, past the end of the engine's clock"},
		{[]string{"run", "--no-files", "--scenario", sc("nanscn.yaml", "prop_ns: 500", "prop_ns: .nan")}, "nanscn.yaml:7: link.prop_ns: got .nan (allowed: a finite number)"},
		{[]string{"run", "--no-files", "--scenario", sc("hosts.yaml", "hosts: 4", "hosts: 4.5")}, "hosts.yaml:6: hosts: got 4.5 (allowed: an integer)"},
		{[]string{"run", "--no-files", "--scenario", write("text.yaml", "a line of text\n")}, `text.yaml:1: expected a mapping of the fields aqm, doc, duration_us,`},
		{[]string{"run", "--no-files", "--scenario", sc("plot.yaml", "variants:", "plots: [{kind: header_cdf, file: ../up.png}]\nvariants:")}, `plot.yaml:10: plots[0].file: got "../up.png"`},
		{[]string{"run", "--no-files", "--scenario", sc("noprog.yaml", "program: ndp}", "}")}, "noprog.yaml:11: variants[0].program: missing: Tofino 1 runs a data-plane program"},
		{[]string{"run", "--scenario", sc("out.yaml", "", ""), "--out", write("notadir", "x") + "/sub"}, "--out " + filepath.Join(dir, "notadir") + "/sub: cannot write there:"},
		{[]string{"run", "--no-files", "--scenario", sc("rec.yaml", "", ""), "--records", write("notadir2", "x")}, "--records " + filepath.Join(dir, "notadir2") + ": cannot write there:"},
		{[]string{"--sonic-config", write("db.json", "{\n  \"PORT\": {\"Ethernet0\": {\"speed\": \"100000\"}},\n  \"BUFFER_POOL\": {\n    \"p\": {\"sizze\": 1}\n  }\n}\n")}, "db.json:4: BUFFER_POOL|p: sizze: unknown field"},
	}
	for _, c := range cases {
		out, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || out != "" {
			t.Errorf("%v: exit %d, %q; want exit 2, nothing on stdout and one line containing %q", c.args, code, msg, c.want)
		}
		for _, leak := range []string{"experiments.", "interface {}", "not found in type", "unmarshal"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%v: %q shows Go internals (%q)", c.args, msg, leak)
			}
		}
	}
}

// TestProtegoBadInput: a loss rate outside [0, 1), a target above the
// link's loss, a protected port whose pipe has no recirculation port for
// the buffer, and a buffer cap of 0 are each one line with FILE:LINE, exit
// 2, before anything runs.
func TestProtegoBadInput(t *testing.T) {
	base, err := os.ReadFile("../../configs/scenarios/protego-eq1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pair := "sw2: {chip: tofino, program: protego-sender}, sw6: {chip: tofino, program: protego-receiver}}\n    protego: {mode: ordered}"
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"rate.yaml", "loss: {rate: 1.0e-3}}", "loss: {rate: 1.5}}", "rate.yaml:23: topology.links[0].loss: rate must be in [0, 1), got 1.5"},
		{"negative.yaml", "loss: {rate: 1.0e-5}}", "loss: {rate: -1.0e-5}}", "negative.yaml:31: variants[0].protego.loss: rate must be in [0, 1), got -1e-05"},
		{"target.yaml", "target_loss: 1.0e-8", "target_loss: 1.0e-2", "target.yaml:26: protego.target_loss: got 0.01 (allowed: at most the link's loss rate 0.001"},
		{"recirc.yaml", pair, strings.Replace(pair, "protego-sender}", "protego-sender, params: {RECIRC: 196}}", 1), "recirc.yaml:38: variants[2].switches.sw2.program: protego.link 0: protego-sender's RECIRC is 196, but the protected port 1 has no recirculation port there: its pipe's is 68"},
		{"cap.yaml", pair, strings.Replace(pair, "protego-receiver}", "protego-receiver, params: {RXBUF_CELLS: 0}}", 1), "cap.yaml:38: variants[2].switches.sw6.program: protego.link 0: protego-receiver's RXBUF_CELLS is 0: the buffer needs room for at least one frame"},
	} {
		src := string(base)
		if !strings.Contains(src, c.from) {
			t.Fatalf("%s: %q not in protego-eq1.yaml", c.name, c.from)
		}
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(strings.Replace(src, c.from, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, msg, code := run(t, "run", "--no-files", "--scenario", p)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || out != "" {
			t.Errorf("%s: exit %d, %q; want exit 2, one line containing %q", c.name, code, msg, c.want)
		}
	}
}
