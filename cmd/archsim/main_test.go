package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the CLI in-process and returns stdout, the error message
// and the exit status main would use.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out bytes.Buffer
	cmd := newRootCmd(&out)
	cmd.SetArgs(args)
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	if err == nil {
		return out.String(), "", 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return out.String(), ee.msg, ee.code
	}
	return out.String(), err.Error(), 2
}

func TestMainJobTables(t *testing.T) {
	out, msg, code := run(t, "--arch", "tofino", "--program", "ndp", "--packets", "400")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, want := range []string{"fits in", "Placement", "Why this stage", "Stateful+Meter ALUs", "Exact+Ternary match crossbar", "Measured latency", "ingress", "egress", "p99"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestMainJobJSONContract(t *testing.T) {
	out, msg, code := run(t, "--program", "pie-dp", "--json", "--packets", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"arch", "program", "feasible", "errors", "stages_used", "stages_total", "resources", "per_stage", "latency"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks key %q", k)
		}
	}
	res := m["resources"].(map[string]any)
	for _, k := range []string{"stages_pct", "sram_pct", "tcam_pct", "hash_bits_pct", "vliw_pct", "crossbar_pct", "salu_pct"} {
		if _, ok := res[k]; !ok {
			t.Errorf("resources lacks %q", k)
		}
	}
	lat := m["latency"].(map[string]any)
	for _, th := range []string{"ingress_ns", "egress_ns"} {
		o := lat[th].(map[string]any)
		for _, k := range []string{"min", "mean", "p99", "max"} {
			if _, ok := o[k]; !ok {
				t.Errorf("latency.%s lacks %q", th, k)
			}
		}
	}
	if m["feasible"] != true || m["stages_used"].(float64) != 11 {
		t.Errorf("pie-dp: feasible %v, stages %v", m["feasible"], m["stages_used"])
	}
}

func TestPIERFCRejected(t *testing.T) {
	out, msg, code := run(t, "--program", "pie-rfc")
	if code == 0 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"stage-local-memory", "drop_probability_reg", "stages"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Fatal("error is not one line")
	}
	out, _, code = run(t, "--program", "pie-rfc", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil || code == 0 {
		t.Fatalf("json %v exit %d", err, code)
	}
	if m["feasible"] != false || len(m["errors"].([]any)) != 1 {
		t.Fatalf("feasible %v errors %v", m["feasible"], m["errors"])
	}
}

func TestDeterministicOutput(t *testing.T) {
	a, _, _ := run(t, "--program", "ndp", "--packets", "500", "--seed", "5")
	b, _, _ := run(t, "--program", "ndp", "--packets", "500", "--seed", "5")
	if a != b || a == "" {
		t.Fatal("the same command printed different output")
	}
}

func TestChipOverrides(t *testing.T) {
	_, msg, code := run(t, "--program", "pie-dp", "--no-sim", "--stages", "10")
	if code != 1 || !strings.Contains(msg, "stage-budget") {
		t.Fatalf("pie-dp with 10 stages: exit %d %q", code, msg)
	}
	out, _, code := run(t, "--program", "pie-dp", "--no-sim", "--set", "tofino.mau.stages=20")
	if code != 0 || !strings.Contains(out, "of 20 MAU stages") {
		t.Fatalf("--set stages=20: exit %d", code)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "chip.yaml")
	os.WriteFile(cfg, []byte("tofino:\n  mau:\n    stages: 16\n"), 0o644)
	out, _, code = run(t, "--program", "pie-dp", "--no-sim", "--config", cfg)
	if code != 0 || !strings.Contains(out, "of 16 MAU stages") {
		t.Fatalf("--config: exit %d", code)
	}
}

func TestUserProgramFile(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../programs/testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "mine.yaml")
	os.WriteFile(f, data, 0o644)
	out, msg, code := run(t, "--program", f, "--packets", "50")
	if code != 0 || !strings.Contains(out, "small on Tofino 1") {
		t.Fatalf("exit %d: %s", code, msg)
	}
}

