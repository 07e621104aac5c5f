// Package chips registers archsim's built-in chips with the arch registry,
// in the order `archsim list` shows them. Adding a chip: write its package
// (implementing arch.Chip, arch.Target and arch.Switch) and add one line
// here.
package chips

import (
	"archsim/arch"
	"archsim/arch/ideal"
	"archsim/arch/tofino"
	"archsim/arch/trio"
)

func init() {
	for _, c := range []arch.Chip{
		tofino.Tofino1,
		tofino.Tofino2,
		trio.Trio,
		trio.Trio5,
		trio.Trio6,
		ideal.TheChip,
	} {
		arch.Register(c)
	}
}
