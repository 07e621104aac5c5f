package packet

import "github.com/sarchlab/akita/v3/sim"

// Timer is a component's one-shot timer (a retransmission or delayed-ACK
// timer) that moves lazily: its deadline moves freely, and an event (Kind,
// Port, at Handler) is scheduled only when the deadline becomes earlier
// than every pending one; a pending event that comes before the deadline
// schedules the next. One event per timer period, not one per packet that
// moves the deadline.
//
// The component hands each of its events of Kind to Fire, and acts on the
// timer's expiry only when Fire reports it.
type Timer struct {
	Engine  sim.Engine
	Handler sim.Handler
	Kind    Kind
	Port    int   // the event's Port (e.g. the flow or connection id)
	due     int64 // 0: off
	at      int64 // the earliest pending event, 0: none
}

// Set arms the timer to expire at due (in ps; at least 1).
func (t *Timer) Set(due int64) {
	t.due = max(due, 1)
	t.ensure()
}

// Stop disarms the timer (its pending events come and do nothing).
func (t *Timer) Stop() { t.due = 0 }

// Armed reports whether the timer will expire.
func (t *Timer) Armed() bool { return t.due != 0 }

func (t *Timer) ensure() {
	if t.at == 0 || t.due < t.at {
		t.at = t.due
		Schedule(t.Engine, t.Handler, t.due, t.Kind, nil, t.Port)
	}
}

// Fire handles one of the timer's events at now and reports whether the
// timer expired (it is then off).
func (t *Timer) Fire(now int64) bool {
	if t.at == now {
		t.at = 0
	}
	if t.due == 0 {
		return false
	}
	if now < t.due {
		t.ensure()
		return false
	}
	t.due = 0
	return true
}
