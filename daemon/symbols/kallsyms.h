/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's function symbols as /proc/kallsyms lists them ("ADDR TYPE
 * NAME" and "\t[MODULE]" for a module's), sorted for lookup; and the kernel's
 * GNU build id from its ELF notes (/sys/kernel/notes). Pure apart from
 * reading the files it is given.
 */
#ifndef FXS_DAEMON_SYMBOLS_KALLSYMS_H
#define FXS_DAEMON_SYMBOLS_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* "vmlinux" or the kernel module's name */
};

struct kallsyms;

/*
 * Parse kallsyms text (len bytes): its text symbols (types t, T, w, W).
 * NULL with errno set (ENOMEM). A listing whose addresses are all zero (a
 * reader without the right to see them: kptr_restrict) gives an empty table.
 */
struct kallsyms *kallsyms__parse(const char *text, size_t len);
/* The same from a file (/proc/kallsyms); NULL with errno set. */
struct kallsyms *kallsyms__load(const char *path);
void kallsyms__free(struct kallsyms *k);
size_t kallsyms_count(const struct kallsyms *k);
/* The symbol at or below addr, or NULL (none, or an empty table). */
const struct ksym *kallsyms_find(const struct kallsyms *k, uint64_t addr);

/*
 * Whether addr is in the tracing machinery a BPF program runs from (the
 * program itself, bpf_trace_run*, __bpf_trace_*, __traceiter_*): frames a
 * stack taken in a tracepoint starts with, which are the profiler's, not
 * the thread's.
 */
bool kallsyms_is_tracing(const struct kallsyms *k, uint64_t addr);

/*
 * The GNU build id in ELF notes (the bytes of /sys/kernel/notes): its
 * length, copied into id (up to size bytes); 0 when there is none.
 */
size_t kallsyms_notes_build_id(const uint8_t *notes, size_t len, uint8_t *id, size_t size);

#endif /* FXS_DAEMON_SYMBOLS_KALLSYMS_H */
