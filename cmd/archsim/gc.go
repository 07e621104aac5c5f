package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcPercent is the Go collector's target (GOGC) unless the user sets GOGC.
// A simulation recycles its events and packets, so it allocates little
// once running and its live heap is set by the packets in flight; a tight
// target keeps the peak memory near that live heap, so it does not grow
// with the length of a run (the 64-sender Fig. 6 Tofino run: +9 % peak
// RSS from 500 us to 4 ms at 50, +11 % at Go's default 100, +36 % at 400,
// with no measurable difference in run time). It was 400 for a while:
// that made validate's Trio-ML window sweep peak at 8.8 GB.
const gcPercent = 50

// batchPercent replaces gcPercent in a command that runs a batch of
// simulations in one process (validate: several hundred runs, two or
// three at a time, whose results it keeps; run with a sweep or several
// variants). There the live heap is the sum of the runs in progress and
// of the results so far, the length of one run does not set the peak,
// and at 50 % the collector ran every few MB of allocation of any run: at
// 100 % validate took 221 s of CPU instead of 236 s (peak 797 MB instead
// of 590 MB; 200 % gave 218 s and 1.15 GB), the full Fig. 6 sweep 0.97x
// the wall time. A single run keeps gcPercent.
const batchPercent = 100

// largePercent is the target above smallHeap: gcPercent, or batchPercent
// after batchGC. Only the collector's finalizer reads it after start-up.
var largePercent atomic.Int32

func init() { largePercent.Store(gcPercent) }

// batchGC sets the target above smallHeap to batchPercent (the collector
// tuner applies it from its next collection).
func batchGC() { largePercent.Store(batchPercent) }

// smallHeap and smallPercent: while the live heap is under smallHeap the
// target is smallPercent instead. At 50 % of a heap of a few MB (a run
// building up, or one that keeps little live, as a 10^7-frame Protego run
// does) the collector runs every MB or two of allocation, each cycle with
// its fixed costs and write barriers: 8 % of a short incast's CPU, 10 % of
// a Protego stress run's (against GOGC=400). Under smallHeap a larger
// target costs at most a few tens of MB, and a run whose live heap grows
// past it is paced at 50 % as before (the 64-sender Fig. 6 run: peak RSS
// 72 -> 79 MB from 500 us to 4 ms either way, 0.77 -> 0.62 s).
const (
	smallHeap    = 8 << 20
	smallPercent = 400
)

func tuneGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(smallPercent)
	armGCTuner(smallPercent)
}

// gcSentinel is an object whose finalizer runs after each collection that
// finds it unreachable: the tuner's hook into the collector's cycles.
type gcSentinel struct{ _ [16]byte }

// armGCTuner sets a sentinel whose finalizer, after the next collection,
// sets the target by the live heap and arms the next one.
func armGCTuner(current int) {
	s := &gcSentinel{}
	runtime.SetFinalizer(s, func(*gcSentinel) {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(sample)
		want := int(largePercent.Load())
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() < smallHeap {
			want = smallPercent
		}
		if want != current {
			debug.SetGCPercent(want)
		}
		armGCTuner(want)
	})
}
