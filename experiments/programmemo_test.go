package experiments

import (
	"sync"
	"testing"

	"archsim/programs"
)

// TestScenarioSharesPrograms: a scenario loads a program once per set of
// constants, for Preflight, Estimate and every run, also when runs in
// parallel ask for it at once; other constants are another program.
func TestScenarioSharesPrograms(t *testing.T) {
	s, err := Load("htsim-incast-512k")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{"DATA_QUEUE_CELLS": "1750"}
	got := make([]*programs.Program, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := s.checkedProgram("ndp", params)
			if err != nil {
				t.Error(err)
			}
			got[i] = p
		}()
	}
	wg.Wait()
	for i, p := range got {
		if p == nil || p != got[0] {
			t.Fatalf("caller %d got program %p, caller 0 %p: want one shared load", i, p, got[0])
		}
	}
	other, err := s.checkedProgram("ndp", map[string]string{"DATA_QUEUE_CELLS": "875"})
	if err != nil {
		t.Fatal(err)
	}
	if other == got[0] {
		t.Fatal("other constants returned the same program")
	}
}
