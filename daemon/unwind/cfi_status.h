/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What became of a module's CFI table in a capture, as record's summary and
 * report --top's header name it (issue 37): the modules whose frames went
 * without a table (no CFI, failed and why, evicted, left out for want of
 * room), each once. A capture writes one counter event "cfi_module" per such
 * module (fxsampler-format(5)): its first argument is named by the module's
 * path and holds its state; "bytes" the rows it needs, "errno" why it failed.
 *
 * Pure: no libbpf, no FXT.
 */
#ifndef FXS_DAEMON_UNWIND_CFI_STATUS_H
#define FXS_DAEMON_UNWIND_CFI_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* What became of a module's table. */
enum cfi_mod_state {
	CFI_MOD_QUEUED,	  /* to be made */
	CFI_MOD_LOADED,	  /* the walker has it */
	CFI_MOD_NO_CFI,	  /* no .eh_frame or .debug_frame: frame pointers */
	CFI_MOD_NO_CODE,  /* no code to unwind (no FDE: libicudata), not a failure */
	CFI_MOD_FAILED,	  /* no table: unreadable, malformed, too many rows */
	CFI_MOD_EVICTED,  /* its rows went for another's, while no process mapped it */
	CFI_MOD_LEFT_OUT, /* no room beside the tables in use (or larger than the cap) */
	CFI_MOD_NR,
};

/* One module the summary names. */
struct cfi_mod_info {
	const char *name; /* its path, or "?" */
	enum cfi_mod_state state;
	int err;	/* CFI_MOD_FAILED: -errno (cfi_table_strerror()) */
	uint64_t bytes; /* the rows it needs (0: not known: it failed first) */
};

/* The counter event's name, and its argument count. */
#define CFI_MODULE_EVENT "cfi_module"
#define CFI_MODULE_ARGS	 3

/* "no_cfi", "failed", "evicted", "left_out", ... */
const char *cfi_mod_state_name(enum cfi_mod_state s);
/*
 * The counter event's arguments for m: names[0] is m's name (valid as long
 * as m->name is).
 */
void cfi_mod_encode(const struct cfi_mod_info *m, const char **names, uint64_t *values);
/*
 * Back from a "cfi_module" event's nr arguments: 0 and *ret (its name points
 * into names[0]), or -EINVAL when they are not one.
 */
int cfi_mod_decode(const char *const *names, const uint64_t *values, unsigned nr,
		   struct cfi_mod_info *ret);
/*
 * One line that says what happened to m and what a user can do, e.g.
 * "libclang-cpp.so.14: left out: 8.0 MiB of rows did not fit beside the
 * tables in use (--cfi-memory)". Returns what snprintf() does.
 */
int cfi_mod_describe(const struct cfi_mod_info *m, char *buf, size_t len);

#endif /* FXS_DAEMON_UNWIND_CFI_STATUS_H */
