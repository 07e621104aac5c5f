package stats

import (
	"encoding/json"
	"math"
	"math/rand"
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

// oldSummarize is the summary the list-based Samples computed: the samples
// sorted as float64, summed in that order.
func oldSummarize(xs []int64, scale float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = float64(x)
	}
	slices.Sort(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	return Summary{N: len(v), Min: v[0] / scale, Mean: sum / float64(len(v)) / scale,
		P99: QuantileSorted(v, 0.99) / scale, Max: v[len(v)-1] / scale}
}

func floats(xs []int64) []float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = float64(x)
	}
	return v
}

// While it has at most MaxExact distinct values a Samples answers exactly
// what the list of samples gives, merged or not.
func TestSamplesExactRegime(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 50; trial++ {
		distinct := 1 + rng.Intn(MaxExact)
		vals := make([]int64, distinct)
		for i := range vals {
			vals[i] = rng.Int63n(10_000_000) - 1000 // ps, a few negative
		}
		n := 1 + rng.Intn(20000)
		xs := make([]int64, n)
		var a, b Samples
		for i := range xs {
			xs[i] = vals[rng.Intn(distinct)]
			if i%2 == 0 {
				xs[i] = vals[i%distinct] // cover every value now and then
			}
			if i < n/3 {
				a.Add(xs[i])
			} else {
				b.Add(xs[i])
			}
		}
		var s Samples
		for _, x := range xs {
			s.Add(x)
		}
		a.Merge(&b)
		for name, got := range map[string]*Samples{"added": &s, "merged": &a} {
			if !got.Exact() {
				t.Fatalf("trial %d %s: degraded with at most %d distinct values", trial, name, distinct)
			}
			for _, scale := range []float64{1, 1000, 1250} {
				if g, w := got.Summarize(scale), oldSummarize(xs, scale); g != w {
					t.Fatalf("trial %d %s: Summarize(%g) = %+v, want %+v", trial, name, scale, g, w)
				}
			}
			for _, p := range []float64{-1, 0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1, 2} {
				if g, w := got.Quantile(p), Quantile(floats(xs), p); g != w {
					t.Fatalf("trial %d %s: Quantile(%g) = %g, want %g", trial, name, p, g, w)
				}
			}
			if got.N() != n || got.Min() != slices.Min(xs) || got.Max() != slices.Max(xs) {
				t.Fatalf("trial %d %s: n %d min %d max %d", trial, name, got.N(), got.Min(), got.Max())
			}
		}
	}
}

// Sums past 2^53 (where float64 partial sums round) still give the mean of
// the sorted list, to the bit.
func TestSamplesExactMeanOfLargeValues(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var s Samples
	var xs []int64
	for i := 0; i < 3000; i++ {
		x := rng.Int63n(1<<50) + 1<<50 + int64(i%7)
		xs = append(xs, x)
		s.Add(x)
	}
	if g, w := s.Summarize(1000), oldSummarize(xs, 1000); g != w {
		t.Fatalf("Summarize = %+v, want %+v", g, w)
	}
	var sum float64
	for _, x := range xs {
		sum += float64(x)
	}
	if g, w := s.Mean(), sum/float64(len(xs)); g != w {
		t.Fatalf("Mean = %v, want the in-order float sum %v", g, w)
	}
}

// Past MaxExact distinct values the quantiles are within RelativeError of
// the exact ones, min, max and mean stay exact, and the summary's size
// depends on the span of the values, not on how many there are.
func TestSamplesDegradedRegime(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var s Samples
	var xs []int64
	var sum float64
	for i := 0; i < 200_000; i++ {
		// log-uniform over 1 ps .. 10 ms, some negative, some repeated
		x := int64(math.Exp(rng.Float64() * math.Log(1e10)))
		if i%10 == 0 {
			x = -x
		}
		if i%3 == 0 {
			x = 123456
		}
		xs = append(xs, x)
		sum += float64(x)
		s.Add(x)
	}
	if s.Exact() {
		t.Fatal("still exact with ~200k distinct values")
	}
	v := floats(xs)
	slices.Sort(v)
	for _, p := range []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1} {
		got, want := s.Quantile(p), QuantileSorted(v, p)
		if math.Abs(got-want) > RelativeError*math.Abs(want) {
			t.Errorf("Quantile(%g) = %g, want %g ± %.3g %%", p, got, want, RelativeError*100)
		}
	}
	sm := s.Summarize(1000)
	if sm.N != len(xs) || sm.Min != v[0]/1000 || sm.Max != v[len(v)-1]/1000 {
		t.Errorf("summary %+v: n, min, max must be exact", sm)
	}
	if want := sum / float64(len(xs)) / 1000; math.Abs(sm.Mean-want) > 1e-9*math.Abs(want) {
		t.Errorf("mean %g, want %g", sm.Mean, want)
	}
	// At most 2^precisionBits buckets per power of two spanned, per sign,
	// plus the exact values below 2048.
	bound := 2 * (1<<(precisionBits+1) + 34<<precisionBits)
	if s.Entries() > bound {
		t.Errorf("%d entries, want at most %d", s.Entries(), bound)
	}
}

