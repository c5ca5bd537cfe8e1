/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the modules of `fxsampler report` share, and nothing else includes:
 * the report model (report.c), its symbolized tables (report_symbolize.c),
 * the text helpers (report_text.c) and the stack labels (report_folded.c).
 *
 * Samples are aggregated by raw stack (pid, tid, flags, pcs) and mapping
 * epoch (symbolizer_epoch(): a library closed and another opened at its
 * address splits its process's samples in two) as they come; symbolization
 * waits until an output is asked for, because module and mmap records may
 * follow the samples they describe. Each distinct (file, vaddr in it,
 * return-or-not) is resolved once into a location, shared by every process
 * that runs that file (other code: each (pid, pc, return-or-not, mapping at
 * the stack's time)), each distinct (function, module) becomes one
 * function, and every output works from those tables.
 */
#ifndef FXS_DAEMON_REPORT_INTERNAL_H
#define FXS_DAEMON_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt/fxt.h"
#include "fxt/fxt_reader.h"
#include "report/report.h"
#include "unwind/cfi_lost.h"
#include "util/hash.h"

struct demangler;
struct offcpu;
struct symbolizer;
struct symbolizer_mapping;

#define BT_KEY_FLAGS	(FXT_BT_FLAG_TRUNCATED | FXT_BT_FLAG_PC_IS_RETURN)
#define TRUNCATED_FRAME "[truncated]"
#define INLINED_SUFFIX	" [inlined]"
#define KERNEL_SUFFIX	"_[k]" /* a kernel frame in folded stacks and the SVG */

struct name_ent {
	uint64_t id;  /* pid or tid */
	uint64_t pid; /* threads: their process, 0 when unknown */
	char *name;
	char *cmdline; /* processes: from /proc at capture, NULL when not recorded */
};

struct thread_ent {
	uint64_t pid;
	uint64_t tid;
	uint64_t samples;
	uint64_t last_ts;
	bool have_ts;
};

struct stack {
	uint64_t pid;
	uint64_t tid;
	unsigned flags; /* BT_KEY_FLAGS bits */
	unsigned nr;
	uint64_t *frames; /* innermost first */
	uint64_t epoch;	  /* its samples' symbolizer_epoch(), at the time each came */
	uint64_t ts;	  /* its first sample's time: the one its pcs are resolved at */
	uint64_t count;
	/*
	 * After report_prepare(): the locations of the frames in the order the
	 * outputs show them, innermost first: frames' own, but for a Python
	 * process's, whose Python frames are merged among its native ones
	 * (report_python_merge()), with markers where the merge was unsure.
	 */
	uint32_t *locs; /* 4 bytes a frame: a report holds under 2^32 locations */
	unsigned nr_locs;
	/*
	 * Which frame each of locs is (FRAME_MARK: a merge marker), when the
	 * Python merge moved them; NULL: locs[j] is frame j's.
	 */
	uint16_t *frame_of;
};

#define FRAME_MARK UINT16_MAX

/* A function running at a source line: one pprof Line. */
struct loc_line {
	size_t func;
	const char *file; /* owned by the symbolizer; NULL without debug info */
	unsigned line;
};

/*
 * A location: what a pc resolves to, once for every frame that resolves
 * alike. Code of a module file is keyed by the file and the pc's vaddr in
 * it, so the processes that run the same binary, each at its own address,
 * share its locations (symbolizer_file_pc()); other code (kernel, Python,
 * anonymous or JIT) by the frame's pid and pc. A frame's own pc and mapping
 * are its stack's: report_frame_pc(), report_frame_mapping().
 */
struct loc {
	const void *code; /* the symbolizer's id of the file; NULL: keyed by pid */
	uint64_t pid;	  /* 0 when code is set */
	uint64_t pc;	  /* the pc, or its vaddr in code */
	const char *file; /* where func executes, from DWARF; NULL without debug info */
	/* Functions inlined at pc, innermost first; the last was inlined into func. */
	struct loc_line *inl;
	uint32_t func;
	/*
	 * Keyed by pid: the symbolizer's mapping id at the stack's time if the
	 * process has changes; else 0.
	 */
	unsigned mapping_id;
	unsigned line;
	uint16_t nr_inl; /* at most DWARF_MAX_FRAMES */
	bool is_return;
};

/* One per distinct name and module: 64 bytes, one for each pc of a capture no symbol names. */
struct func {
	const char *name; /* owned by the symbolizer or the demangler, or a literal */
	/* The name in the symbol table (pprof's system_name): mangled, or name. */
	const char *system_name;
	const char *module; /* module path or NULL */
	const char *file;   /* source file declaring it, from DWARF, or NULL */
	uint64_t self;
	uint64_t total;
	uint32_t stamp; /* last stack counted in total, + 1 (stacks are under 2^32) */
	unsigned start_line;
	bool resolved;
	bool kernel; /* a kernel function: module is "[kernel.kallsyms]" or "[MODULE]" */
};

struct counter {
	char *name;
	uint64_t value;
};

/* A growable array of entries (v, n, cap) and its index by key (util/hash.h). */
struct table {
	void *v;
	size_t n;
	size_t cap;
	struct hash_index idx;
};

/* One sample, for the outputs in time order. */
struct sample {
	uint64_t ts;
	size_t stack;
	unsigned bt_flags; /* the record's: its CPU when FXT_BT_FLAG_HAS_CPU */
};

/*
 * A kernel frame in a stack's frames: the tag and the capture's location id
 * (fxt/fxt_kstack.h), never an address. No user PC has the top bit set.
 */
#define KFRAME_TAG	   (1ULL << 63)
#define KERNEL_MODULE_NAME "[kernel.kallsyms]"

/* One kernel location of the file: its function, from FXT_KSYMS_BLOB. */
struct kernel_sym {
	char *name;   /* NULL: not named in the file */
	char *module; /* KERNEL_MODULE_NAME or "[MODULE]" */
};

/* The kernel frames of a file (report_kernel.c). */
struct report_kernel {
	bool hide;		 /* --no-kernel */
	struct kernel_sym *syms; /* by id - 1 */
	size_t nr_syms;
	/* The kstack blob waiting for its backtrace. */
	bool have_pend;
	uint64_t pend_ts, pend_tid;
	uint64_t *frames; /* the backtrace's frames with the kernel's in front */
	size_t nr_pend, cap_frames;
	uint8_t build_id[64];
	size_t build_id_len;
	struct symbolizer_mapping *map; /* pprof's kernel mapping (id 0), when a stack has one */
};

/* JIT code named from the capture's perf maps (report_perfmap.c). */
struct jit_sym {
	uint64_t pid, start, size;
	uint64_t seq; /* file order: the later of two overlapping entries wins */
	char *name;
};

struct report_jit {
	struct jit_sym *v; /* sorted by (pid, start, seq) once sorted is set */
	size_t n, cap;
	bool sorted;
};

#define JIT_MODULE "JIT" /* the module JIT functions show, "NAME [JIT]" */

/*
 * A Python frame in a stack's frames (report_python.c): the tag, the entry
 * flag, the code record's id (bits 32..60) and the instruction offset (bits
 * 0..31); code id 0 is a marker, its offset the PY_MARK_* reason. Never a
 * user PC (bit 62 is beyond every user address space) nor a kernel frame.
 */
#define PYFRAME_TAG (1ULL << 62)
/* The end of every user address space: pcs at or past it are no user frame. */
#define USER_PC_END	  (1ULL << 57)
#define PYFRAME_ENTRY	  (1ULL << 61)
#define PYFRAME_CODE(f)	  ((uint32_t)(((f) >> 32) & 0x1fffffff))
#define PYFRAME_LASTI(f)  ((int32_t)(uint32_t)(f))
#define PY_MARK_TRUNCATED 1 /* the Python walk was cut (FXS_PY_MAX_FRAMES) */
#define PY_MARK_FAULT	  2 /* the Python walk met an unreadable pointer */
#define PY_MARK_UNMATCHED 3 /* Python frames with no eval-loop frame of their own */
/* The code id of a frame whose code object the capture could not read: no record has it. */
#define PYFRAME_CODE_UNREAD 0x1fffffffu

/* A code object of the file (FXT_PYCODE_BLOB). */
struct py_code_ent {
	char *qualname, *filename, *label; /* label: what the outputs name it */
	int firstlineno;
	uint8_t *table;
	size_t table_len;
};

/* The Python frames of a file (report_python.c). */
struct report_python {
	struct py_code_ent *codes; /* by id - 1 */
	size_t nr_codes;
	bool have_pend;
	uint64_t pend_ts, pend_tid;
	uint64_t *pend; /* the pystack's frames, tagged; then the marker */
	size_t nr_pend, cap_pend;
	uint64_t *frames; /* the backtrace's frames with the Python frames after them */
	size_t cap_frames;
	uint64_t unmatched; /* samples whose merge was unsure */
};

struct report {
	unsigned top;
	bool folded_no_thread;
	bool split_processes, split_threads, no_root_frames;
	bool keep_samples;
	struct sample *samples_v;
	size_t nr_samples, cap_samples;
	bool lines; /* top: rows by function and source line */
	bool svg_inverted;
	unsigned width; /* top: columns to fit in; 0: no limit */
	bool has_pid, has_tid;
	uint64_t pid, tid;
	uint64_t period_ns;
	struct symbolizer *sym;
	bool sym_borrowed;	     /* report_opts.symbolizer: the caller's, fed by the caller */
	struct demangler *dm;	     /* NULL: --no-demangle */
	bool dm_borrowed;	     /* report_opts.demangler: the caller's */
	struct sym_cache *sym_cache; /* report_opts.sym_cache: the caller's, or NULL */

	struct table procs;   /* struct name_ent, by pid */
	struct table tnames;  /* struct name_ent, by tid */
	struct table threads; /* struct thread_ent, by (pid, tid) */
	struct table stacks;  /* struct stack, by content */
	uint64_t samples;
	uint64_t truncated;
	uint64_t fp_fallback; /* weight walked by frame pointers before its tables loaded */
	uint64_t first_ts, last_ts;
	bool have_ts;
	uint64_t ticks_per_second;
	uint64_t *deltas; /* per-thread gaps between samples, to estimate the period */
	size_t nr_deltas, cap_deltas;
	struct counter counters[FXT_READER_MAX_ARGS];
	unsigned nr_counters;
	/*
	 * The CFI walker's counters ("unwind", "unwind_offcpu": why walks ended
	 * or fell back; "cfi_tables": evicted, failed), for the header's why.
	 */
	struct counter unwind[FXT_READER_MAX_ARGS], unwind_offcpu[FXT_READER_MAX_ARGS],
		cfi_tables[FXT_READER_MAX_ARGS];
	unsigned nr_unwind, nr_unwind_offcpu, nr_cfi_tables;
	bool records_dropped;
	/* The capture's "clock" event (FXT_CLOCK_EVENT), when it has one. */
	bool have_clock;
	uint64_t clock_start_boot_ns, clock_start_real_ns, clock_stop_boot_ns;

	bool prepared;
	/*
	 * report_prepare() frees each stack's frames once its locations are
	 * made, when no output asks for its pcs (report_run(): no pprof,
	 * perf-script or --perfetto): the stacks are then one copy, not two,
	 * and their index by content is freed. Such a report can be written,
	 * never added to or prepared again.
	 */
	bool drop_frames;
	bool frames_dropped;
	/*
	 * report_run(): every record is read before the first output is
	 * written, so report_prepare() frees the stacks' index by content
	 * whatever the outputs: such a report is never added to after it.
	 */
	bool sealed;
	struct table locs;  /* struct loc, by (pid, pc, is_return, mapping id) */
	struct table funcs; /* struct func, by (name, module) */

	unsigned time_mode; /* enum report_time */
	struct offcpu *off; /* the off-CPU intervals and thread states */
	struct report_kernel kern;
	/* The modules without a CFI table, as lines (report_cfi.c) */
	char **cfi_modules;
	size_t nr_cfi_modules, cap_cfi_modules;
	/* The modules stacks lost their table in ("cfi_no_table", unwind/cfi_lost.h) */
	struct report_lost {
		char *name;
		uint64_t n;
	} cfi_lost[CFI_LOST_NAMED + 1];
	unsigned nr_cfi_lost;
	/* report_run(): the .fxt read, and where its whole records end, for --perfetto's copy */
	const char *src_path;
	uint64_t src_bytes;
	struct report_jit jit;
	struct report_python py;
};

#define T(tab, type) ((type *)(tab).v)

/* ---- the modules without a CFI table (report_cfi.c) ---- */

/* A "cfi_module" counter event: its module, named once. 0 or -ENOMEM. */
int report_cfi_module(struct report *r, const struct fxt_record *rec);
/* A "cfi_no_table" counter event: its modules' counts, added. 0 or -ENOMEM. */
int report_cfi_lost(struct report *r, const struct fxt_record *rec);
/* top's header lines under "a module": the modules stacks lost their table in. */
void report_cfi_lost_lines(const struct report *r, FILE *out);
/* top's header lines for them (none when every module had its table). */
void report_cfi_header(const struct report *r, FILE *out);
void report_cfi_free(struct report *r);

/* ---- the model (report.c) ---- */

/* Free a table's array and index (not what its entries own). */
void report_table_free(struct table *t);
/* The name entry of a pid (procs) or tid (tnames), or NULL. */
struct name_ent *report_find_name(const struct table *t, uint64_t id);
/* The process's name (else its main thread's), or NULL when unknown or empty. */
const char *report_process_name(const struct report *r, uint64_t pid);
/* The thread's name, or NULL when unknown or empty. */
const char *report_thread_name(const struct report *r, uint64_t tid);
/* File ticks as ns, by the file's ticks_per_second. */
uint64_t report_ticks_to_ns(const struct report *r, uint64_t ticks);
/* The sampling period in ns: given, from the off-CPU records, or estimated; 0: none. */
uint64_t report_period_ns(struct report *r);

/* ---- symbolization (report_symbolize.c) ---- */

/*
 * Resolve every stack into r->locs and r->funcs and count self and total per
 * function (function 0 is TRUNCATED_FRAME); a no-op until records are added.
 * 0 or -ENOMEM.
 */
int report_prepare(struct report *r);
/* Drop what report_prepare() made. */
void report_unprepare(struct report *r);
/*
 * Position j of s->locs (after report_prepare()): the frame's pc, as the
 * stack has it (a marker's: its location's tagged pc), and its frame index
 * (FRAME_MARK for a marker).
 */
uint64_t report_frame_pc(const struct report *r, const struct stack *s, unsigned j,
			 unsigned *frame);
/*
 * What position j of s->locs would be keyed by as a location of its own
 * process: (pid, pc, return-or-not, mapping id when the process's pcs name
 * other code over time), pid 0 for kernel frames; for a marker, its
 * location's. What --perfetto names its frames by.
 */
struct frame_key {
	uint64_t pid, pc;
	bool is_return;
	unsigned mapping;
};
void report_frame_key(struct report *r, const struct stack *s, unsigned j, struct frame_key *k);
/*
 * The mapping of position j of s->locs: the kernel's for a kernel frame,
 * the symbolizer's at the stack's time for a user one, NULL for Python
 * frames and markers and pcs no mapping covers. 0 or -ENOMEM.
 */
int report_frame_mapping(struct report *r, const struct stack *s, unsigned j,
			 const struct symbolizer_mapping **ret);

/* ---- kernel frames (report_kernel.c) ---- */

/* A kernel-stack blob record (fxt/fxt_kstack.h); others are ignored. 0 or -ENOMEM. */
int report_kernel_add(struct report *r, const struct fxt_record *rec);
/*
 * The frames to keep for backtrace rec: its own, with the kernel frames of
 * the kstack blob just before it (same time and thread) in front, unless
 * hidden. *ret points at rec's frames or at a buffer of the report's.
 */
int report_kernel_frames(struct report *r, const struct fxt_record *rec, const uint64_t **ret,
			 unsigned *ret_nr);
/* The leading kernel frames of a stack. */
unsigned report_kernel_count(const struct stack *s);
/* A kernel frame's function and module (never NULL), and whether it is named. */
void report_kernel_resolve(const struct report *r, uint64_t frame, const char **name,
			   const char **module, bool *resolved);
/* The mapping kernel locations belong to, for pprof; NULL: -ENOMEM. */
const struct symbolizer_mapping *report_kernel_mapping(struct report *r);
void report_kernel_free(struct report_kernel *k);

/* ---- JIT code (report_perfmap.c) ---- */

/* A perf-map blob record (lang/perfmap.h); others are ignored. 0 or -ENOMEM. */
int report_perfmap_add(struct report *r, const struct fxt_record *rec);
/* The JIT function of pid at addr (a return address less one), or NULL. */
const char *report_perfmap_find(struct report *r, uint64_t pid, uint64_t addr);
void report_perfmap_free(struct report_jit *j);
/* ---- Python frames (report_python.c) ---- */

/* A Python blob record (fxt/fxt_python.h); others are ignored. 0 or -ENOMEM. */
int report_python_add(struct report *r, const struct fxt_record *rec);
/*
 * The frames of backtrace rec as frames and nr have them (report_kernel_frames())
 * with the Python frames of the pystack blob just before it (same time and
 * thread) after them, outermost last. *frames may then point at a buffer of
 * the report's.
 */
int report_python_frames(struct report *r, const struct fxt_record *rec, const uint64_t **frames,
			 unsigned *nr);
/* A Python frame's function label, file and line, and its code's first line. */
void report_python_resolve(const struct report *r, uint64_t frame, const char **name,
			   const char **file, unsigned *line, unsigned *start_line);
/*
 * s->locs (one per frame, in frames' order) into the merged order, in place
 * (room for s->nr + 2), s->nr_locs set: each native eval-loop frame gets the
 * Python frames of its invocation just inside it. mark(ctx, reason, &loc)
 * gives the location of a marker. 0 or an error of mark.
 */
/* s->frame_of is set when the merge moved a frame (FRAME_MARK for markers). */
int report_python_merge(struct report *r, struct stack *s,
			int (*mark)(struct report *r, unsigned reason, uint32_t *ret));
void report_python_free(struct report_python *p);

/* ---- text (report_text.c) ---- */

/* The last component of a path. */
const char *report_base_name(const char *path);
/* Control characters of buf, in place, as '?'; returns buf. */
const char *report_sanitize(char *buf);
/* s into buf, cut to width bytes with ".." at a UTF-8 boundary, sanitized. */
const char *report_fit(const char *s, size_t width, char *buf, size_t size);
/* The same, cutting the start ("..tail"). */
const char *report_fit_left(const char *s, size_t width, char *buf, size_t size);
/* part as a percentage of whole; 0 when whole is. */
double report_pct(uint64_t part, uint64_t whole);

/* ---- the modules that could not be symbolized (report_top.c) ---- */

struct failure {
	char *path;
	int err;
};

struct failure_list {
	struct failure *v;
	size_t n, cap;
	int err;
};

/* A symbolizer_for_each_failure() callback appending to a struct failure_list. */
void report_on_failure(void *ctx, const char *path, int err);
/* qsort order of struct failure: by path. */
int report_failure_order(const void *pa, const void *pb);

/* ---- stack labels (report_folded.c) ---- */

/* A growable string; err is sticky (-ENOMEM). */
struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

/* How many root frames (process, then thread) a stack path starts with: 0 to 2. */
unsigned report_root_frames(const struct report *r);
/*
 * The labels of a stack: its root frames, "[truncated]" when the walk was
 * cut, then the frames outermost first. Writes them into b separated by
 * NULs; returns their number.
 */
size_t report_stack_path(const struct report *r, const struct stack *s, struct sbuf *b);

#endif /* FXS_DAEMON_REPORT_INTERNAL_H */
