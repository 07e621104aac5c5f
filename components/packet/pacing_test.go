package packet

import "testing"

// PaceCredit gives back what egress saved on a frame it sent while the
// port stays busy, never more than a frame's own time at once, nothing for
// a frame egress dropped (its slot was spent), drops credit over idle time
// and pays debt off with it.
func TestPaceCredit(t *testing.T) {
	var c PaceCredit
	c.Resized(1000, 0)   // one was dropped in egress: no credit
	c.Resized(1000, 300) // a frame left 700 ps shorter
	if got := c.Slot(500, 10, 10); got != 0 || c != 200 {
		t.Errorf("busy port: slot %d, credit %d; want 0 and 200", got, c)
	}
	if got := c.Slot(500, 20, 20); got != 300 || c != 0 {
		t.Errorf("busy port: slot %d, credit %d; want 300 and 0", got, c)
	}
	c.Resized(1000, 900)
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
