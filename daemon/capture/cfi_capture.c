// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/containers.h"
#include "capture/cfi_capture.h"
#include "capture/cfi_files.h"
#include "capture/cfi_workers.h"
#include "capture/mapped_file.h"
#include "capture/proc_maps.h"
#include "symbols/elf_file.h"
#include "unwind/cfi_cache.h"
#include "unwind/cfi_table.h"

/* The modules without a table named in the file, at most (a host has thousands). */
#define CFI_MODULES_WRITTEN 256

/*
 * Threads making tables: two big libraries of a new program side by side
 * (clang++'s whole stacks waited 300 ms for its 21 tables made one by one).
 */
#define CFI_WORKERS 2

/* Time for making tables after each drain (at least one table is made). */
#define CFI_WORK_NS 20000000ULL

/* A module's file as modules names it ("major:minor:inode:path[:build-id]"). */
struct file_key {
	char *key;
	uint8_t build_id[FXS_BUILD_ID_MAX];
	uint8_t build_id_len;
};

struct cfi_capture {
	struct bpf_sampler *bpf;
	struct cfi_tables *tables;
	struct cfi_workers *workers;
	struct cfi_counts counts;
	struct cfi_lost lost;  /* the modules on-CPU stacks lost their table in */
	pid_t lost_pid;	       /* the sample's being looked up (lookup_had's) */
	struct file_key *keys; /* by table id: how to open its file again (reopen) */
	size_t nr_keys, cap_keys;
	int cache_fd;		     /* the tables kept on disk (unwind/cfi_cache.h), or -1 */
	_Atomic uint64_t from_cache; /* tables read from there (by the workers) */
};

static const char *const count_names[CFI_COUNT_NR] = {
	[FXS_UE_NONE] = "none",		  [FXS_UE_END] = "end",
	[FXS_UE_TRUNCATED] = "truncated", [FXS_UE_NO_PROC] = "no_process",
	[FXS_UE_NO_TABLE] = "no_table",	  [FXS_UE_NO_MODULE] = "no_module",
	[FXS_UE_NO_ROW] = "no_cfi_row",	  [FXS_UE_UNSUPPORTED] = "unsupported_rule",
	[FXS_UE_SIGNAL] = "signal_frame", [FXS_UE_FAULT] = "fault",
	[FXS_UE_BAD_FRAME] = "bad_frame", [CFI_COUNT_FP_FALLBACK] = "fp_fallback",
	[CFI_COUNT_BY_FILE] = "by_file",
};

const char *cfi_count_name(unsigned slot)
{
	return slot < CFI_COUNT_NR ? count_names[slot] : "?";
}

uint64_t cfi_capture_default_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 256 : 0;

	if (mem < CFI_MEMORY_FLOOR)
		return CFI_MEMORY_FLOOR;
	/* whole MiB: the summary's figure reads as what was chosen */
	return mem > CFI_MEMORY_CEIL ? CFI_MEMORY_CEIL : mem & ~((1ULL << 20) - 1);
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

/*
 * Where tables are kept between captures: FXSAMPLER_CFI_CACHE (a directory,
 * or "off"), else systemd's CacheDirectory= (fxsamplerd.service) + "/cfi",
 * else /var/cache/fxsampler/cfi for root; none for anyone else, and none
 * when the directory is not its owner's alone (cfi_cache_open()). -1: none.
 */
static int open_cache(void)
{
	const char *env = getenv("FXSAMPLER_CFI_CACHE"), *sd = getenv("CACHE_DIRECTORY");
	char dir[4096];
	int fd;

	if (env && *env) {
		if (!strcmp(env, "off"))
			return -1;
		snprintf(dir, sizeof(dir), "%s", env);
	} else if (sd && *sd && !strchr(sd, ':')) {
		snprintf(dir, sizeof(dir), "%s/cfi", sd);
	} else if (geteuid() == 0) {
		snprintf(dir, sizeof(dir), "/var/cache/fxsampler/cfi");
	} else {
		return -1;
	}
	fd = cfi_cache_open(dir);
	return fd < 0 ? -1 : fd;
}

/* The cache's key for the module file behind fd, whose ELF is elf. */
static bool cache_key(int fd, Elf *elf, struct cfi_cache_key *key)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t len = 0;

	memset(key, 0, sizeof(*key));
	if (fstat(fd, &key->st) || !S_ISREG(key->st.st_mode))
		return false;
	if (elf_find_build_id(elf, id, &len) == 1 && len <= sizeof(key->build_id)) {
		memcpy(key->build_id, id, len);
		key->build_id_len = (uint8_t)len;
	}
	return true;
}

