package packet

import "testing"

// PaceCredit gives back what egress saved while the port stays busy,
// never more than a frame's own time at once, drops credit over idle time
// and pays debt off with it.
func TestPaceCredit(t *testing.T) {
	var c PaceCredit
	c.Resized(1000, 900) // a frame left 100 ps shorter
	c.Resized(1000, 0)   // one was dropped in egress
	if got := c.Slot(500, 10, 10); got != 0 || c != 600 {
		t.Errorf("busy port: slot %d, credit %d; want 0 and 600", got, c)
	}
	if got := c.Slot(500, 20, 20); got != 0 || c != 100 {
		t.Errorf("busy port: slot %d, credit %d; want 0 and 100", got, c)
	}
	if got := c.Slot(500, 100, 20); got != 500 || c != 0 {
		t.Errorf("after idling: slot %d, credit %d; want 500 and 0 (credit lapses)", got, c)
	}
	c.Resized(900, 1000) // egress made a frame longer: 100 ps owed
	if got := c.Slot(500, 30, 50); got != 600 || c != 0 {
		t.Errorf("debt while busy: slot %d, credit %d; want 600 and 0", got, c)
	}
	c.Resized(900, 1000)
	if got := c.Slot(500, 90, 50); got != 560 || c != 0 {
		t.Errorf("100 ps of debt after 40 ps idle: slot %d, credit %d; want 560 (60 ps left to pay) and 0", got, c)
	}
}
