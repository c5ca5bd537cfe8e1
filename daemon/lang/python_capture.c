// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's side of the Python walk (lang/python_capture.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "lang/python_capture.h"
#include "fxt/fxt.h"
#include "fxt/fxt_python.h"
#include "lang/python_elf.h"
#include "util/clock.h"
#include "util/containers.h"
#include "util/hash.h"

/* A file the listener was told of: its interpreter, when it is one. */
struct py_file {
	struct py_image img;
};

/* A process found running an interpreter. */
struct py_proc {
	pid_t pid;
	const struct py_layout *layout;
	uint64_t code_type; /* PyCode_Type's address in it */
	uint64_t none;	    /* _Py_NoneStruct's (3.13's shim frames run it), or 0 */
};

/*
 * A code object met: (pid, address, check) -> the id of its pycode record (0:
 * unreadable). One read as its sample arrived (python_capture_prefetch()) holds
 * its record until that sample's turn: pending, pending_len bytes.
 */
struct py_code {
	uint64_t pid, addr;
	uint32_t check;
	uint32_t id;
	uint8_t *pending;
	size_t pending_len;
};

/*
 * The check of an outer frame's code object, which the walk leaves to user
 * space (FXS_PY_UNCHECKED): read from the process at most once per
 * PY_RECHECK_NS for a (pid, address), in a direct-mapped table (a slot taken
 * by another pair is read again). The frame holds a reference to the object
 * when it is sampled; a read within the drain's delay and PY_RECHECK_NS after
 * it sees that object unless the frame returned and the object was freed and
 * its address reused in between, where the walk's own read would have.
 */
#define PY_RECHECK_SLOTS 1024
#define PY_RECHECK_NS	 (20 * 1000000ULL)

struct py_recheck {
	uint64_t pid, addr;
	uint64_t read_ns; /* 0: empty */
	uint32_t check;
};

struct python_capture {
	struct bpf_sampler *bpf;
	void (*warn)(void *ctx, const char *text);
	void *warn_ctx;
	struct py_file *files;
	size_t nr_files, cap_files;
	struct py_proc *procs;
	size_t nr_procs, cap_procs;
	struct py_code *codes;
	size_t nr_codes, cap_codes;
	struct hash_index code_idx;
	uint32_t next_id;
	uint64_t counts[PY_CNT_NR];
	struct py_recheck recheck[PY_RECHECK_SLOTS];
	uint8_t buf[FXT_MAX_BLOB_LEN + 1];
};

static const char *const count_names[PY_CNT_NR] = {
	"procs_walked", "procs_unsupported", "procs_mismatch", "procs_unreadable", "samples",
	"end_ok",	"end_truncated",     "end_no_tstate",  "end_fault",	   "frames",
	"codes",	"codes_failed",
};

const char *python_count_name(unsigned which)
{
	return which < PY_CNT_NR ? count_names[which] : "?";
}

static void say(struct python_capture *pc, const char *text)
{
	if (pc->warn)
		pc->warn(pc->warn_ctx, text);
}

static int on_file(void *ctx, const uint8_t *build_id, size_t build_id_len, const char *key, int fd)
{
	struct python_capture *pc = ctx;
	struct py_file *f;

	(void)build_id;
	(void)build_id_len;
	(void)key;
	if (array_reserve((void **)&pc->files, &pc->cap_files, pc->nr_files, sizeof(*f)))
		return -ENOMEM;
	f = &pc->files[pc->nr_files];
	memset(f, 0, sizeof(*f));
	if (fd >= 0 && py_image_detect(fd, &f->img))
		memset(&f->img, 0, sizeof(f->img));
	return (int)pc->nr_files++;
}

static struct py_proc *find_proc(struct python_capture *pc, pid_t pid)
{
	for (size_t i = 0; i < pc->nr_procs; i++)
		if (pc->procs[i].pid == pid)
			return &pc->procs[i];
	return NULL;
}