/*
 * A table from the file behind fd (opened where the process's maps are
 * read): read back when kept on disk, else made, and kept when big enough.
 * On the workers' threads.
 */
static int make_rows(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n)
{
	struct cfi_capture *cc = ctx;
	struct cfi_cache_key key;
	struct cfi_table *t;
	struct elf_file f;
	GElf_Ehdr ehdr;
	char path[64];
	bool keyed;
	int err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = elf_file_open(path, &f, &ehdr);
	if (err)
		return err;
	keyed = cc->cache_fd >= 0 && cache_key(fd, f.elf, &key);
	if (keyed && !cfi_cache_get(cc->cache_fd, &key, ret_rows, ret_n)) {
		elf_file_close(&f);
		atomic_fetch_add(&cc->from_cache, 1);
		return 0;
	}
	err = cfi_table_from_elf(f.elf, NULL, &t);
	elf_file_close(&f);
	if (err)
		return err;
	*ret_rows = t->rows;
	*ret_n = t->nrows;
	t->rows = NULL;
	cfi_table_free(t);
	if (keyed && *ret_n >= CFI_CACHE_MIN_ROWS)
		cfi_cache_put(cc->cache_fd, &key, *ret_rows, *ret_n, CFI_CACHE_CAP);
	return 0;
}

static int generate(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n)
{
	return make_rows(ctx, fd, ret_rows, ret_n);
}

static bool start(void *ctx, uint32_t id, int fd)
{
	struct cfi_capture *cc = ctx;

	return cfi_workers_start(cc->workers, id, fd);
}

static int collect(void *ctx, uint32_t id, struct fxs_cfi_row **ret_rows, uint32_t *ret_n,
		   uint64_t *ret_ns)
{
	struct cfi_capture *cc = ctx;

	return cfi_workers_collect(cc->workers, id, ret_rows, ret_n, ret_ns);
}

/*
 * The path in modules' key "major:minor:inode:path", with ":build-id-hex"
 * after it when the kernel gave the build id: what the summary names.
 */
static void key_path(const char *key, size_t build_id_len, char *out, size_t len)
{
	const char *p = key;
	size_t n;

	for (int colons = 0; colons < 3 && p; colons++) {
		p = strchr(p, ':');
		if (p)
			p++;
	}
	if (!p)
		p = key;
	n = strlen(p);
	if (build_id_len && n > 2 * build_id_len + 1 && p[n - 2 * build_id_len - 1] == ':')
		n -= 2 * build_id_len + 1;
	snprintf(out, len, "%.*s", (int)n, p);
}

/* What reopen() needs of table id's file: its first key. 0 or -ENOMEM. */
static int keep_key(struct cfi_capture *cc, int id, const char *key, const uint8_t *build_id,
		    size_t build_id_len)
{
	if ((size_t)id < cc->nr_keys && cc->keys[id].key)
		return 0;
	/* ids come in order (a gap only where an earlier key found no memory) */
	while (cc->nr_keys <= (size_t)id) {
		if (array_reserve((void **)&cc->keys, &cc->cap_keys, cc->nr_keys,
				  sizeof(*cc->keys)))
			return -ENOMEM;
		cc->keys[cc->nr_keys++] = (struct file_key){0};
	}
	cc->keys[id].key = strdup(key);
	if (!cc->keys[id].key)
		return -ENOMEM;
	if (build_id_len <= FXS_BUILD_ID_MAX) {
		memcpy(cc->keys[id].build_id, build_id, build_id_len);
		cc->keys[id].build_id_len = (uint8_t)build_id_len;
	}
	return 0;
}

/*
 * A file whose fd cfi_tables did not keep (CFI_TABLES_MAX_FDS), at its
 * turn: by its path, if that is still the file mapped (mapped_file_reopen).
 */
static int reopen(void *ctx, uint32_t id)
{
	struct cfi_capture *cc = ctx;
	const struct file_key *k = id < cc->nr_keys ? &cc->keys[id] : NULL;
	struct proc_map map = {0};
	unsigned long long ino;
	char path[4096];
	int fd;

	if (!k || !k->key ||
	    sscanf(k->key, "%u:%u:%llu:", &map.dev_major, &map.dev_minor, &ino) != 3)
		return -ENOENT;
	key_path(k->key, k->build_id_len, path, sizeof(path));
	map.inode = ino;
	map.path = path;
	fd = mapped_file_reopen(&map, k->build_id, k->build_id_len);
	return fd < 0 ? -ENOENT : fd;
}

