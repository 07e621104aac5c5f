package stats

import "testing"

func TestSummarize(t *testing.T) {
	var s Samples
	for i := 100; i >= 1; i-- {
		s.Add(int64(i) * 1000)
	}
	got := s.Summarize(1000)
	if got.N != 100 || got.Min != 1 || got.Max != 100 || got.Mean != 50.5 || got.P99 != 99 {
		t.Fatalf("summary %+v", got)
	}
	var empty Samples
	if empty.Summarize(1).N != 0 {
		t.Fatal("empty summary")
	}
}
