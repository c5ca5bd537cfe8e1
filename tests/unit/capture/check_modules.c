// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * modules: the module records a scan of /proc/PID/maps writes. The tests pin
 * a bug found by review: the path a maps line names is the target owner's to
 * change.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fxt/fxt.h"
#include "fxt/fxt_stream.h"
#include "fxt/fxt_reader.h"
#include "capture/modules.h"
#include "check_main.h"

struct sink {
	uint8_t *data;
	size_t len, cap;
};

static int sink_write(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;

	if (s->len + len > s->cap) {
		size_t cap = (s->len + len) * 2;
		uint8_t *tmp = realloc(s->data, cap);

		if (!tmp)
			return -ENOMEM;
		s->data = tmp;
		s->cap = cap;
	}
	memcpy(s->data + s->len, data, len);
	s->len += len;
	return 0;
}

static char root[64];

static void make_root(void)
{
	char path[PATH_MAX];

	/* Each test makes its own, also when CK_FORK=no runs them in one process. */
	snprintf(root, sizeof(root), "/tmp/fxs-modules-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/4242", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
}

static void remove_root(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

/* A maps file for pid 4242 of the fake proc root with one r-xp line. */
static void write_maps(const char *file, dev_t dev, ino_t ino)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/4242/maps", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "555555554000-555555556000 r-xp 00000000 %02x:%02x %llu %s\n", major(dev),
		minor(dev), (unsigned long long)ino, file);
	fclose(f);
}

/*
 * Scan pid 4242 of the fake proc root (which has no map_files, as for a
 * daemon without CAP_SYS_ADMIN) and return the build-id length of the one
 * module record written, or -1 if none was.
 */
static int scanned_build_id_len(void)
{
	struct sink sink = {0};
	struct modules *m = modules__new(root);
	struct fxt_stream *s;
	struct fxt_reader *r;
	struct fxt_record rec;
	int modules = 0, len = -1;

	ck_assert_ptr_nonnull(m);
	s = fxt_stream__new(sink_write, &sink, "test", 1000000000);
	ck_assert_ptr_nonnull(s);
	/* As capture.c scans: modules_scan_dir(), here under the fake proc root. */
	ck_assert_int_eq(modules_scan_dir(m, s, 1, 4242, NULL), 1);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	r = fxt_reader__open_mem(sink.data, sink.len);
	ck_assert_ptr_nonnull(r);
	while (fxt_reader_next(r, &rec) > 0)
		if (rec.type == FXT_RT_PROFILER && rec.subtype == FXT_PROF_MODULE) {
			modules++;
			len = (int)rec.build_id_len;
		}
	ck_assert_int_eq(modules, 1);
	fxt_reader__free(r);
	fxt_stream__free(s);
	modules__free(m);
	free(sink.data);
	return len;
}

