/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's memory ceiling (fxsamplerd(8), MEMORY): what its heap holds,
 * read from malloc's own accounting, against a cap on what grows with the
 * host rather than with the configuration: the host capture's bookkeeping
 * of every process (a loop of execs adds a few MiB a second) and the HTTP
 * scrapes' symbolizer (an ELF file, its symbols and DWARF for every binary
 * the host profile sampled). Over the cap, continuous.c ends the host
 * capture early (a new continuous file, or the scrapes' capture restarted),
 * which frees the first; if the heap is still over MEM_SYMBOLS_CAP then,
 * the next stream starts the symbolizer over too.
 */
#ifndef FXS_SERVICE_MEMORY_H
#define FXS_SERVICE_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

/* Heap in use past which the host capture is ended early. */
#define MEM_HEAP_CAP (64ULL << 20)
/* Heap in use, the host capture ended, past which the symbol caches start over. */
#define MEM_SYMBOLS_CAP (32ULL << 20)
/*
 * How often the heap is looked at (mallinfo2() costs microseconds), and how
 * long a host capture runs at least before it is ended for the cap: a host
 * whose processes alone weigh more than the cap costs a continuous file this
 * often, no more.
 */
#define MEM_CHECK_EVERY_MS 1000
#define MEM_MIN_RUN_S	   10

/*
 * The ceiling fxsamplerd(8) states, for a configuration's cfi_memory and
 * buffer_size on cpus CPUs: the BPF maps (the CFI tables' map, mmapped
 * whole, and the rings, which count in RSS as they are written), and
 * MEM_FIXED for the rest: program and libraries (~12 MiB), the heap up to
 * MEM_HEAP_CAP and what it gains within MEM_MIN_RUN_S of a capture, and the
 * ELF files the symbolizer maps.
 */
#define MEM_FIXED (128ULL << 20)
#define MEM_CEILING_BYTES(cfi_memory, buffer_size, cpus)                                           \
	(MEM_FIXED + (uint64_t)(cfi_memory) + 4ULL * (uint64_t)(buffer_size) * (uint64_t)(cpus))
/*
 * Open files: 32 of the daemon's own (log, listening sockets, timers,
 * directory), 16 per CPU for a capture's perf events and rings, one per
 * control connection (max_clients, 16 by default, root's beside them) and
 * HTTP connection (64 at most).
 */
#define MEM_FD_CEILING(cpus) (32U + 16U * (unsigned)(cpus) + 32U + 64U)

/* Bytes the heap holds in use (malloc'ed, mmapped chunks included). */
uint64_t mem_heap_bytes(void);
/*
 * Give the heap's free memory back to the kernel when it holds more than a
 * few MiB of it (after the caches were dropped): RSS follows the heap down.
 */
void mem_trim(void);

#endif /* FXS_SERVICE_MEMORY_H */
