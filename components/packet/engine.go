package packet

import "github.com/sarchlab/akita/v3/sim"

// CountingEngine wraps an Akita engine and counts the events scheduled on
// it (every scheduled event runs, so this is the events processed). It
// replaces a before-event hook, which costs two hook calls per event.
type CountingEngine struct {
	sim.Engine
	N int64
}

// Schedule counts and forwards an event.
func (e *CountingEngine) Schedule(evt sim.Event) {
	e.N++
	e.Engine.Schedule(evt)
}
