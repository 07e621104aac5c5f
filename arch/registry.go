package arch

import (
	"fmt"
	"strings"
	"sync"
)

// The registry of chips: package chips registers the built-in ones; a test
// may register its own.
var registry struct {
	sync.Mutex
	chips []Chip
}

// Register adds a chip (a name already taken is a programming error).
func Register(c Chip) {
	registry.Lock()
	defer registry.Unlock()
	for _, o := range registry.chips {
		if o.Name() == c.Name() {
			panic("arch: chip " + c.Name() + " registered twice")
		}
	}
	registry.chips = append(registry.chips, c)
}

// Unregister removes a chip (tests that registered one).
func Unregister(name string) {
	registry.Lock()
	defer registry.Unlock()
	for i, c := range registry.chips {
		if c.Name() == name {
			registry.chips = append(registry.chips[:i:i], registry.chips[i+1:]...)
			return
		}
	}
}

// Chips lists the registered chips in registration order.
func Chips() []Chip {
	registry.Lock()
	defer registry.Unlock()
	return append([]Chip(nil), registry.chips...)
}

// Lookup returns the chip of a name.
func Lookup(name string) (Chip, error) {
	for _, c := range Chips() {
		if c.Name() == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("unknown architecture %q (available: %s)", name, Names())
}

// Names lists the registered chip names, comma-separated.
func Names() string {
	var ns []string
	for _, c := range Chips() {
		ns = append(ns, c.Name())
	}
	return strings.Join(ns, ", ")
}