// TestBadInput: one-line errors naming what and where, exit 2, nothing on
// stdout.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	badProg := write("bad.yaml", "program: x\nheaders:\n  h: {a: 8}\nparser:\n  states:\n    start:\n      extract: h\ningress: |\n  meta.nope = 1\n")
	badCfg := write("cfg.yaml", "tofino:\n  mau:\n    stagez: 3\n")
	rangeCfg := write("range.yaml", "tofino:\n  mau:\n    stages: 0\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "nope", "--program", "ndp"}, `unknown architecture`},
		{[]string{"--program", "nope"}, `unknown program "nope"`},
		{[]string{"--program", badProg}, "bad.yaml:9: ingress: undefined field meta.nope"},
		{[]string{"--program", filepath.Join(dir, "missing.yaml")}, "cannot read program"},
		{[]string{"--program", "ndp", "--config", badCfg}, "cfg.yaml:3: tofino.mau.stagez: unknown config key"},
		{[]string{"--program", "ndp", "--config", rangeCfg}, "range.yaml:3: tofino.mau.stages = 0 is out of range"},
		{[]string{"--program", "ndp", "--set", "tofino.mau.stages=x"}, "expected an integer"},
		{[]string{"--program", "ndp", "--set", "nokey"}, "expected key=value"},
		{[]string{"--program", "ndp", "--load", "2"}, "--load 2"},
		{[]string{"--program", "ndp", "--packets", "0"}, "--packets 0"},
		{[]string{"--program", "protego-sender", "--param", "PORTZ=4"}, "no such constant"},
		{[]string{"--program", "ndp", "--no-sim", "--packets", "50"}, "--packets is the latency simulation's, and --no-sim skips it"},
		{[]string{"--program", "ndp", "--no-sim", "--tie-break", "akita"}, "--tie-break is the latency simulation's, and --no-sim skips it"},
		{[]string{"--program", "ndp", "--no-sim", "--seed", "5"}, "--seed is the latency simulation's, and --no-sim skips it"},
		{[]string{"list", "--tie-break", "akita"}, "--tie-break is for commands that simulate, and list simulates nothing"},
		{[]string{"validate", "--only", ""}, "--only is given an empty value"},
		{[]string{"list", "--cpuprofile", "/tmp/x.prof", "--memprofile", "/tmp/./x.prof"}, "--cpuprofile and --memprofile both name /tmp/x.prof: one profile would overwrite the other"},
		{[]string{"run", "--scenario", "trim-fig6", "--out", ""}, "--out is given an empty value"},
		{[]string{"--program", "ndp", "--param", ""}, "--param is given an empty value"},
		{[]string{"show", "--program", "ndp", "--max-events", "5"}, "--max-events is for commands that simulate, and show simulates nothing"},
		{[]string{"merge", "x", "--max-memory", "1GiB"}, "--max-memory is for commands that simulate, and merge simulates nothing"},
		{[]string{"--program", "ndp", "--param", "T0_NS=-5"}, `ndp.yaml:18: constants T0_NS: the value given for it (--param or a scenario's params), "-5", is below its minimum 0`},
		{[]string{}, "missing --program"},
		{[]string{"validate", "--only", "nope"}, "matches no claim"},
		{[]string{"show"}, "missing --program"},
		{[]string{"compare", "--program", "ndp", "--arch", "tofino,tofino"}, "--arch: tofino is given twice"},
		{[]string{"bench", "--only", "trio-ml", "--packets", "100"}, "--packets sizes the pipeline/* workloads, not trio-ml"},
		{[]string{"bench", "--only", "trim-fig6/Tofino", "--frames", "5000"}, "--frames sizes the protego-10M/* workloads"},
		{[]string{"bench", "--only", "pipeline/tofino", "--packets", "2"}, "--packets 2: need at least one packet per ingress port (5 ports)"},
		{[]string{"bench", "--packets", "3"}, "--packets 3: need at least one packet per ingress port (5 ports)"},
		{[]string{"bench", "--only", "trio-ml,trio-ml"}, `--only "trio-ml": given twice`},
		{[]string{"compare", "--program", "ndp", "--arch", "trio,trio5"}, "--arch: trio and trio5 are the same chip (trio5.yaml)"},
		{[]string{"validate", "--seed-offset", "-1"}, "--seed-offset -1"},
	}
	for _, c := range cases {
		out, msg, code := run(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", c.args, code, msg)
		}
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: error %q, want one line containing %q", c.args, msg, c.want)
		}
		if out != "" {
			t.Errorf("%v: wrote %q to stdout", c.args, out)
		}
	}
}

