/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel stacks in an .fxt (record --kernel), in raw-data blob records
 * (type 5) that readers which know nothing of them skip by size, and that
 * never hold a kernel address (KASLR stays the kernel's secret):
 *
 * - FXT_KSTACK_BLOB, right before the backtrace record it belongs to: the
 *   backtrace's timestamp and thread koid (u64 each), then one u32 per kernel
 *   frame, innermost first: the id of a kernel location of this capture;
 * - FXT_KSYMS_BLOB, at the end (as many records as it takes), one text line
 *   per kernel location: "ID OFFSET FUNCTION MODULE\n", OFFSET the frame's
 *   distance from the function's start (hex), MODULE "vmlinux" or the kernel
 *   module's name; a location no symbol covers is "ID 0x0 [unknown] -";
 * - FXT_KERNEL_BLOB, before the first sample: "release R\nbuild_id HEX\n",
 *   the kernel's uname -r and GNU build id (from /sys/kernel/notes).
 *
 * Pure: encoding and parsing only.
 */
#ifndef FXS_DAEMON_FXT_FXT_KSTACK_H
#define FXS_DAEMON_FXT_FXT_KSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FXT_KSTACK_BLOB "fxsampler.kstack"
#define FXT_KSYMS_BLOB	"fxsampler.ksyms"
#define FXT_KERNEL_BLOB "fxsampler.kernel"
#define FXT_KSTACK_HDR	16
/* The module of the kernel image in FXT_KSYMS_BLOB lines. */
#define FXT_KSYMS_VMLINUX "vmlinux"

/* A kstack payload into buf (room for FXT_KSTACK_HDR + 4 * nr bytes): its length. */
size_t fxt_kstack_encode(uint8_t *buf, uint64_t ts, uint64_t tid, const uint32_t *ids, unsigned nr);
/*
 * A kstack payload's fields; its ids stay in data (read them with
 * fxt_kstack_id()). false: not a whole kstack payload.
 */
bool fxt_kstack_decode(const uint8_t *data, size_t len, uint64_t *ts, uint64_t *tid, unsigned *nr);
uint32_t fxt_kstack_id(const uint8_t *data, unsigned i);

/* One FXT_KSYMS_BLOB line's fields; name and module point into line. */
struct fxt_ksym_line {
	uint32_t id;
	uint64_t offset;
	const char *name;
	size_t name_len;
	const char *module;
	size_t module_len;
};

/*
 * Format one line into buf: its length, or 0 when it does not fit (or the
 * name holds a blank or a newline).
 */
size_t fxt_ksym_format(char *buf, size_t size, uint32_t id, uint64_t offset, const char *name,
		       const char *module);
/* Parse the line at *p (up to end): true and *p past its newline; false: malformed. */
bool fxt_ksym_parse(const char **p, const char *end, struct fxt_ksym_line *ret);
/*
 * How many lines of one FXT_KSYMS_BLOB payload no symbol named ("[unknown]",
 * module "-"): what `record`'s summary warns of, read back from the stream
 * the daemon sent (the client never sees the daemon's capture). A malformed
 * line ends the count.
 */
uint64_t fxt_ksyms_unnamed(const void *data, size_t len);

#endif /* FXS_DAEMON_FXT_FXT_KSTACK_H */
