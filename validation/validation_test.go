package validation

import (
	"archsim/internal/golden"
	"encoding/json"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the claims goldens under testdata")

// TestClaims runs every validation claim with the model. Claims on the
// known-deviation list must still produce a measured value; all others must
// pass; a known deviation that passes must be taken off the list.
func TestClaims(t *testing.T) {
	ctx := NewContext()
	ctx.Long = longClaimsEnabled()
	ctx.Full = fullClaimsEnabled()
	results, err := RunWith(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	checkClaimsGolden(t, ctx.Long, results)
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.ID] = true
		if r.Err != "" {
			t.Errorf("%s: error: %s", r.ID, r.Err)
			continue
		}
		_, known := KnownDeviations[r.ID]
		if r.Skipped {
			t.Logf("%s: %s", r.ID, r.Measured)
			continue
		}
		switch {
		case r.Pass && known:
			t.Errorf("%s now passes (measured %s): remove it from KnownDeviations", r.ID, r.Measured)
		case !r.Pass && !known:
			t.Errorf("%s fails: expected %s, measured %s (tolerance %s)", r.ID, r.Expected, r.Measured, r.Tolerance)
		case !r.Pass:
			t.Logf("known deviation %s: expected %s, measured %s", r.ID, r.Expected, r.Measured)
		}
	}
	for id := range KnownDeviations {
		if !seen[id] {
			t.Errorf("KnownDeviations lists %s, which is not a claim", id)
		}
	}
}

func TestOnly(t *testing.T) {
	r, err := Run("pie.table3.dp")
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != 7 {
		t.Fatalf("pie.table3.dp selects %d claims, want 7", len(r))
	}
	if _, err := Run("no.such.claim"); err == nil {
		t.Fatal("an unknown --only id must be an error")
	}
	// Several ids or prefixes, a prefix with a trailing dot, each claim once.
	r, err = RunSome(NewContext(), []string{"pie.table3.dp.", "pie.params", "pie.table3.dp.sram"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != 8 {
		t.Fatalf("pie.table3.dp., pie.params, pie.table3.dp.sram select %d claims, want 8", len(r))
	}
	if _, err := RunSome(NewContext(), []string{"pie.params", "nope"}); err == nil || !strings.Contains(err.Error(), `--only "nope" matches no claim (groups: pie.placement`) {
		t.Fatalf("an unknown one among several: %v", err)
	}
}

func TestPIERFCRejectionNamesRuleRegisterAndStages(t *testing.T) {
	r, err := Run("pie.placement.rfc-rejected")
	if err != nil {
		t.Fatal(err)
	}
	if !r[0].Pass {
		t.Fatalf("measured %s", r[0].Measured)
	}
}

func TestResultJSONNonFinite(t *testing.T) {
	b, err := json.Marshal(Result{ID: "x", Value: math.Inf(1), Target: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"measured_value":null`) || !strings.Contains(string(b), `"expected_value":2`) || strings.Count(string(b), "measured_value") != 1 {
		t.Errorf("got %s", b)
	}
}

// checkClaimsGolden compares every claim's result (measured values,
// verdicts, notes) with what the model printed when the golden was
// recorded: claims-short.json for the default run (sweeps cut to the
// values the claims need), claims-long.json with ARCHSIM_LONG=1 (what
// `archsim validate --json` prints). Rerun with -update to record a
// deliberate change and review the diff.
func checkClaimsGolden(t *testing.T, long bool, results []Result) {
	t.Helper()
	path := filepath.Join("testdata", "claims-short.json")
	if long {
		path = filepath.Join("testdata", "claims-long.json")
	}
	got, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, path, got, *update)
}
