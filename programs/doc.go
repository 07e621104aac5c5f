// Package programs holds archsim's architecture-neutral data-plane program
// description: its file format (YAML with Go-syntax code blocks), the loader
// and type checker, and the interpreter that executes a program on packets.
//
// One description drives three things so they can never disagree: placement
// on a pipelined chip (arch/tofino/compiler), lowering to run-to-completion
// microcode (arch/trio/lower), and the behaviour of the simulated chip,
// which runs the same statements on every packet.
//
// The format is documented in README.md ("Program format"); the built-in
// programs under programs/builtin/ are complete examples.
//
// The language's built-in functions, statements and methods are one table
// (builtins.go, described in builtins_spec.go): each row gives a
// built-in's arity, where it may appear, its typing rule, its semantics and
// its cost on Tofino and on Trio, and the loader, the interpreter and both
// backends read the row, so that adding a built-in is one row plus its
// semantics.
package programs