static int on_mapping(void *ctx, pid_t pid, uint64_t start, uint64_t end, uint64_t bias, int id)
{
	struct python_capture *pc = ctx;
	const struct py_image *img;
	struct fxs_py_proc p;
	struct py_proc *e;
	char text[160];
	int err;

	(void)start;
	(void)end;
	if (id < 0 || (size_t)id >= pc->nr_files || pc->files[id].img.kind == PY_IMAGE_NONE)
		return 0;
	img = &pc->files[id].img;
	e = find_proc(pc, pid);
	if (e)
		return 0;
	if (array_reserve((void **)&pc->procs, &pc->cap_procs, pc->nr_procs, sizeof(*e)))
		return -ENOMEM;
	e = &pc->procs[pc->nr_procs++];
	e->pid = pid;
	e->layout = img->layout;
	e->code_type = bias + img->code_type;
	e->none = img->none ? bias + img->none : 0;
	if (img->kind != PY_IMAGE_OK) {
		pc->counts[img->kind == PY_IMAGE_UNSUPPORTED ? PY_CNT_PROCS_UNSUPPORTED
			   : img->kind == PY_IMAGE_MISMATCH  ? PY_CNT_PROCS_MISMATCH
							     : PY_CNT_PROCS_UNREADABLE]++;
		snprintf(text, sizeof(text),
			 "python: process %d runs Python %u.%u: not walked (%s%s%s)", (int)pid,
			 img->major, img->minor, py_image_kind_name(img->kind),
			 img->why ? ": " : "", img->why ? img->why : "");
		say(pc, text);
		return 0;
	}
	p = img->layout->walk;
	p.interp_head = bias + img->runtime + img->layout->runtime_interp_head;
	err = bpf_sampler_set_python(pc->bpf, (uint32_t)pid, &p);
	if (err)
		return err;
	pc->counts[PY_CNT_PROCS_WALKED]++;
	return 0;
}

struct python_capture *python_capture__new(struct bpf_sampler *b, struct modules *m,
					   void (*warn)(void *ctx, const char *text),
					   void *warn_ctx)
{
	struct python_capture *pc = calloc(1, sizeof(*pc));
	struct modules_listener l = {.file = on_file, .mapping = on_mapping};
	int err;

	if (!pc)
		return NULL;
	pc->bpf = b;
	pc->warn = warn;
	pc->warn_ctx = warn_ctx;
	pc->next_id = 1;
	l.ctx = pc;
	err = modules_add_listener(m, &l);
	if (err) {
		free(pc);
		errno = -err;
		return NULL;
	}
	return pc;
}

void python_capture__free(struct python_capture *pc)
{
	if (!pc)
		return;
	free(pc->files);
	free(pc->procs);
	for (size_t i = 0; i < pc->nr_codes; i++)
		free(pc->codes[i].pending);
	free(pc->codes);
	hash_index_free(&pc->code_idx);
	free(pc);
}

void python_capture_forget(struct python_capture *pc, pid_t pid)
{
	struct py_proc *e = find_proc(pc, pid);

	if (!e)
		return;
	bpf_sampler_set_python(pc->bpf, (uint32_t)pid, NULL);
	*e = pc->procs[--pc->nr_procs];
	/*
	 * Its code objects stay in the index: a reused pid meets other objects
	 * at those addresses, and the check tells most apart; the rest are read
	 * again only if their check matches, which the content then confirms.
	 */
}

static bool read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};

	return addr && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* A str object of pid at addr as UTF-8 into out (size bytes); "?" when it cannot be read. */
static size_t read_str(const struct py_layout *l, pid_t pid, uint64_t addr, char *out, size_t size)
{
	uint8_t hdr[128], data[4 * FXT_PY_FILE_MAX];
	size_t off, len;
	unsigned kind;

	if (l->compact_size > sizeof(hdr) || !read_mem(pid, addr, hdr, l->compact_size) ||
	    !py_str_header(l, hdr, &off, &len, &kind))
		goto unknown;
	if (len > sizeof(data))
		len = sizeof(data) / kind * kind;
	if (!read_mem(pid, addr + off, data, len))
		goto unknown;
	return py_str_utf8(data, len, kind, out, size);
unknown:
	snprintf(out, size, "?");
	return 1;
}

