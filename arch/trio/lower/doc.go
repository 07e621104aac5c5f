// Package lower is the Trio tool chain's back end: it lowers a program
// description (archsim/programs) for one PFE (arch/trio/spec) to
// micro-instructions and external transactions (XTXNs) — a Microcode: what
// each statement and register action costs, where every stateful object is
// placed in the shared memory ([TRIO] §2.3), the static instruction counts
// and transaction sites — or refuses it with a LoweringError naming the
// rule it breaks (a thread's local memory and registers, the PPE's call
// depth, [TRIO] §2.2, §3.1; the shared memory's size; the largest
// transaction; the timers). The PFE timing model (arch/trio) runs the
// program on every packet and charges, through Microcode's accessors, the
// lowered cost of what each thread ran.
//
// It lowers the way a Microcode author would write it ([TRIO] §3):
//
//   - Storage: header fields live in the thread's local memory (the packet
//     head is loaded there); metadata lives in the 32 × 64-bit registers,
//     packed as bit-fields, spilling to local memory when they run out.
//   - Straight-line statements are packed greedily into instructions under
//     the per-instruction limits (register reads, local-memory reads,
//     writes, condition ALUs, one XTXN); a statement that reads a value
//     written earlier in the same instruction starts the next one (results
//     are written back when an instruction retires). A statement too big for
//     one instruction is split over several through temporaries.
//   - An if ends its instruction (multi-way branch); each branch, loop body
//     and action body starts a new one (a branch target).
//   - A table apply assembles the key and issues a lookup XTXN — a hash
//     lookup for exact keys, a filter lookup otherwise — synchronously; the
//     action runs after the reply.
//   - A register action whose body is a single fetch-and-op, add, swap or
//     write is one read-modify-write XTXN on the register's memory bank,
//     asynchronous unless its output is used. Any other body is a
//     synchronous read, instructions for the body, and an asynchronous
//     write: not atomic with respect to other threads (reported).
//   - Meters are policer XTXNs (synchronous: the colour is needed);
//     counters are packet/byte counter XTXNs (asynchronous).
//   - Loops run as many times as they iterate; each iteration costs its
//     body plus one instruction for the post statement and the branch.
//   - Built-ins cost what their row in the table of built-ins says
//     (programs.TrioCost): a function is a condition-ALU operation,
//     payload32 a local-memory read, and the statements below issue the
//     transactions their rows name.
//   - emit() is one instruction. emit(REG, START, CELLS) also runs a loop
//     building the new packet's tail ([TRIO] §4, Trio-ML's Result packet):
//     per xtxn.result_chunk_bytes chunk, synchronous reads of up to
//     xtxn.max_bytes from the register's banks, an asynchronous write to
//     the packet buffer and BulkLoopInstr instructions (charged by the
//     PFE for the cells actually copied).
//   - clear(REG, START, CELLS) writes the range with the largest
//     transactions ([TRIO] §2.3: writes of up to xtxn.max_bytes): a loop
//     whose body is BulkLoopInstr instructions, each issuing
//     instr.xtxn_per_instr asynchronous writes on the register's banks
//     (charged by the PFE for the cells actually reset).
//   - Data-plane writes of an exact table's hash records ([TRIO] §5):
//     T.insert(A(args)) assembles key and action data and issues a
//     synchronous hash transaction like a lookup, the record write
//     (asynchronous) riding on the instruction that takes the reply;
//     T.remove() is an asynchronous write; T.aged(I) a synchronous
//     fetch-and-clear (RMW) of the record's REF flag; T.load(I) a
//     synchronous read of the record, whose key the next instruction
//     writes into the key fields before the action runs. Each is charged
//     on the bank of the record slot it touches.
package lower
