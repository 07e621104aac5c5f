// Package stats collects latency samples into fixed-size streaming
// summaries and summarizes them (min, mean, p99, max) deterministically,
// and holds the quantile helpers the rest of the model uses.
package stats

import (
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// MaxExact is the number of distinct values a Samples holds exactly; past
// it a Samples degrades to log-bucketed counts (see Samples).
const MaxExact = 1 << 16

// precisionBits sets the degraded regime's buckets: values of magnitude
// below 2^(precisionBits+1) stay exact, larger ones keep their
// precisionBits+1 leading bits (2^precisionBits buckets per power of two)
// and are represented by their bucket's midpoint.
const precisionBits = 10

// RelativeError bounds |reported − true| / |true| for a quantile of a
// degraded Samples: half a bucket, 2^-(precisionBits+1) ≈ 0.049 %.
const RelativeError = 1.0 / (1 << (precisionBits + 1))

// exactSum is the bound below which every partial sum of integers whose
// magnitudes add up to less than it is exact in a float64.
const exactSum = 1 << 53

// Samples is a streaming summary of int64 samples (e.g. picoseconds). Its
// memory does not grow with the number of samples:
//
//   - while it has seen at most MaxExact distinct values it keeps a count
//     per value, and every statistic (N, Min, Max, Mean, Quantile and
//     Summarize) equals the one computed from the full list of samples;
//   - past that it degrades for good: each value is counted in a bucket of
//     relative width 2^-precisionBits (values of magnitude below 2048 stay
//     exact), so it holds at most 2^precisionBits counts per power of two
//     the samples span. N, Min, Max and Mean stay exact (Mean up to float64
//     rounding); quantiles are within RelativeError (≈ 0.05 %) of the exact
//     ones and never outside [Min, Max].
//
// The zero value is an empty Samples. A Samples shares its counts when
// copied: copy it only when done adding.
type Samples struct {
	n        int
	min, max int64
	sum      int64   // exact while sumAbs < 2^63
	sumAbs   uint64  // Σ|x|, saturating
	fsum     float64 // Σx in float64, in the order added (for overflow)
	counts   *countMap
	coarse   bool // degraded: counts are per bucket (keyed by its midpoint)
	// The last value added and how many times in a row it came, not yet
	// in counts (latencies repeat; this spares most map updates).
	last  int64
	lastN int
}

// Add records one sample.
func (s *Samples) Add(x int64) {
	if s.n == 0 {
		s.min, s.max = x, x
	} else {
		s.min, s.max = min(s.min, x), max(s.max, x)
	}
	s.n++
	s.sum += x
	a := uint64(x)
	if x < 0 {
		a = -a
	}
	if t, c := bits.Add64(s.sumAbs, a, 0); c == 0 {
		s.sumAbs = t
	} else {
		s.sumAbs = math.MaxUint64
	}
	s.fsum += float64(x)
	if s.lastN > 0 && x == s.last {
		s.lastN++
		return
	}
	s.flush()
	s.last, s.lastN = x, 1
}

// flush moves the pending run of the last value into counts.
func (s *Samples) flush() {
	if s.lastN == 0 {
		return
	}
	s.count(s.last, s.lastN)
	s.lastN = 0
}

func (s *Samples) count(x int64, c int) {
	if s.counts == nil {
		s.counts = newCountMap(0)
	}
	if s.coarse {
		x = bucket(x)
	}
	s.counts.add(x, c)
	if !s.coarse && s.counts.len() > MaxExact {
		s.degrade()
	}
}

// degrade moves the exact counts into buckets.
func (s *Samples) degrade() {
	old := s.counts
	s.coarse = true
	s.counts = newCountMap(old.len() / 2)
	old.each(func(x int64, c int) { s.counts.add(bucket(x), c) })
}

// bucket is the representative (midpoint, rounded down) of x's bucket.
func bucket(x int64) int64 {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	if u < 1<<(precisionBits+1) {
		return x
	}
	shift := bits.Len64(u) - (precisionBits + 1)
	mid := u>>shift<<shift + 1<<(shift-1)
	if x < 0 {
		return int64(-min(mid, 1<<63)) // (the bucket of MinInt64 reaches past it)
	}
	return int64(mid) // < 2^63: the bucket ends at or below 2^63
}

// N returns the number of samples.
func (s *Samples) N() int { return s.n }

// Exact reports whether the summary still holds every distinct value (its
// quantiles are exact).
func (s *Samples) Exact() bool { return !s.coarse }

// Entries is the number of counts held (distinct values, or buckets once
// degraded): the summary's size.
func (s *Samples) Entries() int {
	s.flush()
	return s.counts.len()
}

// Min returns the smallest sample (0 if none).
func (s *Samples) Min() int64 { return s.min }

// Max returns the largest sample (0 if none).
func (s *Samples) Max() int64 { return s.max }

// Mean returns the arithmetic mean (0 if no samples): exact as long as the
// magnitudes sum to less than 2^53, otherwise the float64 sum in the order
// the samples were added, over N.
func (s *Samples) Mean() float64 {
	if s.n == 0 {
		return 0
	}
	if s.sumAbs < exactSum {
		return float64(s.sum) / float64(s.n)
	}
	return s.fsum / float64(s.n)
}

// sortedSum is Σx summed in float64 in increasing order of x, as summing
// the sorted samples does.
func (s *Samples) sortedSum(keys []int64) float64 {
	if s.sumAbs < exactSum { // every partial sum is an exact integer
		return float64(s.sum)
	}
	if s.coarse {
		return s.fsum
	}
	var sum float64
	for _, k := range keys {
		for range s.counts.get(k) {
			sum += float64(k)
		}
	}
	return sum
}

// sortedKeys flushes and returns the held values (bucket midpoints once
// degraded) in increasing order.
func (s *Samples) sortedKeys() []int64 {
	s.flush()
	keys := make([]int64, 0, s.counts.len())
	s.counts.each(func(k int64, _ int) { keys = append(keys, k) })
	slices.Sort(keys)
	return keys
}

// quantile is the nearest-rank p-quantile (see Quantile) over sorted keys.
func (s *Samples) quantile(keys []int64, p float64) float64 {
	if s.n == 0 {
		return math.NaN()
	}
	k := max(0, min(int(math.Ceil(p*float64(s.n)))-1, s.n-1))
	seen := 0
	for _, x := range keys {
		seen += s.counts.get(x)
		if seen > k {
			return float64(min(max(x, s.min), s.max))
		}
	}
	return float64(s.max)
}

// Quantile returns the nearest-rank p-quantile of the samples, as the
// package-level Quantile computes it on the list of samples (exactly while
// Exact; within RelativeError after). No samples give NaN.
func (s *Samples) Quantile(p float64) float64 { return s.quantile(s.sortedKeys(), p) }

// Summary is a distribution summary in the samples' unit.
type Summary struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// MarshalJSON writes a summary of no samples with null values, so that no
// reader takes its zeros for measured ones.
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.N == 0 {
		return []byte(`{"n":0,"min":null,"mean":null,"p99":null,"max":null}`), nil
	}
	type plain Summary
	return json.Marshal(plain(s))
}