/*
 * Read pid's code object at addr, check it is the one the walk saw, and encode
 * its record into pc->buf: its length, 0 when it is not one (*ret_id 0).
 */
static size_t read_code(struct python_capture *pc, const struct py_proc *p, uint64_t addr,
			uint32_t check, uint32_t *ret_id)
{
	uint8_t obj[256], bytes_hdr[40];
	static uint8_t table[FXT_PY_TABLE_MAX];
	char qualname[FXT_PY_NAME_MAX + 1], filename[FXT_PY_FILE_MAX + 1];
	struct py_code_refs refs;
	struct fxt_pycode rec = {0};
	const struct py_layout *l = p->layout;
	pid_t pid = p->pid;
	uint64_t tlen, type = 0;
	size_t n;

	*ret_id = 0;
	if (l->code_size > sizeof(obj) || !read_mem(pid, addr, obj, l->code_size) ||
	    py_code_check(l, obj) != check)
		return 0;
	/*
	 * A code object's ob_type is PyCode_Type: what a walk of garbage (a
	 * program that only looks like Python, memory changed under the walk)
	 * found is left unnamed, not named after what its pointers lead to.
	 */
	for (int i = 0; i < 8; i++)
		type |= (uint64_t)obj[8 + i] << (8 * i);
	if (type != p->code_type)
		return 0;
	py_code_refs(l, obj, &refs);
	rec.qualname_len = read_str(l, pid, refs.qualname, qualname, sizeof(qualname));
	rec.filename_len = read_str(l, pid, refs.filename, filename, sizeof(filename));
	if (read_mem(pid, refs.linetable, bytes_hdr, l->bytes_data)) {
		tlen = 0;
		for (int i = 0; i < 8; i++)
			tlen |= (uint64_t)bytes_hdr[l->bytes_size + i] << (8 * i);
		/* A table past the cap is left out: the frames then name the first line. */
		if (tlen <= FXT_PY_TABLE_MAX &&
		    read_mem(pid, refs.linetable + l->bytes_data, table, tlen)) {
			rec.table = table;
			rec.table_len = (size_t)tlen;
		}
	}
	rec.id = pc->next_id;
	rec.pid = (uint64_t)pid;
	rec.firstlineno = refs.firstlineno;
	rec.qualname = qualname;
	rec.filename = filename;
	n = fxt_pycode_encode(pc->buf, &rec);
	if (!n)
		return 0;
	pc->next_id++;
	*ret_id = rec.id;
	return n;
}

static bool code_eq(const void *ctx, size_t pos, const void *key)
{
	const struct py_code *a = &((const struct python_capture *)ctx)->codes[pos], *b = key;

	return a->pid == b->pid && a->addr == b->addr && a->check == b->check;
}

static uint64_t code_hash(const struct py_code *k)
{
	return hash_u64(hash_u64(hash_u64(FNV_INIT, k->pid), k->addr), k->check);
}

/*
 * Read the code object k names and index it (k->id its record's, 0 when
 * unreadable); its record, if any, is left in pc->buf, *len bytes.
 */
static int code_read(struct python_capture *pc, const struct py_proc *p, struct py_code *k,
		     size_t *len)
{
	*len = read_code(pc, p, k->addr, k->check, &k->id);
	pc->counts[k->id ? PY_CNT_CODES : PY_CNT_CODES_FAILED]++;
	/* One that could not be read is not tried again for this content. */
	if (array_reserve((void **)&pc->codes, &pc->cap_codes, pc->nr_codes, sizeof(*k)) ||
	    hash_index_insert(&pc->code_idx, code_hash(k), pc->nr_codes))
		return -ENOMEM;
	pc->codes[pc->nr_codes++] = *k;
	return 0;
}

