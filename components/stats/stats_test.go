package stats

import (
	"math"
	"slices"
	"testing"
)

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

// same treats two NaNs as equal.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestQuantile(t *testing.T) {
	ten := []float64{7, 3, 10, 1, 9, 2, 8, 4, 6, 5}
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i)
	}
	for _, tc := range []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 0.5, math.NaN()},
		{"one sample, p 0", []float64{4}, 0, 4},
		{"one sample, p 1", []float64{4}, 1, 4},
		{"p 0 is the minimum", ten, 0, 1},
		{"below 0 clamps to the minimum", ten, -1, 1},
		{"smallest positive p", ten, 0.01, 1},
		{"p 0.1: first of ten", ten, 0.1, 1},
		{"just above 0.1: second", ten, 0.11, 2},
		{"p 0.5 of an even count is the lower middle", ten, 0.5, 5},
		{"p 0.9", ten, 0.9, 9},
		{"p 1 is the maximum", ten, 1, 10},
		{"above 1 clamps to the maximum", ten, 2, 10},
		{"p 0.5 of an odd count is the middle", []float64{3, 1, 2}, 0.5, 2},
		{"p99 of 100", hundred, 0.99, 99},
		{"p99 of 10", ten, 0.99, 10},
		{"ties", []float64{2, 1, 2, 2}, 0.5, 2},
	} {
		in := slices.Clone(tc.xs)
		if got := Quantile(tc.xs, tc.p); !same(got, tc.want) {
			t.Errorf("%s: Quantile(%v, %g) = %g, want %g", tc.name, tc.xs, tc.p, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("%s: Quantile reordered its input to %v", tc.name, tc.xs)
		}
		sorted := slices.Clone(tc.xs)
		slices.Sort(sorted)
		if got := QuantileSorted(sorted, tc.p); !same(got, tc.want) {
			t.Errorf("%s: QuantileSorted(%v, %g) = %g, want %g", tc.name, sorted, tc.p, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, math.NaN()},
		{"one", []float64{4}, 4},
		{"odd count: the middle", []float64{9, 1, 5}, 5},
		{"even count: mean of the two middles", []float64{4, 1, 3, 10}, 3.5},
		{"two", []float64{2, 1}, 1.5},
		{"ties", []float64{2, 2, 1, 3}, 2},
	} {
		in := slices.Clone(tc.xs)
		if got := Median(tc.xs); !same(got, tc.want) {
			t.Errorf("%s: Median(%v) = %g, want %g", tc.name, tc.xs, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("%s: Median reordered its input to %v", tc.name, tc.xs)
		}
	}
}

func TestCDF(t *testing.T) {
	for _, tc := range []struct {
		name      string
		xs        []float64
		wantX     []float64
		wantShare []float64
	}{
		{"empty", nil, nil, []float64{}},
		{"one", []float64{3}, []float64{3}, []float64{1}},
		{"four", []float64{4, 1, 3, 2}, []float64{1, 2, 3, 4}, []float64{0.25, 0.5, 0.75, 1}},
		{"ties keep one step each", []float64{2, 1, 2}, []float64{1, 2, 2}, []float64{1.0 / 3, 2.0 / 3, 1}},
	} {
		in := slices.Clone(tc.xs)
		x, share := CDF(tc.xs)
		if !slices.Equal(x, tc.wantX) || !slices.Equal(share, tc.wantShare) {
			t.Errorf("%s: CDF(%v) = %v, %v; want %v, %v", tc.name, tc.xs, x, share, tc.wantX, tc.wantShare)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("%s: CDF reordered its input to %v", tc.name, tc.xs)
		}
	}
}
