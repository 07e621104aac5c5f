package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The Go collector's target, tuned for simulation. A run allocates
// packets and events fast and keeps little alive (the live heap is
// bounded by the packets in flight), so collecting at every doubling of a
// small heap costs a fifth of the run in marking and write barriers:
// while the live heap is small the heap may grow to 5x it (GOGC=400);
// once the live heap passes a quarter GiB the default (GOGC=100) returns,
// so a run that holds a lot (a Trio-ML window of 8192 blocks) does not
// pay for it five times over. A user's GOGC or GOMEMLIMIT takes over.
const (
	gcPercentSmall = 400
	gcPercentLarge = 100
	gcLargeHeap    = 256 << 20
	gcPoll         = 20 * time.Millisecond
)

func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercentSmall)
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		large := false
		for range time.Tick(gcPoll) {
			metrics.Read(s)
			if s[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			if l := s[0].Value.Uint64() > gcLargeHeap; l != large {
				large = l
				if large {
					debug.SetGCPercent(gcPercentLarge)
				} else {
					debug.SetGCPercent(gcPercentSmall)
				}
			}
		}
	}()
}
