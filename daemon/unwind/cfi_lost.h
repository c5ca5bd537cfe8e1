/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which module a stack lost its table in, for report --top's header (issue
 * 35): a walk under --unwind=auto that found no table for a frame
 * (FXS_UE_NO_TABLE with FXS_UE_FP_FALLBACK) says why it went on by frame
 * pointers, not where. Its frames up to that one were walked by tables, so
 * the first frame, leaf first, whose module had no table loaded when the
 * sample was taken is where it fell back: that module is counted.
 *
 * The capture writes the most counted ones as one counter event
 * "cfi_no_table" (fxsampler-format(5)): each argument named by a module's
 * path, holding the stacks it sent by frame pointers; the rest, and stacks
 * whose module was not found, under CFI_LOST_OTHERS.
 *
 * Pure: no libbpf, no FXT.
 */
#ifndef FXS_DAEMON_UNWIND_CFI_LOST_H
#define FXS_DAEMON_UNWIND_CFI_LOST_H

#include <stddef.h>
#include <stdint.h>

#define CFI_LOST_EVENT	"cfi_no_table"
#define CFI_LOST_NAMED	8 /* modules the event names, the most counted */
#define CFI_LOST_OTHERS "(others)"

/* What a frame's module had when the sample was taken. */
enum cfi_lost_had {
	CFI_HAD_NO_MODULE, /* none known at that pc: skipped */
	CFI_HAD_TABLE,	   /* a table loaded, or none needed (frame pointers) */
	CFI_HAD_NO_TABLE,  /* a module without a table loaded then: *ret_id */
};

/* What the module at look (a pc, or a return address less one) had at ts; its id. */
typedef enum cfi_lost_had (*cfi_lost_lookup_fn)(void *ctx, uint64_t look, uint64_t ts,
						uint32_t *ret_id);

/* The modules whose tables a walk went by before it lost one: each once, leaf first. */
#define CFI_WALKED_MAX 16
struct cfi_walked {
	uint32_t id[CFI_WALKED_MAX];
	size_t n;
};

/*
 * The frame of frames[0..nr) (the sampled pc first, then return addresses)
 * where the walk lost its table: its index and *ret_id, or -1 when every
 * frame's module had one (the lookup came too late, or knows no module).
 * walked (may be NULL) gets the modules the frames before it had tables of
 * (at most CFI_WALKED_MAX; a lookup that gives no id, as frame pointers'
 * code, adds none): which tables the room should go to when not all fit
 * (capture/cfi_tables_demand.c).
 */
int cfi_lost_frame(const uint64_t *frames, unsigned nr, uint64_t ts, cfi_lost_lookup_fn lookup,
		   void *ctx, uint32_t *ret_id, struct cfi_walked *walked);

struct cfi_lost_ent {
	uint32_t id;
	uint64_t n;
};

/* The counts per module id (sorted by id), and the stacks no module was found for. */
struct cfi_lost {
	struct cfi_lost_ent *v;
	size_t nr, cap;
	uint64_t unknown;
};

/* One stack more for module id. 0 or -ENOMEM. */
int cfi_lost_add(struct cfi_lost *l, uint32_t id);
void cfi_lost_free(struct cfi_lost *l);
/*
 * The most counted modules, at most max, most first (ties: the lower id),
 * into out; *ret_rest: the others' stacks and the unknown ones. Returns how
 * many were put in out.
 */
size_t cfi_lost_top(const struct cfi_lost *l, struct cfi_lost_ent *out, size_t max,
		    uint64_t *ret_rest);

#endif /* FXS_DAEMON_UNWIND_CFI_LOST_H */