func TestList(t *testing.T) {
	out, _, code := run(t, "list")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"tofino", "tofino2", "ndp", "pie-rfc", "protego-sender", "switchml", "Scenario", "trim-fig6"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q", want)
		}
	}
}

func TestValidateJSON(t *testing.T) {
	out, _, code := run(t, "validate", "--only", "pie.placement", "--json")
	if code != 0 {
		t.Fatalf("pie.placement claims: exit %d\n%s", code, out)
	}
	var rs []map[string]any
	if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 4 {
		t.Fatalf("%v, %d results", err, len(rs))
	}
	for _, k := range []string{"id", "source", "expected", "measured", "pass"} {
		if _, ok := rs[0][k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
}

// TestRunScenarioJSONContract checks the keys `archsim run --json` promises.
func TestRunScenarioJSONContract(t *testing.T) {
	out, msg, code := run(t, "run", "--scenario", "trim-modes", "--json", "--no-files", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var res struct {
		Scenario string                   `json:"scenario"`
		Runs     []map[string]interface{} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Scenario != "trim-modes" || len(res.Runs) != 2 { // Tofino and Tofino-paper
		t.Fatalf("scenario %q, %d runs", res.Scenario, len(res.Runs))
	}
	for _, k := range []string{"variant", "data_sent", "delivered_full", "delivered_trimmed", "dropped", "trims_ingress", "trims_dod",
		"max_dod_queue_pkts", "goodput_gbps", "mean_goodput_gbps", "conservation_ok", "events_per_packet"} {
		if _, ok := res.Runs[0][k]; !ok {
			t.Errorf("run lacks key %q", k)
		}
	}
	if res.Runs[0]["trims_ingress"].(float64) == 0 {
		t.Error("trim-modes must trim at ingress")
	}
	again, _, _ := run(t, "run", "--scenario", "trim-modes", "--json", "--no-files", "--quiet")
	if again != out {
		t.Error("same scenario and seed: output differs")
	}
}

func TestRunWritesCSVAndPlots(t *testing.T) {
	dir := t.TempDir()
	out, msg, code := run(t, "run", "--scenario", "trim-timeline", "--out", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, want := range []string{"Trims ingress", "Max DoD queue", "Conserved", "runs.csv"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	for _, f := range []string{"runs.csv", "flows.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(pngs) == 0 {
		t.Error("no PNG plot written")
	}
	for _, p := range pngs {
		b, _ := os.ReadFile(p)
		if len(b) < 8 || string(b[1:4]) != "PNG" {
			t.Errorf("%s is not a PNG", p)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "missing --scenario"},
		{[]string{"run", "--scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"run", "--scenario", "trim-modes", "--shard", "2/2"}, "--shard"},
		{[]string{"run", "--scenario", "trim-modes", "--jobs", "-1"}, "--jobs -1"},
	}
	for _, c := range cases {
		out, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || out != "" {
			t.Errorf("%v: exit %d, error %q, stdout %q; want exit 2 and one line containing %q", c.args, code, msg, out, c.want)
		}
	}
}

func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 64-sender Fig. 6 point twice")
	}
	out, msg, code := run(t, "bench", "--json", "--in-process", "--packets", "500", "--frames", "20000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 16 {
		t.Fatalf("%d rows, want 16", len(rows))
	}
	for _, r := range rows {
		for _, k := range []string{"workload", "wall_s", "events", "events_per_packet", "packets_per_s", "switch_hops", "hops_per_s", "events_per_hop", "allocs_per_hop", "peak_rss_mb"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%v lacks %q", r["workload"], k)
			}
		}
		// A trio-ml packet carries 1024 gradients: a synchronous tail fetch
		// per 64 bytes is an event each (the compare point's Trio-ML jobs
		// too; its SwitchML-256 packets take four passes each).
		limit := 40.0
		if w := r["workload"].(string); strings.HasPrefix(w, "trio-ml") || strings.HasPrefix(w, "one point of aggregate --compare") {
			limit = 250
		}
		// Protego on Trio: every synchronous transaction of a thread
		// (register reads, lookups, buffer descriptors) is an event, and
		// a frame passes four threads plus the receiver's timer runs.
		if strings.HasSuffix(r["workload"].(string), "Protego-trio") {
			limit = 60
		}
		if r["events"].(float64) <= 0 || r["events_per_packet"].(float64) > limit {
			t.Errorf("%v: %v events, %v per packet", r["workload"], r["events"], r["events_per_packet"])
		}
	}
	if _, msg, code := run(t, "bench", "--packets", "0"); code != 2 || !strings.Contains(msg, "--packets 0") {
		t.Errorf("bad --packets: exit %d, %q", code, msg)
	}
	if _, msg, code := run(t, "bench", "--only", "nope"); code != 2 || !strings.Contains(msg, "htsim-incast-2m/Ideal") {
		t.Errorf("bad --only: exit %d, %q", code, msg)
	}
}

func TestSonicConfig(t *testing.T) {
	out, msg, code := run(t, "--sonic-config", "incast-trim", "--packets", "300", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var rep struct {
		Program string `json:"program"`
		Sonic   struct {
			Config   string         `json:"config"`
			Trimming map[string]any `json:"trimming"`
			Counters struct {
				Queues []map[string]any `json:"queues"`
				Switch map[string]any   `json:"switch"`
			} `json:"counters"`
		} `json:"sonic"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Program != "sonic-l3" || rep.Sonic.Config != "incast-trim" || rep.Sonic.Trimming["size"] != 256.0 {
		t.Errorf("program %q, sonic %+v", rep.Program, rep.Sonic)
	}
	if len(rep.Sonic.Counters.Queues) == 0 {
		t.Error("no queue counters: the probes were not routed by the configuration's STATIC_ROUTEs")
	}
	tables, _, code := run(t, "--sonic-config", "incast-trim", "--packets", "300")
	if code != 0 || !strings.Contains(tables, "TRIM_TX_PKTS") || !strings.Contains(tables, "Trimming size") {
		t.Errorf("tables lack the SONiC counters:\n%s", tables)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"SWITCH_TRIMMING": {"GLOBAL": {"size": "256", "dscp_value": "64", "queue_index": "6"}}}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--sonic-config", "nope"}, `unknown SONiC config "nope"`},
		{[]string{"--program", "ndp", "--sonic-config", "incast-trim"}, "programs the sonic-l3 program, not ndp"},
		{[]string{"--sonic-config", bad}, "SWITCH_TRIMMING|GLOBAL: dscp_value"},
		{[]string{"run", "--scenario", "sonic-t23", "--sonic-config", bad}, "SWITCH_TRIMMING|GLOBAL: dscp_value"},
		{[]string{"run", "--scenario", "trim-modes", "--sonic-config", "incast-trim"}, "has no variant running sonic-l3"},
	}
	for _, c := range cases {
		out, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") || out != "" {
			t.Errorf("%v: exit %d, error %q; want exit 2 and one line containing %q", c.args, code, msg, c.want)
		}
	}
}

func TestTrioMainJob(t *testing.T) {
	out, msg, code := run(t, "--arch", "trio", "--program", "pie-rfc", "--packets", "300", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"arch", "chip", "program", "feasible", "errors", "instructions", "xtxn_sites", "xtxn_per_packet", "memory", "latency", "rate", "simulation"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("trio report lacks %q", k)
		}
	}
	if rep["feasible"] != true || rep["arch"] != "trio" {
		t.Errorf("pie-rfc on Trio: feasible %v, arch %v", rep["feasible"], rep["arch"])
	}
	tables, _, code := run(t, "--arch", "trio6", "--program", "ndp", "--packets", "300")
	for _, want := range []string{"Trio 6 slice", "Micro-instructions by block", "External transactions", "Sustainable Mpps", "Binding limit"} {
		if code != 0 || !strings.Contains(tables, want) {
			t.Errorf("trio6 tables lack %q (exit %d)", want, code)
		}
	}
	again, _, _ := run(t, "--arch", "trio", "--program", "pie-rfc", "--packets", "300", "--json")
	if again != out {
		t.Error("same command, different output")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "trio", "--program", "ndp", "--stages", "10"}, "--stages: --arch trio has no stages knob"},
		{[]string{"--arch", "trio", "--program", "ndp", "--set", "trio.ppes=0"}, "trio.ppes = 0 is out of range"},
		{[]string{"--arch", "trio", "--program", "ndp", "--set", "trio.nope=1"}, "unknown config key"},
	} {
		out, msg, code := run(t, c.args...)
		if code != 2 || !strings.Contains(msg, c.want) || out != "" {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", c.args, code, msg, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	out, msg, code := run(t, "compare", "--program", "pie-rfc", "--packets", "300", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var res struct {
		Results []struct {
			Arch string `json:"arch"`
			Fits bool   `json:"fits"`
			Why  string `json:"why"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 || res.Results[0].Fits || !strings.Contains(res.Results[0].Why, "stage-local-memory") || !res.Results[1].Fits {
		t.Errorf("pie-rfc: want rejected on Tofino (stage-local-memory) and running on Trio, got %+v", res.Results)
	}
}

// `archsim aggregate`: the JSON keys scripts rely on, a correct run on
// each switch, and one-line errors with exit status 2 for bad input.
func TestAggregate(t *testing.T) {
	for _, sw := range []string{"trio", "tofino"} {
		out, errOut, code := run(t, "aggregate", "--switch", sw, "--workers", "4", "--gradients", "8192", "--window", "8", "--iterations", "2", "--compute-ms", "0.1", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", sw, code, errOut)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"switch", "program", "workers", "gradients_per_packet", "window", "iterations", "done", "mean_iteration_ms",
			"block_latency_us", "throughput_gbps", "packets_sent", "results_received", "degraded_results", "wrong_results", "switch_consumed", "events"} {
			if _, ok := r[k]; !ok {
				t.Errorf("%s: JSON lacks %q", sw, k)
			}
		}
		if r["done"] != true || r["wrong_results"].(float64) != 0 || r["results_received"] != r["packets_sent"] {
			t.Errorf("%s: done %v, wrong %v, sent %v, received %v", sw, r["done"], r["wrong_results"], r["packets_sent"], r["results_received"])
		}
	}
	for _, args := range [][]string{
		{"aggregate", "--switch", "nic"},
		{"aggregate", "--straggle-prob", "2"},
		{"aggregate", "--workers", "5"},
		{"aggregate", "--window", "-3"},
		{"aggregate", "--first-level", "-7"},
		{"aggregate", "--compare", "--probs", "0,0.1,0"},
		{"aggregate", "--window", "65536", "--iterations", "1", "--gradients", "4096"},
		{"aggregate", "--workers", "1", "--iterations", "1", "--gradients", "4096"},
		{"aggregate", "--set", "aggregation.host.nic_gbps=fast"},
		// Flags the run would ignore.
		{"aggregate", "--switch", "tofino", "--first-level", "2"},
		{"aggregate", "--typical-ms", "100"},
		{"aggregate", "--probs", "0.1"},
		{"aggregate", "--compare", "--straggle-prob", "0.1"},
		{"aggregate", "--switch", "trio", "--pool", "64"},
	} {
		_, errOut, code := run(t, args...)
		if code != 2 || errOut == "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, errOut)
		}
	}
}

// `archsim aggregate --compare`: one point per probability, each with
// both switches' iteration times (JSON contract).
func TestAggregateCompare(t *testing.T) {
	out, errOut, code := run(t, "aggregate", "--compare", "--workers", "2", "--gradients", "4096", "--iterations", "2", "--compute-ms", "1",
		"--first-level", "0", "--probs", "0,0.5", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Points []map[string]any `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 {
		t.Fatalf("%d points, want 2", len(r.Points))
	}
	for _, pt := range r.Points {
		for _, k := range []string{"probability", "typical_iteration_ms", "trio_ml_iteration_ms", "switchml_iteration_ms", "speedup", "sleeps"} {
			if _, ok := pt[k]; !ok {
				t.Errorf("point lacks %q", k)
			}
		}
	}
	if _, errOut, code := run(t, "aggregate", "--compare", "--probs", "1.5", "--iterations", "1", "--gradients", "1024"); code != 2 || errOut == "" {
		t.Errorf("--probs 1.5: exit %d, %q", code, errOut)
	}
}

// TestTieBreak: the default order is FIFO (first scheduled, first
// handled); --tie-break akita runs the simulations with same-time events in
// Akita's heap order instead, which changes a run full of ties (the
// incast's senders start in the same picosecond; on the Tofino model the
// egress threads and the hosts take them in the engine's order), says so
// on stderr, and leaves the next command in the default order. The ideal
// switch's run of the same incast does not depend on the order at all: its
// ports begin service on an arrival, as htsim's queue does.
func TestTieBreak(t *testing.T) {
	ideal := []string{"run", "--scenario", "htsim-incast-512k", "--variant", "Ideal", "--no-files", "--quiet", "--json"}
	base, _, _ := run(t, ideal...)
	for _, tb := range []string{"fifo", "akita", "random:1"} {
		if o, msg, code := run(t, append(ideal, "--tie-break", tb)...); code != 0 || o != base {
			t.Errorf("ideal switch, --tie-break %s: exit %d %s, output differs from the default order's", tb, code, msg)
		}
	}
	args := []string{"run", "--scenario", "htsim-incast-512k", "--variant", "Tofino", "--no-files", "--quiet", "--json"}
	fifo, msg, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if again, _, _ := run(t, append(args, "--tie-break", "fifo")...); again != fifo {
		t.Error("--tie-break fifo: not the default's output")
	}
	var out, errs bytes.Buffer
	cmd := newRootCmd(&out)
	cmd.SetArgs(append(args, "--tie-break", "akita"))
	cmd.SetErr(&errs)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if out.String() == fifo {
		t.Error("--tie-break akita: the same output as the default FIFO order")
	}
	if !strings.Contains(errs.String(), "same-time events in akita order") {
		t.Errorf("--tie-break akita: stderr %q does not say so", errs.String())
	}
	if again, msg, code := run(t, args...); code != 0 || again != fifo {
		t.Errorf("the command after --tie-break akita: exit %d %s, output the same as before: %v", code, msg, again == fifo)
	}
	// A seeded random order: its own results, the same for the same seed.
	r1, _, _ := run(t, append(args, "--tie-break", "random:1")...)
	r1again, _, _ := run(t, append(args, "--tie-break", "random:1")...)
	if r1 == "" || r1 == fifo || r1 == out.String() || r1 != r1again {
		t.Errorf("--tie-break random:1: empty %v, same as fifo %v, same as akita %v, not repeatable %v", r1 == "", r1 == fifo, r1 == out.String(), r1 != r1again)
	}
}

// Trio's line-rate verdict compares the probe's rate with the line rate
// of the probe's own frames: it does not change with --packets (with 5
// packets the latency run's 64-byte frames made the line rate 568 Mpps and
// the verdict false).
func TestTrioLineRateVerdictIndependentOfPackets(t *testing.T) {
	verdict := func(n string) string {
		out, msg, code := run(t, "--arch", "trio", "--program", "ndp", "--packets", n, "--json")
		if code != 0 {
			t.Fatalf("--packets %s: exit %d %s", n, code, msg)
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		var find func(any) map[string]any
		find = func(o any) map[string]any {
			if m, ok := o.(map[string]any); ok {
				if _, ok := m["sustains_line_rate"]; ok {
					return m
				}
				for _, v := range m {
					if r := find(v); r != nil {
						return r
					}
				}
			}
			return nil
		}
		s := find(d)
		if s == nil {
			t.Fatalf("--packets %s: no saturation in the JSON", n)
		}
		return fmt.Sprint(s["line_rate_mpps"], s["sustains_line_rate"])
	}
	if a, b := verdict("5"), verdict("3000"); a != b {
		t.Errorf("line rate and verdict with 5 packets %s, with 3000 %s", a, b)
	}
}