/*
 * The walker may find this module by its file from now on (bpf/vma.bpf.h),
 * in a process whose ranges are not published yet. A file it cannot be
 * found by (two executable segments apart, no room) is walked as before.
 */
static void publish_file(struct cfi_capture *cc, const char *key, int fd, uint32_t id)
{
	struct fxs_cfi_file_key k;
	struct fxs_cfi_file f;

	if (!cfi_files_entry(key, fd, id, &k, &f))
		bpf_sampler_cfi_file(cc->bpf, &k, &f);
}

static int on_file(void *ctx, const uint8_t *build_id, size_t build_id_len, const char *key, int fd)
{
	struct cfi_capture *cc = ctx;
	/* The build id names the content: every copy of a library shares one table. */
	const void *k = build_id_len ? (const void *)build_id : key;
	size_t len = build_id_len ? build_id_len : strlen(key);
	char path[4096];
	int id;

	key_path(key, build_id_len, path, sizeof(path));
	/* a file with a path can be opened again at its turn (reopen) */
	id = path[0] == '/' ? cfi_tables_module_reopenable(cc->tables, k, len, fd)
			    : cfi_tables_module(cc->tables, k, len, fd);
	if (id >= 0 && (cfi_tables_name(cc->tables, id, path) ||
			keep_key(cc, id, key, build_id, build_id_len)))
		return -1;
	if (id >= 0 && path[0] == '/')
		publish_file(cc, key, fd, (uint32_t)id);
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
	cc->bpf = b;
	cc->cache_fd = -1;
	err = bpf_sampler_cfi_maps(b, &ops);
	if (err) {
		free(cc);
		errno = -err;
		return NULL;
	}
	ops.generate = generate;
	ops.reopen = reopen;
	cc->cache_fd = open_cache();
	cc->workers = cfi_workers__new(CFI_WORKERS, make_rows, cc);
	if (cc->workers) {
		ops.start = start;
		ops.collect = collect;
	}
	ops.gen_ctx = cc;
	cc->tables = cfi_tables__new(&ops);
	if (!cc->tables) {
		cfi_workers__free(cc->workers);
		if (cc->cache_fd >= 0)
			close(cc->cache_fd);
		free(cc);
		return NULL;
	}
	l.ctx = cc;
	modules_add_listener(m, &l);
	return cc;
}

void cfi_capture__free(struct cfi_capture *cc)
{
	if (!cc)
		return;
	/* the workers first: a table being made is waited for, then dropped */
	cfi_workers__free(cc->workers);
	cfi_tables__free(cc->tables);
	cfi_lost_free(&cc->lost);
	if (cc->cache_fd >= 0)
		close(cc->cache_fd);
	for (size_t i = 0; i < cc->nr_keys; i++)
		free(cc->keys[i].key);
	free(cc->keys);
	free(cc);
}

static enum cfi_lost_had lookup_had(void *ctx, uint64_t look, uint64_t ts, uint32_t *ret_id)
{
	const struct cfi_capture *cc = ctx;

	return cfi_tables_had(cc->tables, cc->lost_pid, look, ts, ret_id);
}

/*
 * An on-CPU stack's frames, looked up once: when it went by frame pointers
 * for want of a table (fell_back), which module's; while a module in use is
 * left out for room (demand), the tables it was walked by and the one it
 * lost its table in, which say which tables the room should go to
 * (cfi_tables_demand()).
 */
static void count_tables(struct cfi_capture *cc, const struct fxs_sample *s, bool fell_back,
			 bool demand)
{
	struct cfi_walked walked = {0};
	uint32_t id = UINT32_MAX;
	int at;

	cc->lost_pid = (pid_t)s->pid;
	at = cfi_lost_frame((const uint64_t *)(s + 1), s->nr_frames, s->time_ns, lookup_had, cc,
			    &id, demand ? &walked : NULL);
	if (fell_back && (at < 0 || id == UINT32_MAX || cfi_lost_add(&cc->lost, id)))
		cc->lost.unknown++;
	if (demand)
		cfi_tables_demand(cc->tables, walked.id, walked.n, at < 0 ? UINT32_MAX : id);
}

