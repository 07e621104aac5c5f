// Package programs holds archsim's architecture-neutral data-plane program
// description: its file format (YAML with Go-syntax code blocks), the loader
// and type checker, and the interpreter that executes a program on packets.
//
// One description drives three things so they can never disagree: placement
// on a pipelined chip (arch/tofino), lowering to run-to-completion microcode
// (arch/trio), and the behaviour of the simulated chip, which runs the same
// statements on every packet.
//
// The format is documented in README.md ("Program format"); the built-in
// programs under programs/builtin/ are complete examples.
package programs
