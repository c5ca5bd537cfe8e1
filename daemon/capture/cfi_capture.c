// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cfi_capture.h"
#include "unwind/cfi_table.h"

/* Time for making tables after each drain (at least one table is made). */
#define CFI_WORK_NS 20000000ULL

struct cfi_capture {
	struct cfi_tables *tables;
	struct cfi_counts counts;
};

static const char *const count_names[CFI_COUNT_NR] = {
	[FXS_UE_NONE] = "none",		  [FXS_UE_END] = "end",
	[FXS_UE_TRUNCATED] = "truncated", [FXS_UE_NO_PROC] = "no_process",
	[FXS_UE_NO_TABLE] = "no_table",	  [FXS_UE_NO_MODULE] = "no_module",
	[FXS_UE_NO_ROW] = "no_cfi_row",	  [FXS_UE_UNSUPPORTED] = "unsupported_rule",
	[FXS_UE_SIGNAL] = "signal_frame", [FXS_UE_FAULT] = "fault",
	[FXS_UE_BAD_FRAME] = "bad_frame", [CFI_COUNT_FP_FALLBACK] = "fp_fallback",
};

const char *cfi_count_name(unsigned slot)
{
	return slot < CFI_COUNT_NR ? count_names[slot] : "?";
}

static const char *const fallback_names[] = {"no_bpf_loop", "jit_off", "rejected"};

const char *cfi_fallback_text(unsigned cause)
{
	switch (cause) {
	case BPF_CFI_NO_LOOP:
		return "the kernel lacks bpf_loop (Linux 5.17)";
	case BPF_CFI_NO_JIT:
		return "the BPF JIT is off (sysctl net.core.bpf_jit_enable=0), and its loop "
		       "needs the JIT";
	case BPF_CFI_REJECTED:
		return "the kernel's verifier rejected it (-v shows its log)";
	}
	return "no known cause";
}

int cfi_capture_write_fallback(struct fxt_stream *s, unsigned cause,
			       void (*warn)(void *ctx, const char *text), void *warn_ctx)
{
	uint64_t v[3] = {0};
	char text[200];

	snprintf(text, sizeof(text),
		 "the CFI walker did not load: %s; --unwind=auto walks frame pointers",
		 cfi_fallback_text(cause));
	if (warn)
		warn(warn_ctx, text);

	if (cause >= BPF_CFI_NO_LOOP && cause <= BPF_CFI_REJECTED)
		v[cause - BPF_CFI_NO_LOOP] = 1;
	return fxt_stream_counter(s, 0, 0, 0, "fxsampler", "cfi_fallback", 0, fallback_names, v, 3);
}

unsigned cfi_fallback_cause(const char *arg_name)
{
	for (unsigned i = 0; arg_name && i < 3; i++)
		if (!strcmp(arg_name, fallback_names[i]))
			return BPF_CFI_NO_LOOP + i;
	return 0;
}

/* A table from the file behind fd (opened where the process's maps are read). */
static int generate(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n)
{
	struct cfi_table *t;
	char path[64];
	int err;

	(void)ctx;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = cfi_table_from_path(path, NULL, &t);
	if (err)
		return err;
	*ret_rows = t->rows;
	*ret_n = t->nrows;
	t->rows = NULL;
	cfi_table_free(t);
	return 0;
}

static int on_file(void *ctx, const uint8_t *build_id, size_t build_id_len, const char *key, int fd)
{
	struct cfi_capture *cc = ctx;
	int id;

	/* The build id names the content: every copy of a library shares one table. */
	if (build_id_len)
		id = cfi_tables_module(cc->tables, build_id, build_id_len, fd);
	else
		id = cfi_tables_module(cc->tables, key, strlen(key), fd);
	/* No table for it (no room, no memory): its frames end with a reason. */
	return id < 0 ? -1 : id;
}

static int on_mapping(void *ctx, pid_t pid, uint64_t start, uint64_t end, uint64_t bias, int id)
{
	struct cfi_capture *cc = ctx;

	return cfi_tables_mapping(cc->tables, pid, start, end, bias, id);
}

static int on_scanned(void *ctx, pid_t pid)
{
	struct cfi_capture *cc = ctx;

	return cfi_tables_publish_soon(cc->tables, pid);
}