// The summary's size does not grow with the number of samples.
func TestSamplesSizeIndependentOfN(t *testing.T) {
	entries := func(n int) int {
		rng := rand.New(rand.NewSource(4))
		var s Samples
		for i := 0; i < n; i++ {
			s.Add(1_000_000 + rng.Int63n(9_000_000)) // 1..10 us in ps
		}
		return s.Entries()
	}
	small, large := entries(100_000), entries(2_000_000)
	// 1..10 us spans about 3.3 powers of two: at most ~4·1024 buckets.
	if large > small || large > 5<<precisionBits {
		t.Errorf("entries: %d after 1e5 samples, %d after 2e6", small, large)
	}
	var few Samples
	for i := 0; i < 1_000_000; i++ {
		few.Add(int64(i % 100))
	}
	if few.Entries() != 100 || !few.Exact() {
		t.Errorf("100 distinct values: %d entries (exact %v)", few.Entries(), few.Exact())
	}
}

func TestBucket(t *testing.T) {
	for _, x := range []int64{0, 1, -1, 2047, -2047, 2048, 4095, 4096, 1 << 40, -(1 << 40), 123456789, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		b := bucket(x)
		if bucket(b) != b {
			t.Errorf("bucket(%d) = %d is not its own bucket (%d)", x, b, bucket(b))
		}
		if err := math.Abs(float64(b)-float64(x)) / math.Max(1, math.Abs(float64(x))); err > RelativeError {
			t.Errorf("bucket(%d) = %d: relative error %g > %g", x, b, err, RelativeError)
		}
		if (x >= 0) != (b >= 0) {
			t.Errorf("bucket(%d) = %d changes sign", x, b)
		}
	}
}

// Merging a degraded summary into an exact one (or the other way) gives a
// degraded summary within RelativeError of the merged samples.
func TestSamplesMergeDegraded(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var wide, narrow Samples
	var xs []float64
	for i := 0; i < 2*MaxExact; i++ {
		x := 1_000_000 + rng.Int63n(1_000_000_000)
		wide.Add(x)
		xs = append(xs, float64(x))
	}
	for i := 0; i < 5000; i++ {
		x := int64(500 + i%300)
		narrow.Add(x)
		xs = append(xs, float64(x))
	}
	if wide.Exact() || !narrow.Exact() {
		t.Fatalf("exact: wide %v narrow %v", wide.Exact(), narrow.Exact())
	}
	var c Samples
	c.Merge(&narrow)
	c.Merge(&wide)
	a := wide // shares wide's counts: wide is not used after
	a.Merge(&narrow)
	slices.Sort(xs)
	for name, s := range map[string]*Samples{"exact into degraded": &a, "degraded into exact": &c} {
		if s.Exact() || s.N() != len(xs) {
			t.Fatalf("%s: exact %v n %d", name, s.Exact(), s.N())
		}
		for _, p := range []float64{0, 0.1, 0.5, 0.6, 0.99, 1} {
			got, want := s.Quantile(p), QuantileSorted(xs, p)
			if math.Abs(got-want) > RelativeError*want {
				t.Errorf("%s: Quantile(%g) = %g, want %g", name, p, got, want)
			}
		}
	}
}

func BenchmarkSamplesAdd(b *testing.B) {
	rng := rand.New(rand.NewSource(6))
	xs := make([]int64, 1<<16)
	for i := range xs {
		xs[i] = 100_000 + rng.Int63n(3000)*1000 // a few thousand distinct latencies
	}
	var s Samples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Add(xs[i&(1<<16-1)])
	}
}

// A summary of no samples has null values in JSON (a reader would take
// zeros for measured ones); one with samples has its numbers.
func TestEmptySummaryJSONIsNull(t *testing.T) {
	var s Samples
	b, err := json.Marshal(s.Summarize(1))
	if err != nil || string(b) != `{"n":0,"min":null,"mean":null,"p99":null,"max":null}` {
		t.Errorf("empty summary: %s, %v", b, err)
	}
	s.Add(5)
	if b, _ = json.Marshal(s.Summarize(1)); string(b) != `{"n":1,"min":5,"mean":5,"p99":5,"max":5}` {
		t.Errorf("one sample: %s", b)
	}
}