/* A copy of this test's own executable: an ELF file with a build id. */
static void copy_self(const char *dst)
{
	char cmd[2 * PATH_MAX + 16], self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", self, dst);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_modules_mapped_file_read)
{
	char elf[PATH_MAX];
	struct stat st;

	make_root();
	snprintf(elf, sizeof(elf), "%s/lib.so", root);
	copy_self(elf);
	ck_assert_int_eq(stat(elf, &st), 0);
	write_maps(elf, st.st_dev, st.st_ino);
	/* The path still names the mapped file: its build id is read. */
	ck_assert_int_gt(scanned_build_id_len(), 0);
	remove_root();
}
END_TEST

/*
 * Found by review for the security tests: without map_files the daemon
 * opened whatever the maps line's path named now. The target's owner can
 * rename the mapped file and put another there (a file only root reads, a
 * FIFO that blocks open() forever); the daemon runs as root. Now the path is
 * used only while it is still the mapped inode.
 */
START_TEST(test_modules_swapped_path_not_read)
{
	char elf[PATH_MAX];
	struct stat st;

	make_root();
	snprintf(elf, sizeof(elf), "%s/lib.so", root);
	copy_self(elf);
	ck_assert_int_eq(stat(elf, &st), 0);
	/* The maps line names another inode than the file now at the path. */
	write_maps(elf, st.st_dev, st.st_ino + 1);
	ck_assert_int_eq(scanned_build_id_len(), 0);
	write_maps(elf, makedev(major(st.st_dev) + 1, minor(st.st_dev)), st.st_ino);
	ck_assert_int_eq(scanned_build_id_len(), 0);
	remove_root();
}
END_TEST

START_TEST(test_modules_fifo_not_opened)
{
	char fifo[PATH_MAX];
	struct stat st;

	make_root();
	snprintf(fifo, sizeof(fifo), "%s/lib.so", root);
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(stat(fifo, &st), 0);
	/* Even with its own inode in the line: not a regular file, not opened (no hang). */
	write_maps(fifo, st.st_dev, st.st_ino);
	ck_assert_int_eq(scanned_build_id_len(), 0);
	remove_root();
}
END_TEST

/* Our vdso's length, from our maps: the kernel maps the same one into every 64-bit process. */
static unsigned long own_vdso_len(void)
{
	char line[512];
	unsigned long start, end, len = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			len = end - start;
	fclose(f);
	return len;
}

/* pid 4242's maps: a [vdso] of len bytes, and a mem file with nothing at its address. */
static void write_vdso_maps(unsigned long len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/4242/maps", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "7ffd00000000-%lx r-xp 00000000 00:00 0                          [vdso]\n",
		0x7ffd00000000UL + len);
	fclose(f);
	snprintf(path, sizeof(path), "%s/4242/mem", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

/*
 * issue 36: a process that exec'd between the read of its maps and the read
 * of its vdso (record's `chroot ROOT python3.13`) has nothing at the vdso's
 * old address. The vdso has one entry per capture: it failed for every
 * process after it, with no CFI table, and every stack through the vdso
 * ended in its caller (2 of 5 runs of check_python313: 47 % of the samples).
 * Now the kernel's vdso, ours, as long as the one mapped: with its build id.
 * Another length (a 32-bit process's vdso) is not ours: no image.
 */
START_TEST(test_modules_vdso_after_exec)
{
	unsigned long len = own_vdso_len();

	/* valgrind gives the program it runs no vdso (AT_SYSINFO_EHDR 0): nothing to fall back to
	 */
	if (!getauxval(AT_SYSINFO_EHDR)) {
		printf("SKIP: test_modules_vdso_after_exec: this process has no vdso (valgrind?); "
		       "NOT RUN\n");
		return;
	}
	ck_assert_uint_gt(len, 0);
	make_root();
	write_vdso_maps(len);
	ck_assert_int_gt(scanned_build_id_len(), 0);
	write_vdso_maps(len + 4096);
	ck_assert_int_eq(scanned_build_id_len(), 0);
	remove_root();
}
END_TEST

/* The records a modules call wrote: module names with build-id lengths, and mmap starts. */
struct written {
	char names[8][256];
	size_t id_lens[8];
	uint64_t pids[16], starts[16];
	unsigned modules, maps;
};

static void read_back(struct sink *sink, struct written *w)
{
	struct fxt_reader *r = fxt_reader__open_mem(sink->data, sink->len);
	struct fxt_record rec;

	ck_assert_ptr_nonnull(r);
	memset(w, 0, sizeof(*w));
	while (fxt_reader_next(r, &rec) > 0) {
		if (rec.type != FXT_RT_PROFILER)
			continue;
		if (rec.subtype == FXT_PROF_MODULE && w->modules < 8) {
			snprintf(w->names[w->modules], sizeof(w->names[0]), "%s", rec.name);
			w->id_lens[w->modules++] = rec.build_id_len;
		} else if (rec.subtype == FXT_PROF_MMAP && w->maps < 16) {
			w->pids[w->maps] = rec.pid;
			w->starts[w->maps++] = rec.start;
		}
	}
	fxt_reader__free(r);
}

/*
 * A scan tells a process's code in the order it was mapped, as far as the
 * maps show it (which is the order its tables are let in): the program (the
 * lowest) first, then from the top down, as ld.so's mmaps came. In address
 * order, clang's libLLVM's small libraries came before its libclang-cpp.
 */
START_TEST(test_modules_scan_order)
{
	static const char *const names[] = {"prog", "libneeded.so", "libdep.so"};
	char path[PATH_MAX], elf[3][PATH_MAX];
	struct sink sink = {0};
	struct modules *m;
	struct fxt_stream *s;
	struct written w;
	struct stat st[3];
	FILE *f;

	make_root();
	for (int i = 0; i < 3; i++) {
		snprintf(elf[i], sizeof(elf[i]), "%s/%s", root, names[i]);
		copy_self(elf[i]);
		ck_assert_int_eq(stat(elf[i], &st[i]), 0);
	}
	snprintf(path, sizeof(path), "%s/4242/maps", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	/* address order: the program's read-only part, its code, libdep (mapped last), libneeded */
	fprintf(f, "555555550000-555555554000 r--p 00000000 %02x:%02x %llu %s\n",
		major(st[0].st_dev), minor(st[0].st_dev), (unsigned long long)st[0].st_ino, elf[0]);
	fprintf(f, "555555554000-555555556000 r-xp 00004000 %02x:%02x %llu %s\n",
		major(st[0].st_dev), minor(st[0].st_dev), (unsigned long long)st[0].st_ino, elf[0]);
	fprintf(f, "7f0000001000-7f0000002000 r-xp 00001000 %02x:%02x %llu %s\n",
		major(st[2].st_dev), minor(st[2].st_dev), (unsigned long long)st[2].st_ino, elf[2]);
	fprintf(f, "7f8000001000-7f8000002000 r-xp 00001000 %02x:%02x %llu %s\n",
		major(st[1].st_dev), minor(st[1].st_dev), (unsigned long long)st[1].st_ino, elf[1]);
	fprintf(f, "7ffe00000000-7ffe00021000 rw-p 00000000 00:00 0 [stack]\n");
	fclose(f);
	m = modules__new(root);
	ck_assert_ptr_nonnull(m);
	s = fxt_stream__new(sink_write, &sink, "test", 1000000000);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(modules_scan_dir(m, s, 1, 4242, NULL), 3);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	read_back(&sink, &w);
	ck_assert_uint_eq(w.maps, 3);
	ck_assert_uint_eq(w.starts[0], 0x555555554000ULL);
	ck_assert_uint_eq(w.starts[1], 0x7f8000001000ULL);
	ck_assert_uint_eq(w.starts[2], 0x7f0000001000ULL);
	fxt_stream__free(s);
	modules__free(m);
	free(sink.data);
	remove_root();
}
END_TEST

/*
 * A mapping event of a file since deleted: its module record keeps the
 * kernel's build id and the path without " (deleted)". A process's mappings
 * are kept until it is sampled (modules_emit), then written as they come; a
 * fork gives the child the parent's, written at its own first sample; a
 * mapping over one replaces it; a fork onto a reused pid forgets the dead
 * process's.
 */
START_TEST(test_modules_events)
{
	static const uint8_t id[20] = {0xab, 0xcd, 1, 2, 3};
	struct modules_event ev = {
		.start = 0x7f0000001000,
		.len = 0x2000,
		.pgoff = 0x1000,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.build_id = id,
		.build_id_len = sizeof(id),
		.path = "/nonexistent/libgone.so (deleted)",
	};
	unsigned n[MODULES_NR_SOURCES] = {0};
	struct sink sink = {0};
	struct modules *m = modules__new("/nonexistent-proc");
	struct fxt_stream *s = fxt_stream__new(sink_write, &sink, "test", 1000000000);
	struct written w;

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(s);
	modules_keep_until_sampled(m);
	/* not sampled yet: kept */
	ck_assert_int_eq(modules_add_event(m, s, 1, 100, &ev), 0);
	ck_assert(modules_covers(m, 100, 0x7f0000001800));
	ck_assert(!modules_covers(m, 100, 0x7f0000003000));
	/* the child has it from the fork */
	ck_assert_int_eq(modules_fork(m, 100, 101), 1);
	ck_assert(modules_covers(m, 101, 0x7f0000001800));
	ck_assert_int_eq(modules_emit(m, s, 2, 100, n), 0);
	ck_assert_uint_eq(n[MODULES_FROM_EVENT], 1);
	ck_assert_int_eq(modules_emit(m, s, 2, 100, n), 0);
	ck_assert_uint_eq(n[MODULES_FROM_EVENT], 1);
	/* a new mapping over part of it replaces it; 101 is not sampled: kept */
	ev.start = 0x7f0000002000;
	ev.len = 0x1000;
	ev.path = "/nonexistent/other.so";
	ev.build_id_len = 0;
	ck_assert_int_eq(modules_add_event(m, s, 3, 101, &ev), 0);
	ck_assert(!modules_covers(m, 101, 0x7f0000001800));
	ck_assert(modules_covers(m, 101, 0x7f0000002800));
	ck_assert_int_eq(modules_emit(m, s, 4, 101, n), 0);
	ck_assert_uint_eq(n[MODULES_FROM_EVENT], 2);
	ck_assert_uint_eq(n[MODULES_FROM_FORK], 0);
	/* 100 is sampled: written at once */
	ev.start = 0x7f0000020000;
	ck_assert_int_eq(modules_add_event(m, s, 5, 100, &ev), 1);
	ck_assert_int_eq(modules_fork(m, 999, 102), 0);
	/* 101 is sampled too */
	ev.start = 0x7f0000040000;
	ck_assert_int_eq(modules_add_event(m, s, 5, 101, &ev), 1);
	ev.len = 0;
	ck_assert_int_eq(modules_add_event(m, s, 5, 101, &ev), -EINVAL);
	/* pid 101 reused by a new child of 100: the dead process's mappings go */
	ck_assert_int_eq(modules_fork(m, 100, 101), 2);
	ck_assert(!modules_covers(m, 101, 0x7f0000040800));
	ck_assert(modules_covers(m, 101, 0x7f0000020800));
	ck_assert_int_eq(modules_emit(m, s, 6, 101, n), 0);
	ck_assert_uint_eq(n[MODULES_FROM_FORK], 2);
	/* its exec forgets the parent's copies, not what it was reported */
	ev.start = 0x7f0000050000;
	ev.len = 0x1000;
	ck_assert_int_eq(modules_add_event(m, s, 8, 101, &ev), 1);
	modules_exec(m, 101);
	ck_assert(!modules_covers(m, 101, 0x7f0000020800));
	ck_assert(modules_covers(m, 101, 0x7f0000050800));
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	read_back(&sink, &w);
	/* 100: libgone, other; 101: other (twice mapped); 101 again: libgone, other */
	ck_assert_uint_eq(w.modules, 5);
	ck_assert_str_eq(w.names[0], "/nonexistent/libgone.so");
	ck_assert_uint_eq(w.id_lens[0], 20);
	ck_assert_str_eq(w.names[1], "/nonexistent/other.so");
	ck_assert_uint_eq(w.maps, 7);
	ck_assert_uint_eq(w.pids[1], 101);
	ck_assert_uint_eq(w.starts[1], 0x7f0000002000);
	ck_assert_uint_eq(w.pids[2], 100);
	ck_assert_uint_eq(w.pids[3], 101);
	ck_assert_uint_eq(w.starts[3], 0x7f0000040000);
	ck_assert_uint_eq(w.pids[5], 101);
	fxt_stream__free(s);
	modules__free(m);
	free(sink.data);
}
END_TEST

struct replayed {
	unsigned mappings, scanned;
	uint64_t lowest;
};

static int on_file(void *ctx, const uint8_t *id, size_t id_len, const char *key, int fd)
{
	return 7;
}

static int on_mapping(void *ctx, pid_t pid, uint64_t start, uint64_t end, uint64_t bias, int id)
{
	struct replayed *r = ctx;

	ck_assert_int_eq(id, 7);
	if (!r->mappings++ || start < r->lowest)
		r->lowest = start;
	return 0;
}

static int on_scanned(void *ctx, pid_t pid)
{
	((struct replayed *)ctx)->scanned++;
	return 0;
}

/*
 * A process past a secure exec has no mapping events: it stays so when its
 * mappings are forgotten, its children inherit it, and a pid reused by a
 * child of a process with events does not.
 */
START_TEST(test_modules_events_ended)
{
	struct modules_event ev = {
		.start = 0x7f0000001000,
		.len = 0x1000,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.path = "/nonexistent/libevents.so",
	};
	struct sink sink = {0};
	struct modules *m = modules__new("/nonexistent-proc");
	struct fxt_stream *s = fxt_stream__new(sink_write, &sink, "test", 1000000000);

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(s);
	ck_assert(!modules_without_events(m, 100));
	ck_assert_int_eq(modules_events_ended(m, 100), 0);
	ck_assert(modules_without_events(m, 100));
	modules_forget(m, 100);
	ck_assert(modules_without_events(m, 100));
	ck_assert_int_eq(modules_fork(m, 100, 101), 0);
	ck_assert(modules_without_events(m, 101));
	/* pid 300 reused by a child of 102, which has events */
	ck_assert_int_ge(modules_add_event(m, s, 1, 102, &ev), 0);
	ck_assert_int_eq(modules_events_ended(m, 300), 0);
	ck_assert_int_eq(modules_fork(m, 102, 300), 1);
	ck_assert(!modules_without_events(m, 300));
	ck_assert(!modules_without_events(m, 102));
	fxt_stream__free(s);
	modules__free(m);
	free(sink.data);
}
END_TEST

/*
 * An exec loop (issue 40): each image's mappings replace the last one's at
 * the exec's comm record (modules_exec_begin), so that the replay after the
 * exec tells the listener of the new image's only, whatever the number of
 * execs before; past the cap of a process, mappings are dropped and counted.
 */
START_TEST(test_modules_exec_replaces)
{
	struct modules_event ev = {
		.len = 0x1000,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.path = "/nonexistent/execloop",
	};
	struct sink sink = {0};
	struct modules *m = modules__new("/nonexistent-proc");
	struct fxt_stream *s = fxt_stream__new(sink_write, &sink, "test", 1000000000);
	struct replayed r = {0};
	struct modules_listener l = {on_file, on_mapping, on_scanned, &r};

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(modules_add_listener(m, &l), 0);
	modules_keep_until_sampled(m);
	for (unsigned image = 0; image < 1000; image++) {
		uint64_t old = 0x500000000000ULL + (uint64_t)(image - 1) * 0x100000;

		modules_exec_begin(m, 100);
		/* inside execve(), the old image's pcs still resolve */
		if (image)
			ck_assert(modules_covers(m, 100, old));
		for (unsigned k = 0; k < 5; k++) {
			/* each image somewhere else, as ASLR places it */
			ev.start = 0x500000000000ULL + (uint64_t)image * 0x100000 + k * 0x1000;
			ck_assert_int_eq(modules_add_event(m, s, image, 100, &ev), 0);
		}
		modules_exec(m, 100);
	}
	r = (struct replayed){0};
	ck_assert_int_eq(modules_replay(m, 100), 0);
	ck_assert_uint_eq(r.mappings, 5);
	ck_assert_uint_eq(r.scanned, 1);
	ck_assert_uint_eq(r.lowest, 0x500000000000ULL + 999 * 0x100000);
	ck_assert(!modules_covers(m, 100, 0x500000000000ULL));
	/* the cap of a process: the rest dropped, counted */
	ck_assert_uint_eq(modules_dropped(m), 0);
	for (uint64_t i = 0; i < MODULES_MAX_PROC_RANGES + 10; i++) {
		ev.start = 0x100000000ULL + i * 0x2000;
		if (modules_add_event(m, s, 2000, 101, &ev))
			ck_abort_msg("mapping %llu refused", (unsigned long long)i);
	}
	ck_assert_uint_eq(modules_dropped(m), 10);
	ck_assert(modules_covers(m, 101, 0x100000000ULL));
	ck_assert(!modules_covers(m, 101, 0x100000000ULL + MODULES_MAX_PROC_RANGES * 0x2000ULL));
	fxt_stream__free(s);
	modules__free(m);
	free(sink.data);
}
END_TEST

static Suite *modules_suite(void)
{
	Suite *s = suite_create("modules");
	TCase *modules = tcase_create("scan");

	tcase_set_timeout(modules, 10);
	tcase_add_test(modules, test_modules_mapped_file_read);
	tcase_add_test(modules, test_modules_swapped_path_not_read);
	tcase_add_test(modules, test_modules_fifo_not_opened);
	tcase_add_test(modules, test_modules_vdso_after_exec);
	tcase_add_test(modules, test_modules_scan_order);
	tcase_add_test(modules, test_modules_events);
	tcase_add_test(modules, test_modules_events_ended);
	tcase_add_test(modules, test_modules_exec_replaces);
	suite_add_tcase(s, modules);
	return s;
}

CHECK_MAIN(modules_suite)
