// Package stats collects latency samples and summarizes them (min, mean,
// p99, max) deterministically, and holds the quantile helpers the rest of
// the model uses.
package stats

import (
	"math"
	"sort"
)

// Samples is a list of int64 samples (e.g. picoseconds).
type Samples struct {
	v []int64
}

// Add records one sample.
func (s *Samples) Add(x int64) { s.v = append(s.v, x) }

// N returns the number of samples.
func (s *Samples) N() int { return len(s.v) }

// Summary is a distribution summary in the samples' unit.
type Summary struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Summarize returns min, mean, p99 (nearest rank, see Quantile) and max,
// each divided by scale (e.g. 1000 to turn picoseconds into nanoseconds).
func (s *Samples) Summarize(scale float64) Summary {
	if len(s.v) == 0 {
		return Summary{}
	}
	v := make([]float64, len(s.v))
	for i, x := range s.v {
		v[i] = float64(x)
	}
	sort.Float64s(v)
	var sum float64
	for _, x := range v {
		sum += x
	}
	return Summary{
		N:    len(v),
		Min:  v[0] / scale,
		Mean: sum / float64(len(v)) / scale,
		P99:  QuantileSorted(v, 0.99) / scale,
		Max:  v[len(v)-1] / scale,
	}
}

// Merge appends another sample list.
func (s *Samples) Merge(o *Samples) { s.v = append(s.v, o.v...) }

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
