package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestBuiltinProgramsTable recomputes the README's table of built-in
// programs (placement on Tofino 1 and the latency means at --packets 2000
// --load 0.5), row by row, so the table cannot drift from the model.
// Every built-in program has a row.
func TestBuiltinProgramsTable(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every built-in program")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Built-in programs\n")
	if !ok {
		t.Fatal("README has no Built-in programs section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| [^|]+ \\| (.*)\\|$")
	rows := row.FindAllStringSubmatch(section, -1)
	if len(rows) < 10 {
		t.Fatalf("found %d rows in the README's table", len(rows))
	}
	listed := map[string]bool{}
	for _, r := range rows {
		name, cells := r[1], strings.Split(r[2], "|")
		listed[name] = true
		out, msg, code := run(t, "--program", name, "--packets", "2000", "--load", "0.5", "--json")
		var d struct {
			Feasible   bool               `json:"feasible"`
			Rule       string             `json:"rule"`
			StagesUsed int                `json:"stages_used"`
			StagesAll  int                `json:"stages_total"`
			Resources  map[string]float64 `json:"resources"`
			Latency    map[string]struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
			} `json:"latency"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%s: exit %d %s: %v", name, code, msg, err)
		}
		var want []string
		if !d.Feasible {
			want = []string{"rejected: `" + d.Rule + "`"}
		} else {
			want = []string{fmt.Sprintf("%d/%d", d.StagesUsed, d.StagesAll)}
			for _, k := range []string{"sram_pct", "tcam_pct", "hash_bits_pct", "vliw_pct", "crossbar_pct", "salu_pct"} {
				want = append(want, fmt.Sprintf("%.1f", d.Resources[k]))
			}
			for _, k := range []string{"ingress_ns", "egress_ns"} {
				if l := d.Latency[k]; l.N > 0 {
					want = append(want, fmt.Sprintf("%.0f", l.Mean))
				} else {
					want = append(want, "– (bypassed)")
				}
			}
		}
		for i, w := range want {
			got := ""
			if i < len(cells) {
				got = strings.TrimSpace(cells[i])
			}
			// A rejected row's cell goes on to say more; numbers are exact.
			if got != w && !(strings.HasPrefix(w, "rejected") && strings.HasPrefix(got, w)) {
				t.Errorf("%s: README column %d says %q, the model %q", name, i+3, got, w)
			}
		}
	}
	out, _, _ := run(t, "list", "--json")
	var l struct {
		Programs []struct {
			Name string `json:"name"`
		} `json:"programs"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Programs {
		if !listed[p.Name] {
			t.Errorf("built-in program %s has no row in the README's table", p.Name)
		}
	}
	if len(l.Programs) == 0 {
		t.Fatal("archsim list --json names no programs")
	}
}
