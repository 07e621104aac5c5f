package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"archsim/internal/golden"
	"archsim/programs"
)

// The goldens hold what users see today: the main job's JSON for every
// built-in program on every chip, its tables for one program per chip,
// two scenarios' JSON, compare (JSON and table) and list. A change in any
// of them must be deliberate: rerun with -update and review the diff.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenArchs are the chip names the main job accepts.
var goldenArchs = []string{"tofino", "tofino2", "trio", "trio5", "trio6"}

type goldenCase struct {
	file string
	args []string
}

func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, a := range goldenArchs {
		for _, p := range programs.Builtins() {
			cs = append(cs, goldenCase{fmt.Sprintf("main/%s-%s.json", a, p), []string{"--arch", a, "--program", p, "--json"}})
		}
		cs = append(cs, goldenCase{fmt.Sprintf("tables/%s-ndp-switchp4.txt", a), []string{"--arch", a, "--program", "ndp-switchp4"}})
	}
	cs = append(cs,
		goldenCase{"tables/tofino-ndp-sonic.txt", []string{"--sonic-config", "incast-trim"}},
		goldenCase{"run/trim-fig5a.json", []string{"run", "--scenario", "trim-fig5a", "--json", "--no-files", "--quiet"}},
		goldenCase{"run/trim-modes.json", []string{"run", "--scenario", "trim-modes", "--json", "--no-files", "--quiet"}},
		goldenCase{"run/trim-modes.txt", []string{"run", "--scenario", "trim-modes", "--no-files", "--quiet"}},
		goldenCase{"compare/pie-rfc.json", []string{"compare", "--program", "pie-rfc", "--json"}},
		goldenCase{"compare/pie-rfc.txt", []string{"compare", "--program", "pie-rfc"}},
		goldenCase{"compare/ndp.json", []string{"compare", "--program", "ndp", "--json"}},
		goldenCase{"list.txt", []string{"list"}},
		goldenCase{"errors/pie-rfc-tofino.txt", []string{"--program", "pie-rfc"}},
		goldenCase{"errors/trio-ml-tofino2.txt", []string{"--arch", "tofino2", "--program", "trio-ml"}},
		goldenCase{"errors/ndp-tofino2.txt", []string{"--arch", "tofino2", "--program", "ndp"}},
		goldenCase{"errors/trio-stages.txt", []string{"--arch", "trio", "--program", "ndp", "--stages", "10"}},
		goldenCase{"errors/trio-sonic.txt", []string{"--arch", "trio", "--sonic-config", "incast-trim"}},
		goldenCase{"errors/unknown-arch.txt", []string{"--arch", "nope", "--program", "ndp"}},
		goldenCase{"errors/unknown-program.txt", []string{"--program", "nope"}},
		goldenCase{"errors/bad-set.txt", []string{"--program", "ndp", "--set", "tofino.mau.stages=x"}},
		goldenCase{"errors/range-set.txt", []string{"--program", "ndp", "--set", "tofino.mau.stages=0"}},
		goldenCase{"errors/range-flag.txt", []string{"--program", "ndp", "--stages", "0"}},
		goldenCase{"errors/trio-range-set.txt", []string{"--arch", "trio6", "--program", "ndp", "--set", "trio.ppes=0"}},
		goldenCase{"errors/trio-clock-flag.txt", []string{"--arch", "trio", "--program", "ndp", "--clock-mhz", "0"}},
		goldenCase{"errors/unknown-key.txt", []string{"--arch", "trio", "--program", "ndp", "--set", "tofino.mau.stages=3"}},
		goldenCase{"errors/load.txt", []string{"--program", "ndp", "--load", "2"}},
		goldenCase{"errors/packets.txt", []string{"--arch", "trio", "--program", "ndp", "--packets", "0"}},
		goldenCase{"errors/param.txt", []string{"--program", "protego-sender", "--param", "PORTZ=4"}},
		goldenCase{"errors/compare-param.txt", []string{"compare", "--program", "ndp", "--param", "X"}},
		goldenCase{"errors/run-unknown.txt", []string{"run", "--scenario", "nope"}},
		goldenCase{"errors/sonic-wrong-program.txt", []string{"--program", "ndp", "--sonic-config", "incast-trim"}},
		goldenCase{"tables/tofino-stages10-pie-dp.txt", []string{"--program", "pie-dp", "--stages", "10", "--no-sim"}},
		goldenCase{"tables/tofino2-pie-rfc-what-if.txt", []string{"--arch", "tofino2", "--program", "pie-rfc", "--set", "tofino.features.early_read_late_write=true", "--packets", "500"}},
		goldenCase{"tables/trio6-clock.txt", []string{"--arch", "trio6", "--program", "pie-dp", "--clock-mhz", "1000", "--packets", "500"}},
		goldenCase{"list.json", []string{"list", "--json"}},
	)
	return cs
}

// TestGoldens runs every golden command in-process and compares stdout,
// the exit status and the error message byte for byte.
func TestGoldens(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			out, msg, code := run(t, c.args...)
			got := fmt.Sprintf("# archsim %s\n# exit %d: %s\n%s", strings.Join(c.args, " "), code, msg, out)
			golden.Check(t, filepath.Join("testdata", "golden", c.file), []byte(got), *update)
		})
	}
}
