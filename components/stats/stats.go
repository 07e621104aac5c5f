// Package stats collects latency samples and summarizes them (min, mean,
// p99, max) deterministically.
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

// Summarize returns min, mean, p99 (nearest-rank) and max, each divided by
// scale (e.g. 1000 to turn picoseconds into nanoseconds).
func (s *Samples) Summarize(scale float64) Summary {
	if len(s.v) == 0 {
		return Summary{}
	}
	v := append([]int64(nil), s.v...)
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	var sum float64
	for _, x := range v {
		sum += float64(x)
	}
	rank := int(math.Ceil(0.99*float64(len(v)))) - 1
	rank = max(0, min(rank, len(v)-1))
	return Summary{
		N:    len(v),
		Min:  float64(v[0]) / scale,
		Mean: sum / float64(len(v)) / scale,
		P99:  float64(v[rank]) / scale,
		Max:  float64(v[len(v)-1]) / scale,
	}
}

// Merge appends another sample list.
func (s *Samples) Merge(o *Samples) { s.v = append(s.v, o.v...) }