// Summarize returns min, mean, p99 (nearest rank, see Quantile) and max,
// each divided by scale (e.g. 1000 to turn picoseconds into nanoseconds).
// While Exact it equals the summary of the sorted list of samples (the
// mean summed in increasing order).
func (s *Samples) Summarize(scale float64) Summary {
	if s.n == 0 {
		return Summary{}
	}
	keys := s.sortedKeys()
	return Summary{
		N:    s.n,
		Min:  float64(s.min) / scale,
		Mean: s.sortedSum(keys) / float64(s.n) / scale,
		P99:  s.quantile(keys, 0.99) / scale,
		Max:  float64(s.max) / scale,
	}
}

// Merge adds another summary's samples (o is not changed but is flushed).
func (s *Samples) Merge(o *Samples) {
	if o.n == 0 {
		return
	}
	o.flush()
	s.flush()
	if s.n == 0 {
		s.min, s.max = o.min, o.max
	} else {
		s.min, s.max = min(s.min, o.min), max(s.max, o.max)
	}
	s.n += o.n
	s.sum += o.sum
	if t, c := bits.Add64(s.sumAbs, o.sumAbs, 0); c == 0 {
		s.sumAbs = t
	} else {
		s.sumAbs = math.MaxUint64
	}
	s.fsum += o.fsum
	if o.coarse && !s.coarse && s.counts != nil {
		s.degrade()
	}
	s.coarse = s.coarse || o.coarse
	o.counts.each(func(x int64, c int) { s.count(x, c) })
}

// Quantile returns the nearest-rank p-quantile of xs: the k-th smallest
// sample for k = ⌈p·n⌉, clamped to 1..n, so p ≤ 0 gives the minimum and
// p ≥ 1 the maximum. It is always one of the samples (never interpolated).
// xs need not be sorted and is not modified; an empty xs gives NaN.
func Quantile(xs []float64, p float64) float64 {
	return QuantileSorted(sortedCopy(xs), p)
}

// QuantileSorted is Quantile for xs already sorted in increasing order
// (it does not check).
func QuantileSorted(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(0, min(k, len(xs)-1))]
}

// Median returns the median of xs: the middle sample for odd n, and the
// mean of the two middle samples for even n (unlike Quantile(xs, 0.5),
// which gives the lower of the two). xs need not be sorted and is not
// modified; an empty xs gives NaN.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	v := sortedCopy(xs)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// CDF returns the empirical distribution of xs as steps for plotting: the
// samples in increasing order and, beside the i-th (from 0), the fraction
// (i+1)/n of the samples up to it. xs is not modified.
func CDF(xs []float64) (sorted, fraction []float64) {
	sorted = sortedCopy(xs)
	fraction = make([]float64, len(sorted))
	for i := range sorted {
		fraction[i] = float64(i+1) / float64(len(sorted))
	}
	return sorted, fraction
}

func sortedCopy(xs []float64) []float64 {
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	return v
}