/*
 * The check of frame f's code object: the walk's, or read now for a frame the
 * walk did not check. A read that fails keeps the last one read of the pair
 * (a process gone keeps its objects), else FXS_PY_UNCHECKED, which no code
 * object has: the frame stays unnamed.
 */
static uint32_t frame_check(struct python_capture *pc, const struct py_proc *p,
			    const struct fxs_py_frame *f, uint64_t now)
{
	uint32_t check = f->check & 0x7fffffff, lo = 0, hi = 0;
	struct py_recheck *r;
	uint8_t w[8];
	bool same;

	if (check != FXS_PY_UNCHECKED)
		return check;
	r = &pc->recheck[hash_u64(hash_u64(FNV_INIT, (uint64_t)p->pid), f->code) %
			 PY_RECHECK_SLOTS];
	same = r->read_ns && r->pid == (uint64_t)p->pid && r->addr == f->code;
	if (same && now - r->read_ns < PY_RECHECK_NS)
		return r->check;
	if (!read_mem(p->pid, f->code + p->layout->walk.code_check, w, sizeof(w)))
		return same ? r->check : FXS_PY_UNCHECKED;
	for (int i = 0; i < 4; i++) {
		lo |= (uint32_t)w[i] << (8 * i);
		hi |= (uint32_t)w[4 + i] << (8 * i);
	}
	*r = (struct py_recheck){.pid = (uint64_t)p->pid, .addr = f->code, .read_ns = now | 1};
	r->check = FXS_PY_CHECK(lo, hi);
	return r->check;
}

static int code_id(struct python_capture *pc, struct fxt_stream *s, const struct py_proc *p,
		   uint64_t addr, uint32_t check, uint32_t *ret)
{
	struct py_code k = {.pid = (uint64_t)p->pid, .addr = addr, .check = check}, *e;
	size_t pos, n;
	int err;

	if (hash_index_find(&pc->code_idx, code_hash(&k), code_eq, pc, &k, &pos)) {
		e = &pc->codes[pos];
		*ret = e->id;
		if (!e->pending)
			return 0;
		/* read as its sample arrived: written before the first sample that names it */
		err = fxt_stream_blob(s, FXT_PYCODE_BLOB, e->pending, e->pending_len);
		free(e->pending);
		e->pending = NULL;
		return err;
	}
	err = code_read(pc, p, &k, &n);
	*ret = k.id;
	return err || !n ? err : fxt_stream_blob(s, FXT_PYCODE_BLOB, pc->buf, n);
}

int python_capture_prefetch(struct python_capture *pc, uint32_t pid, const void *sec, size_t len)
{
	const struct fxs_py_hdr *h = sec;
	const struct fxs_py_frame *f = (const void *)(h + 1);
	struct py_proc *p = find_proc(pc, (pid_t)pid);
	struct py_code k = {.pid = pid}, *e;
	uint64_t now = mono_ns();
	size_t pos, n;
	int err;

	if (len < sizeof(*h) || h->magic != FXS_PY_MAGIC || !p || !p->layout ||
	    h->nr > FXS_PY_MAX_FRAMES || len < sizeof(*h) + h->nr * sizeof(*f))
		return 0;
	for (unsigned i = 0; i < h->nr; i++) {
		k.addr = f[i].code;
		k.check = frame_check(pc, p, &f[i], now);
		k.id = 0;
		k.pending = NULL;
		if (hash_index_find(&pc->code_idx, code_hash(&k), code_eq, pc, &k, &pos))
			continue;
		err = code_read(pc, p, &k, &n);
		if (err)
			return err;
		if (!n)
			continue;
		e = &pc->codes[pc->nr_codes - 1];
		e->pending = malloc(n);
		if (!e->pending)
			return -ENOMEM;
		memcpy(e->pending, pc->buf, n);
		e->pending_len = n;
	}
	return 0;
}

