// Package trio models a Juniper Trio-like run-to-completion packet
// forwarding engine (PFE): a dispatcher that splits packets into head and
// tail, a pool of multi-threaded packet processing engines (PPEs) running
// micro-instructions, external transactions over a crossbar to a shared
// memory of banks with read-modify-write engines, a reorder engine and
// timer threads. A program description is lowered to micro-instructions
// and transactions (lower.go); the PFE simulation executes the program on
// every packet and charges the lowered cost of what ran (pfe.go). The
// PFE's hardware description is arch/trio/spec, its shared memory
// arch/trio/smem.
package trio