struct cfi_capture *cfi_capture__new(struct bpf_sampler *b, struct modules *m)
{
	struct cfi_capture *cc = calloc(1, sizeof(*cc));
	struct cfi_tables_ops ops = {0};
	struct modules_listener l = {
		.file = on_file,
		.mapping = on_mapping,
		.scanned = on_scanned,
	};
	int err;

	if (!cc)
		return NULL;
	err = bpf_sampler_cfi_maps(b, &ops);
	if (err) {
		free(cc);
		errno = -err;
		return NULL;
	}
	ops.generate = generate;
	cc->tables = cfi_tables__new(&ops);
	if (!cc->tables) {
		free(cc);
		return NULL;
	}
	l.ctx = cc;
	modules_set_listener(m, &l);
	return cc;
}

void cfi_capture__free(struct cfi_capture *cc)
{
	if (!cc)
		return;
	cfi_tables__free(cc->tables);
	free(cc);
}

void cfi_capture_count(struct cfi_capture *cc, const struct fxs_sample *s)
{
	uint64_t *v = s->flags & FXS_SF_OFFCPU ? cc->counts.offcpu : cc->counts.samples;
	unsigned reason = FXS_UE_REASON(s->unwind_end);

	v[reason < FXS_UE_NR ? reason : FXS_UE_NONE]++;
	if (s->unwind_end & FXS_UE_FP_FALLBACK)
		v[CFI_COUNT_FP_FALLBACK]++;
}

int cfi_capture_work(struct cfi_capture *cc, uint64_t handed_ns)
{
	int n;

	cfi_tables_handed(cc->tables, handed_ns);
	/* one process's failed publish must not keep the tables from being made */
	n = cfi_tables_publish_pending(cc->tables);
	if (n != -ENOMEM)
		n = cfi_tables_work(cc->tables, CFI_WORK_NS);

	return n < 0 ? n : 0;
}

uint64_t cfi_capture_ranges_dropped(const struct cfi_capture *cc)
{
	return cfi_tables_ranges_dropped(cc->tables);
}

void cfi_capture_forget(struct cfi_capture *cc, pid_t pid)
{
	cfi_tables_forget(cc->tables, pid);
}

int cfi_capture_fork(struct cfi_capture *cc, pid_t ppid, pid_t cpid, bool inherit)
{
	return cfi_tables_fork(cc->tables, ppid, cpid, inherit);
}

void cfi_capture_counts(const struct cfi_capture *cc, struct cfi_counts *ret)
{
	*ret = cc->counts;
}

void cfi_capture_table_stats(const struct cfi_capture *cc, struct cfi_tables_stats *ret)
{
	cfi_tables_stats(cc->tables, ret);
}

int cfi_capture_write(struct cfi_capture *cc, struct fxt_stream *s, uint64_t ts)
{
	static const char *const table_names[] = {
		"tables",  "loaded",	"generated", "no_cfi", "failed",
		"evicted", "row_bytes", "cap_bytes", "gen_ns", "processes_dropped",
	};
	/* slot 0 (not a CFI walk) is never counted here: the names start at END */
	const char *names[CFI_COUNT_NR - 1];
	struct cfi_tables_stats st;
	uint64_t v[10];
	int err;

	for (unsigned i = 1; i < CFI_COUNT_NR; i++)
		names[i - 1] = count_names[i];
	err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "unwind", 0, names,
				 cc->counts.samples + 1, CFI_COUNT_NR - 1);
	if (!err)
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "unwind_offcpu", 0, names,
					 cc->counts.offcpu + 1, CFI_COUNT_NR - 1);
	cfi_tables_stats(cc->tables, &st);
	v[0] = st.tables;
	v[1] = st.loaded;
	v[2] = st.generated;
	v[3] = st.no_cfi;
	v[4] = st.failed;
	v[5] = st.evicted;
	v[6] = st.row_bytes;
	v[7] = st.cap_bytes;
	v[8] = st.gen_ns;
	v[9] = st.proc_dropped;
	if (!err)
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "cfi_tables", 0, table_names, v,
					 10);
	return err;
}
