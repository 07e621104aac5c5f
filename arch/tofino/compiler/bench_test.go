package compiler

import (
	"testing"

	"archsim/programs"
)

// BenchmarkPlaceSwitchML times the placement pass on the largest built-in
// program (130 logical tables).
func BenchmarkPlaceSwitchML(b *testing.B) {
	c := chip(b)
	prog, err := programs.Resolve("switchml", nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := Place(c, prog); err != nil {
			b.Fatal(err)
		}
	}
}
