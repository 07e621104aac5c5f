// Package trio models a Juniper Trio-like run-to-completion packet
// forwarding engine (PFE): a dispatcher that splits packets into head and
// tail, a pool of multi-threaded packet processing engines (PPEs) running
// micro-instructions ([TRIO] §2.2), external transactions over a crossbar
// to a shared memory of banks with read-modify-write engines ([TRIO] §2.3),
// a reorder engine and timer threads ([TRIO] §5).
//
// The package is the PFE's timing model (pfe.go: dispatcher and PPE
// threads; tracer.go: the lowered cost of what a thread ran; xtxn.go:
// transactions to the shared memory; reorder.go; output.go; measure.go:
// the statistics of a run) and its seam with the rest of archsim (chip.go,
// control.go, report.go, render.go). Around it:
//
//   - arch/trio/spec is the PFE's hardware description (configs/trio5.yaml);
//   - arch/trio/lower lowers a program description to micro-instructions
//     and transactions, or refuses it with the rule it breaks;
//   - arch/trio/smem is the shared memory.
//
// The PFE executes the program on every packet and charges the lowered
// cost of what ran.
package trio
