// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A capture's kernel stacks into the .fxt (capture/kstacks.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/containers.h"
#include "util/hash.h"
#include "fxt/fxt_kstack.h"
#include "symbols/kallsyms.h"
#include "capture/kstacks.h"

/* One kernel location: its PC, and whether to look up the call before it. */
struct kloc {
	uint64_t pc;
	bool is_return;
};

struct kstacks {
	char *kallsyms;
	struct kallsyms *at_start; /* to drop the tracing frames a stack starts with */
	struct kloc *v;		   /* id - 1 */
	size_t n, cap;
	struct hash_index idx;
};

struct kstacks *kstacks__new(const char *kallsyms)
{
	struct kstacks *k = calloc(1, sizeof(*k));

	if (!k || !(k->kallsyms = strdup(kallsyms ? kallsyms : "/proc/kallsyms"))) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	/* The BPF programs are loaded by now: their symbols are listed. */
	k->at_start = kallsyms__load(k->kallsyms);
	return k;
}

void kstacks__free(struct kstacks *k)
{
	if (!k)
		return;
	hash_index_free(&k->idx);
	kallsyms__free(k->at_start);
	free(k->v);
	free(k->kallsyms);
	free(k);
}

static bool kloc_eq(const void *ctx, size_t pos, const void *key)
{
	return ((const struct kstacks *)ctx)->v[pos].pc == *(const uint64_t *)key;
}

static int kloc_id(struct kstacks *k, uint64_t pc, bool is_return, uint32_t *ret)
{
	uint64_t h = hash_u64(FNV_INIT, pc);
	size_t pos;

	if (!hash_index_find(&k->idx, h, kloc_eq, k, &pc, &pos)) {
		if (k->n >= UINT32_MAX ||
		    array_reserve((void **)&k->v, &k->cap, k->n, sizeof(*k->v)) ||
		    hash_index_insert(&k->idx, h, k->n))
			return -ENOMEM;
		k->v[k->n] = (struct kloc){pc, is_return};
		pos = k->n++;
	}
	*ret = (uint32_t)pos + 1;
	return 0;
}

int kstacks_write_stack(struct kstacks *k, struct fxt_stream *s, uint64_t ts, uint64_t tid,
			const uint64_t *pcs, unsigned nr, bool first_exact)
{
	uint8_t buf[FXT_KSTACK_HDR + 4 * 256];
	uint32_t ids[256];
	unsigned i;
	int err;

	if (nr > 256)
		nr = 256;
	/*
	 * A stack taken in sched_switch starts in our own program and the
	 * tracepoint's glue: the thread's stack begins below them.
	 */
	while (nr > 1 && kallsyms_is_tracing(k->at_start, pcs[0])) {
		pcs++;
		nr--;
		first_exact = false;
	}
	for (i = 0; i < nr; i++) {
		err = kloc_id(k, pcs[i], i > 0 || !first_exact, &ids[i]);
		if (err)
			return err;
	}
	return fxt_stream_blob(s, FXT_KSTACK_BLOB, buf, fxt_kstack_encode(buf, ts, tid, ids, nr));
}

int kstacks_write_kernel(struct kstacks *k, struct fxt_stream *s)
{
	uint8_t notes[4096], id[64];
	char text[512], hex[2 * sizeof(id) + 1] = "";
	struct utsname u;
	size_t n = 0, idlen = 0;
	ssize_t r;
	int fd, len;

	(void)k;
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((r = read(fd, notes + n, sizeof(notes) - n)) > 0 && n < sizeof(notes))
			n += (size_t)r;
		close(fd);
		idlen = kallsyms_notes_build_id(notes, n, id, sizeof(id));
	}
	for (size_t i = 0; i < idlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (uname(&u))
		strcpy(u.release, "unknown");
	len = snprintf(text, sizeof(text), "release %s\nbuild_id %s\n", u.release,
		       idlen ? hex : "-");
	if (len < 0 || (size_t)len >= sizeof(text))
		return -EINVAL;
	return fxt_stream_blob(s, FXT_KERNEL_BLOB, text, (size_t)len);
}

int kstacks_write_symbols(struct kstacks *k, struct fxt_stream *s, uint64_t *ret_unresolved)
{
	struct kallsyms *ks;
	char buf[FXT_MAX_BLOB_LEN], line[600];
	uint64_t unresolved = 0;
	size_t len = 0, n;
	int err = 0;

	if (ret_unresolved)
		*ret_unresolved = 0;
	if (!k->n)
		return 0;
	/* Unreadable: every location stays unknown, and the caller says so. */
	ks = kallsyms__load(k->kallsyms);
	for (size_t i = 0; !err && i < k->n; i++) {
		const struct kloc *l = &k->v[i];
		const struct ksym *sym = kallsyms_find(ks, l->pc - l->is_return);

		n = sym ? fxt_ksym_format(line, sizeof(line), (uint32_t)i + 1, l->pc - sym->addr,
					  sym->name, sym->module)
			: 0;
		if (!n) {
			unresolved++;
			n = fxt_ksym_format(line, sizeof(line), (uint32_t)i + 1, 0, "[unknown]",
					    "-");
		}
		if (len + n > sizeof(buf)) {
			err = fxt_stream_blob(s, FXT_KSYMS_BLOB, buf, len);
			len = 0;
		}
		memcpy(buf + len, line, n);
		len += n;
	}
	if (!err && len)
		err = fxt_stream_blob(s, FXT_KSYMS_BLOB, buf, len);
	kallsyms__free(ks);
	if (ret_unresolved)
		*ret_unresolved = unresolved;
	return err;
}