void cfi_capture_count(struct cfi_capture *cc, const struct fxs_sample *s)
{
	uint64_t *v = s->flags & FXS_SF_OFFCPU ? cc->counts.offcpu : cc->counts.samples;
	unsigned reason = FXS_UE_REASON(s->unwind_end);
	bool fell_back, demand;

	v[reason < FXS_UE_NR ? reason : FXS_UE_NONE]++;
	if (s->unwind_end & FXS_UE_FP_FALLBACK)
		v[CFI_COUNT_FP_FALLBACK]++;
	if (s->unwind_end & FXS_UE_BY_FILE)
		v[CFI_COUNT_BY_FILE]++;
	/* the frames follow an on-CPU sample's header (an off-CPU one's come later) */
	if (s->flags & FXS_SF_OFFCPU)
		return;
	fell_back = (s->unwind_end & FXS_UE_FP_FALLBACK) && reason == FXS_UE_NO_TABLE;
	demand = cfi_tables_short(cc->tables);
	if (fell_back || demand)
		count_tables(cc, s, fell_back, demand);
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

bool cfi_capture_pending(const struct cfi_capture *cc)
{
	return cfi_tables_pending(cc->tables);
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
	ret->from_cache = atomic_load(&cc->from_cache);
}

size_t cfi_capture_modules(const struct cfi_capture *cc, struct cfi_mod_info *out, size_t max)
{
	return cfi_tables_modules(cc->tables, out, max);
}

/* The event "cfi_no_table": the modules most stacks lost their table in (unwind/cfi_lost.h). */
static int write_lost(const struct cfi_capture *cc, struct fxt_stream *s, uint64_t ts)
{
	struct cfi_lost_ent top[CFI_LOST_NAMED];
	const char *names[CFI_LOST_NAMED + 1];
	uint64_t values[CFI_LOST_NAMED + 1], rest;
	size_t n = cfi_lost_top(&cc->lost, top, CFI_LOST_NAMED, &rest), k = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = cfi_tables_mod_name(cc->tables, top[i].id);

		if (!name) {
			rest += top[i].n;
			continue;
		}
		names[k] = name;
		values[k++] = top[i].n;
	}
	if (rest) {
		names[k] = CFI_LOST_OTHERS;
		values[k++] = rest;
	}
	if (!k)
		return 0;
	return fxt_stream_counter(s, ts, 0, 0, "fxsampler", CFI_LOST_EVENT, 0, names, values,
				  (unsigned)k);
}

int cfi_capture_write(struct cfi_capture *cc, struct fxt_stream *s, uint64_t ts)
{
	static const char *const table_names[] = {
		"tables",   "loaded",	 "generated",  "no_cfi", "failed",
		"evicted",  "row_bytes", "cap_bytes",  "gen_ns", "processes_dropped",
		"left_out", "swapped",	 "from_cache",
	};
	/* slot 0 (not a CFI walk) is never counted here: the names start at END */
	const char *names[CFI_COUNT_NR - 1];
	struct cfi_tables_stats st;
	uint64_t v[13];
	struct cfi_mod_info mods[CFI_MODULES_WRITTEN];
	size_t nr_mods;
	int err;

	for (unsigned i = 1; i < CFI_COUNT_NR; i++)
		names[i - 1] = count_names[i];
	err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "unwind", 0, names,
				 cc->counts.samples + 1, CFI_COUNT_NR - 1);
	if (!err)
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "unwind_offcpu", 0, names,
					 cc->counts.offcpu + 1, CFI_COUNT_NR - 1);
	cfi_capture_table_stats(cc, &st);
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
	v[10] = st.left_out;
	v[11] = st.swapped;
	v[12] = st.from_cache;
	if (!err)
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", "cfi_tables", 0, table_names, v,
					 13);
	if (!err)
		err = write_lost(cc, s, ts);
	/* each module without a table, once (capture_finish writes this once) */
	nr_mods = cfi_capture_modules(cc, mods, CFI_MODULES_WRITTEN);
	for (size_t i = 0; !err && i < nr_mods && i < CFI_MODULES_WRITTEN; i++) {
		const char *args[CFI_MODULE_ARGS];
		uint64_t vals[CFI_MODULE_ARGS];

		cfi_mod_encode(&mods[i], args, vals);
		err = fxt_stream_counter(s, ts, 0, 0, "fxsampler", CFI_MODULE_EVENT, 0, args, vals,
					 CFI_MODULE_ARGS);
	}
	return err;
}
