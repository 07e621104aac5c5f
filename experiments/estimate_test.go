package experiments

import (
	"runtime"
	"testing"
)

// TestParallelJobs: --jobs is clamped to the runs and the cores.
func TestParallelJobs(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	for _, c := range []struct{ jobs, runs, want int }{
		{0, 100, cores}, {1, 100, 1}, {1000000, 100, min(100, cores)}, {1000000, 1, 1}, {5, 0, 1},
	} {
		if got := (Options{Jobs: c.jobs}).ParallelJobs(c.runs); got != c.want {
			t.Errorf("jobs %d, runs %d: %d in parallel, want %d", c.jobs, c.runs, got, c.want)
		}
	}
}

// TestEstimateBoundsTheRuns: the estimate is an upper bound on what the
// runs send and the events they cost.
func TestEstimateBoundsTheRuns(t *testing.T) {
	s, err := Load("trim-modes")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := s.Estimate(Options{}, 640, 30, 300)
	sent, events := 0.0, 0.0
	for _, r := range res.Runs {
		sent += float64(r.DataSent)
		events += float64(r.Events)
	}
	if e.Runs != len(res.Runs) || e.DataPackets < sent || e.Events < events || e.MaxRunBytes < 0 {
		t.Errorf("estimate %+v; the runs: %d, %.0f data packets, %.0f events", e, len(res.Runs), sent, events)
	}
	if half := s.Estimate(Options{Shard: 0, Shards: 2}, 640, 30, 300); half.Runs != (len(res.Runs)+1)/2 {
		t.Errorf("shard 0/2 estimates %d runs of %d", half.Runs, len(res.Runs))
	}
}