int python_capture_sample(struct python_capture *pc, struct fxt_stream *s, uint64_t ts,
			  uint32_t pid, uint32_t tid, const void *sec, size_t len)
{
	const struct fxs_py_hdr *h = sec;
	const struct fxs_py_frame *f = (const void *)(h + 1);
	struct fxt_pyframe out[FXS_PY_MAX_FRAMES];
	struct py_proc *p = find_proc(pc, (pid_t)pid);
	uint64_t now = mono_ns();
	unsigned nr, o = 0;
	int err;

	if (len < sizeof(*h) || h->magic != FXS_PY_MAGIC || !p || !p->layout)
		return 0;
	nr = h->nr;
	if (nr > FXS_PY_MAX_FRAMES || len < sizeof(*h) + nr * sizeof(*f))
		return 0;
	pc->counts[PY_CNT_SAMPLES]++;
	pc->counts[PY_CNT_END_OK + (h->end < FXS_PY_END_NR ? h->end : FXS_PY_END_FAULT)]++;
	for (unsigned i = 0; i < nr; i++) {
		/*
		 * 3.13: the shim frame an eval-loop invocation starts with runs
		 * None; it is no frame of the program, and the one above it (the
		 * last kept) is its invocation's first: 3.11's is_entry.
		 */
		if (p->none && f[i].code == p->none) {
			if (o)
				out[o - 1].flags |= FXT_PYF_ENTRY;
			continue;
		}
		err = code_id(pc, s, p, f[i].code, frame_check(pc, p, &f[i], now), &out[o].code);
		if (err)
			return err;
		/* the walk does not clamp: an offset out of any code object is none */
		out[o].lasti = f[i].lasti < -1 || f[i].lasti > 0x10000000 ? -1 : f[i].lasti;
		out[o].flags = f[i].check >> 31 ? FXT_PYF_ENTRY : 0;
		o++;
	}
	pc->counts[PY_CNT_FRAMES] += o;
	return fxt_stream_blob(s, FXT_PYSTACK_BLOB, pc->buf,
			       fxt_pystack_encode(pc->buf, ts, tid, h->end, out, o));
}

int python_capture_write(struct python_capture *pc, struct fxt_stream *s, uint64_t ts)
{
	return fxt_stream_counter(s, ts, 0, 0, "fxsampler", "python", 0, count_names, pc->counts,
				  PY_CNT_NR);
}

void python_capture_counts(const struct python_capture *pc, uint64_t ret[PY_CNT_NR])
{
	memcpy(ret, pc->counts, sizeof(pc->counts));
}

size_t python_summary(const uint64_t c[PY_CNT_NR], char *buf, size_t size)
{
	int n;

	if (!c[PY_CNT_PROCS_WALKED] && !c[PY_CNT_PROCS_UNSUPPORTED] && !c[PY_CNT_PROCS_MISMATCH] &&
	    !c[PY_CNT_PROCS_UNREADABLE])
		return 0;
	n = snprintf(
		buf, size,
		"python: %llu processes walked, not walked: %llu of an unsupported version, "
		"%llu of another layout, %llu unreadable; %llu samples with a Python walk "
		"(%llu whole, %llu cut at %d frames, %llu of threads without a thread state, "
		"%llu ended by a fault), %llu frames, %llu code objects named, %llu unreadable",
		(unsigned long long)c[PY_CNT_PROCS_WALKED],
		(unsigned long long)c[PY_CNT_PROCS_UNSUPPORTED],
		(unsigned long long)c[PY_CNT_PROCS_MISMATCH],
		(unsigned long long)c[PY_CNT_PROCS_UNREADABLE],
		(unsigned long long)c[PY_CNT_SAMPLES], (unsigned long long)c[PY_CNT_END_OK],
		(unsigned long long)c[PY_CNT_END_TRUNCATED], FXS_PY_MAX_FRAMES,
		(unsigned long long)c[PY_CNT_END_NO_TSTATE],
		(unsigned long long)c[PY_CNT_END_FAULT], (unsigned long long)c[PY_CNT_FRAMES],
		(unsigned long long)c[PY_CNT_CODES], (unsigned long long)c[PY_CNT_CODES_FAILED]);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}
