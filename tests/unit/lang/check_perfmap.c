// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Perf maps: the line parser, the picking of sampled entries (the last line
 * wins, memory bounded by the pcs), the blob payloads, and the reading of a
 * map a user controls (lang/perfmap_capture.h): a symlink, a FIFO, a 1 GiB
 * sparse file, 10 MB lines, another owner, a second link and a stale map are
 * refused, each with its reason, without a read of what they point at.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxt/fxt_reader.h"
#include "fxt/fxt_stream.h"
#include "lang/perfmap.h"
#include "lang/perfmap_capture.h"
#include "fxt/fxt_check.h"
#include "check_main.h"

START_TEST(test_parse_lines)
{
	static const char *const bad[] = {
		"",
		"zz 10 x",
		"1000 10",
		"1000 10 ",
		"1000 0 zero",
		"0x 10 x",
		"10000000000000000 10 x",
		"ffffffffffffffff 10 wraps",
		"1000x 10 x",
	};
	struct perfmap_entry e;
	const char *node = "7f34777c6a20 4c JS:*spinA /path/spin.js:1:15";
	const char *jdk = "0x00007f1c2d0f1a40 0x0000000000000120 Interpreter\r";

	ck_assert(perfmap_parse_line(node, strlen(node), &e));
	ck_assert_uint_eq(e.start, 0x7f34777c6a20ULL);
	ck_assert_uint_eq(e.size, 0x4c);
	ck_assert_uint_eq(e.name_len, strlen("JS:*spinA /path/spin.js:1:15"));
	ck_assert(!memcmp(e.name, "JS:*spinA /path/spin.js:1:15", e.name_len));
	ck_assert(perfmap_parse_line(jdk, strlen(jdk), &e));
	ck_assert_uint_eq(e.start, 0x7f1c2d0f1a40ULL);
	ck_assert_uint_eq(e.size, 0x120);
	ck_assert_uint_eq(e.name_len, strlen("Interpreter"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!perfmap_parse_line(bad[i], strlen(bad[i]), &e), "%s", bad[i]);
}
END_TEST

static const char *name_of(const struct perfmap_pick *p, size_t pc)
{
	return p->entry_of[pc] ? p->kept[p->entry_of[pc] - 1].name : NULL;
}

/* Lines cut anywhere; the last line covering a pc wins; unsampled lines cost nothing. */
START_TEST(test_pick)
{
	static const uint64_t pcs[] = {0x1000, 0x1010, 0x5000};
	const char *map = "1000 20 first\n2000 10 unsampled\n1008 10 second\n4000 2000 big\n";
	struct perfmap_pick p;
	const struct perfmap_kept *k;
	size_t i = 0, n = 0;

	ck_assert_int_eq(perfmap_pick_init(&p, pcs, 3), 0);
	for (size_t at = 0, len = strlen(map); at < len; at += 3)
		ck_assert_int_eq(perfmap_pick_feed(&p, map + at, len - at < 3 ? len - at : 3), 0);
	ck_assert_int_eq(perfmap_pick_end(&p), 0);
	ck_assert_str_eq(name_of(&p, 0), "first");
	ck_assert_str_eq(name_of(&p, 1), "second");
	ck_assert_str_eq(name_of(&p, 2), "big");
	while (perfmap_pick_get(&p, &i, &k))
		n++;
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(p.lines, 4);
	perfmap_pick_free(&p);
}
END_TEST

/* A flood of lines over one pc keeps one entry; a last line without a newline counts. */
START_TEST(test_pick_bounded)
{
	static const uint64_t pcs[] = {0x1000};
	struct perfmap_pick p;
	char line[64];

	ck_assert_int_eq(perfmap_pick_init(&p, pcs, 1), 0);
	for (unsigned i = 0; i < 100000; i++) {
		int n = snprintf(line, sizeof(line), "1000 10 gen%u\n", i);

		ck_assert_int_eq(perfmap_pick_feed(&p, line, (size_t)n), 0);
	}
	ck_assert_int_eq(perfmap_pick_feed(&p, "ff0 20 last", 11), 0);
	ck_assert_int_eq(perfmap_pick_end(&p), 0);
	ck_assert_uint_le(p.nr_kept, 2); /* the one kept, and one freed for reuse */
	ck_assert_str_eq(name_of(&p, 0), "last");
	perfmap_pick_free(&p);
}
END_TEST

/* A 10 MB line is refused as soon as it passes PERFMAP_MAX_LINE. */
START_TEST(test_long_line)
{
	static const uint64_t pcs[] = {0x1000};
	static char chunk[1 << 16];
	struct perfmap_pick p;
	int err = 0;

	memset(chunk, 'a', sizeof(chunk));
	ck_assert_int_eq(perfmap_pick_init(&p, pcs, 1), 0);
	ck_assert_int_eq(perfmap_pick_feed(&p, "1000 10 ok\n", 11), 0);
	for (unsigned i = 0; i < 160 && !err; i++)
		err = perfmap_pick_feed(&p, chunk, sizeof(chunk));
	ck_assert_int_eq(err, -E2BIG);
	perfmap_pick_free(&p);
}
END_TEST

static int collect(void *ctx, uint64_t pid, const struct perfmap_entry *e)
{
	char *out = ctx;

	snprintf(out + strlen(out), 4096 - strlen(out), "%llu %llx %llx %.*s|",
		 (unsigned long long)pid, (unsigned long long)e->start, (unsigned long long)e->size,
		 (int)e->name_len, e->name);
	return 0;
}

START_TEST(test_blob)
{
	char buf[64], out[4096] = "";
	size_t len = 0;
	char big[2 * PERFMAP_MAX_NAME];

	ck_assert(perfmap_blob_add(buf, sizeof(buf), &len, 42, 0x1000, 0x10, "a b", 3));
	ck_assert(perfmap_blob_add(buf, sizeof(buf), &len, 42, 0x2000, 0x20, "x\ny", 3));
	ck_assert_uint_eq(len, strlen("pid 42\n1000 10 a b\n2000 20 x?y\n"));
	ck_assert(!memcmp(buf, "pid 42\n1000 10 a b\n2000 20 x?y\n", len));
	/* full: the caller writes it out and starts again */
	ck_assert(!perfmap_blob_add(buf, sizeof(buf), &len, 42, 0x3000, 0x30,
				    "a name too long for what is left", 33));
	ck_assert_int_eq(perfmap_blob_parse(buf, len, collect, out), 0);
	ck_assert_str_eq(out, "42 1000 10 a b|42 2000 20 x?y|");
	ck_assert_int_eq(perfmap_blob_parse("pid x\n", 6, collect, out), -EINVAL);
	ck_assert_int_eq(perfmap_blob_parse("pid 1\n1000 10\n", 14, collect, out), -EINVAL);
	ck_assert_int_eq(perfmap_blob_parse("pid 1\n1000 10 a", 15, collect, out), -EINVAL);
	/* names are cut to PERFMAP_MAX_NAME */
	{
		static char room[4096];

		memset(big, 'n', sizeof(big));
		len = 0;
		ck_assert(perfmap_blob_add(room, sizeof(room), &len, 1, 1, 1, big, sizeof(big)));
		ck_assert_uint_eq(len, strlen("pid 1\n1 1 \n") + PERFMAP_MAX_NAME);
	}
}
END_TEST

static char dir[64];

static void make_dir(void)
{
	strcpy(dir, "/tmp/check_perfmap.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int open_path(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static int read_named(const char *name, const uint32_t uids[4], uint64_t start,
		      struct perfmap_pick *pick)
{
	static const uint64_t pcs[] = {0x1000};
	int fd = open_path(name), err;

	ck_assert_int_ge(fd, 0);
	err = perfmap_read_fd(fd, uids, start, pcs, 1, pick);
	close(fd);
	return err;
}

/* Each kind of hostile map gets its reason; none is read past its checks. */
START_TEST(test_read_checks)
{
	uint32_t me[4] = {getuid(), geteuid(), geteuid(), geteuid()};
	uint32_t other[4] = {54321, 54321, 54321, 54321};
	uint64_t now = (uint64_t)time(NULL) * 1000000000ULL;
	struct perfmap_pick pick;
	char path[128], path2[128];
	struct timespec old[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
	int fd;

	make_dir();
	write_file("good", "1000 10 good\n");
	ck_assert_int_eq(read_named("good", me, now - 1000000000ULL, &pick), 0);
	ck_assert_str_eq(name_of(&pick, 0), "good");
	perfmap_pick_free(&pick);
	/* another uid's file, even a readable one */
	ck_assert_int_eq(read_named("good", other, 0, &pick), PERFMAP_SKIP_OWNER + 1);
	/* a symlink to a root-only file */
	snprintf(path, sizeof(path), "%s/link", dir);
	ck_assert_int_eq(symlink("/etc/shadow", path), 0);
	ck_assert_int_eq(read_named("link", me, 0, &pick), PERFMAP_SKIP_SYMLINK + 1);
	/* a FIFO: no open for reading, no hang */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(read_named("fifo", me, 0, &pick), PERFMAP_SKIP_NOT_REGULAR + 1);
	/* 1 GiB, sparse: refused by its size */
	snprintf(path, sizeof(path), "%s/huge", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1LL << 30), 0);
	close(fd);
	ck_assert_int_eq(read_named("huge", me, 0, &pick), PERFMAP_SKIP_TOO_LARGE + 1);
	/* 10 MB lines */
	snprintf(path, sizeof(path), "%s/long", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	{
		static char mb[1 << 20];

		memset(mb, 'x', sizeof(mb));
		for (int i = 0; i < 10; i++)
			ck_assert_int_eq(write(fd, mb, sizeof(mb)), (int)sizeof(mb));
	}
	close(fd);
	ck_assert_int_eq(read_named("long", me, 0, &pick), PERFMAP_SKIP_LONG_LINE + 1);
	/* a second link (to a file of its own, here) */
	snprintf(path, sizeof(path), "%s/good", dir);
	snprintf(path2, sizeof(path2), "%s/good2", dir);
	ck_assert_int_eq(link(path, path2), 0);
	ck_assert_int_eq(read_named("good", me, 0, &pick), PERFMAP_SKIP_LINKS + 1);
	unlink(path2);
	/* older than the process: an earlier process's, on a reused pid */
	write_file("stale", "1000 10 stale\n");
	snprintf(path, sizeof(path), "%s/stale", dir);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	ck_assert_int_eq(read_named("stale", me, now - 1000000000ULL, &pick),
			 PERFMAP_SKIP_STALE + 1);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static unsigned told;

static void tell(void *ctx, uint32_t pid, const char *text)
{
	(void)ctx;
	(void)pid;
	ck_assert_ptr_nonnull(strstr(text, "perf map of pid"));
	told++;
}

/* The blobs a stream holds, as "pid start size name|". */
static void stream_entries(const struct mem_sink *m, char *out)
{
	struct fxt_reader *r = open_sink(m);
	struct fxt_record rec;

	out[0] = '\0';
	while (fxt_reader_next(r, &rec) == 1)
		if (rec.type == FXT_RT_BLOB && rec.name && !strcmp(rec.name, FXT_PERFMAP_BLOB))
			ck_assert_int_eq(perfmap_blob_parse((const char *)rec.blob, rec.blob_len,
							    collect, out),
					 0);
	fxt_reader__free(r);
}

/*
 * A live process followed, its map read at its end through its own root's
 * tmp: written when sound, skipped and told once when a symlink.
 */
START_TEST(test_capture_flush)
{
	struct perfmap_stats st;
	struct perfmap_capture *pc;
	struct mem_sink m;
	struct fxt_stream *s;
	char proc[32], map[64], out[4096];
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (!child) {
		pause();
		_exit(0);
	}
	snprintf(proc, sizeof(proc), "/proc/%d", (int)child);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)child);
	unlink(map);
	pc = perfmap_capture__new(tell, NULL);
	ck_assert_ptr_nonnull(pc);
	s = new_stream(&m);
	ck_assert_int_eq(perfmap_capture_follow(pc, child, proc), 0);
	ck_assert(perfmap_capture_follows(pc, child));
	ck_assert_int_eq(perfmap_capture_note(pc, child, 0x1004), 0);
	ck_assert_int_eq(perfmap_capture_note(pc, child, 0x1004), 0);
	{
		FILE *f = fopen(map, "w");

		ck_assert_ptr_nonnull(f);
		fputs("0x1000 0x10 LSpin;::hotA\n2000 10 unsampled\n", f);
		fclose(f);
	}
	ck_assert_int_eq(perfmap_capture_flush(pc, s, child), 0);
	ck_assert(!perfmap_capture_follows(pc, child));
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	stream_entries(&m, out);
	snprintf(map, sizeof(map), "%d 1000 10 LSpin;::hotA|", (int)child);
	ck_assert_str_eq(out, map);
	/* the same process again, its map now a symlink */
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)child);
	unlink(map);
	ck_assert_int_eq(symlink("/etc/shadow", map), 0);
	ck_assert_int_eq(perfmap_capture_follow(pc, child, proc), 0);
	ck_assert_int_eq(perfmap_capture_note(pc, child, 0x1004), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* gone by now: read through the tmp held since it was followed */
	ck_assert_int_eq(perfmap_capture_finish(pc, s), 0);
	unlink(map);
	perfmap_capture_stats(pc, &st);
	ck_assert_uint_eq(st.maps_read, 1);
	ck_assert_uint_eq(st.entries, 1);
	ck_assert_uint_eq(st.skipped[PERFMAP_SKIP_SYMLINK], 1);
	ck_assert_uint_eq(told, 1);
	ck_assert_int_eq(perfmap_capture_write_counters(pc, s, 1), 0);
	end_stream(s);
	stream_entries(&m, out);
	snprintf(map, sizeof(map), "%d 1000 10 LSpin;::hotA|", (int)child);
	ck_assert_str_eq(out, map);
	free(m.data);
	perfmap_capture__free(pc);
}
END_TEST

static char last_told[256];

static void tell_keep(void *ctx, uint32_t pid, const char *text)
{
	(void)ctx;
	(void)pid;
	snprintf(last_told, sizeof(last_told), "%s", text);
}

/*
 * A process followed after its exit (a zombie: its status still there, its
 * root not): counted as gone in the second counter event, not told, and not
 * as "no plain tmp directory".
 */
START_TEST(test_capture_gone)
{
	struct perfmap_stats st;
	struct perfmap_capture *pc;
	struct mem_sink m;
	struct fxt_stream *s;
	struct fxt_reader *r;
	struct fxt_record rec;
	bool seen = false;
	char proc[32];
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (!child)
		_exit(0);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)child);
	/* a zombie until reaped */
	for (int i = 0; i < 200; i++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "%s/root", proc);
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			break;
		close(fd);
		usleep(5000);
	}
	pc = perfmap_capture__new(tell_keep, NULL);
	ck_assert_ptr_nonnull(pc);
	s = new_stream(&m);
	ck_assert_int_eq(perfmap_capture_follow(pc, child, proc), 0);
	ck_assert_int_eq(perfmap_capture_note(pc, child, 0x1004), 0);
	ck_assert_int_eq(perfmap_capture_finish(pc, s), 0);
	perfmap_capture_stats(pc, &st);
	ck_assert_uint_eq(st.skipped[PERFMAP_SKIP_GONE], 1);
	ck_assert_uint_eq(st.skipped[PERFMAP_SKIP_NO_TMP], 0);
	/* counted, not told: most such processes had no map */
	ck_assert_msg(!last_told[0], "told '%s'", last_told);
	ck_assert_int_eq(perfmap_capture_write_counters(pc, s, 1), 0);
	end_stream(s);
	r = open_sink(&m);
	while (fxt_reader_next(r, &rec) == 1) {
		if (rec.type != FXT_RT_EVENT || !rec.name || strcmp(rec.name, "perfmap_skipped"))
			continue;
		ck_assert_uint_eq(rec.nr_args, 2);
		ck_assert_str_eq(rec.args[0].name, "skipped_gone");
		ck_assert_uint_eq(rec.args[0].u, 1);
		seen = true;
	}
	fxt_reader__free(r);
	ck_assert(seen);
	waitpid(child, NULL, 0);
	free(m.data);
	perfmap_capture__free(pc);
}
END_TEST

/*
 * Host-wide, no pidfd: a followed process that exited is found by reap's
 * look at /proc, and its map read at the next call, not at the capture's
 * end (a script may remove the map meanwhile); one alive is left alone.
 */
START_TEST(test_capture_reap)
{
	struct perfmap_stats st;
	struct perfmap_capture *pc;
	struct mem_sink m;
	struct fxt_stream *s;
	char proc[32], map[64], out[4096], want[64];
	pid_t child, alive;

	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		pause();
		_exit(0);
	}
	alive = fork();
	ck_assert_int_ge(alive, 0);
	if (!alive) {
		pause();
		_exit(0);
	}
	pc = perfmap_capture__new(tell, NULL);
	ck_assert_ptr_nonnull(pc);
	s = new_stream(&m);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)child);
	ck_assert_int_eq(perfmap_capture_follow(pc, child, proc), 0);
	ck_assert_int_eq(perfmap_capture_note(pc, child, 0x1004), 0);
	snprintf(proc, sizeof(proc), "/proc/%d", (int)alive);
	ck_assert_int_eq(perfmap_capture_follow(pc, alive, proc), 0);
	ck_assert_int_eq(perfmap_capture_note(pc, alive, 0x1004), 0);
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)child);
	{
		FILE *f = fopen(map, "w");

		ck_assert_ptr_nonnull(f);
		fputs("1000 10 reaped\n", f);
		fclose(f);
	}
	ck_assert_int_eq(perfmap_capture_reap(pc, s, 16), 0);
	ck_assert(perfmap_capture_follows(pc, child));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* seen ended, then read */
	ck_assert_int_eq(perfmap_capture_reap(pc, s, 16), 0);
	ck_assert(perfmap_capture_follows(pc, child));
	ck_assert_int_eq(perfmap_capture_reap(pc, s, 16), 0);
	ck_assert(!perfmap_capture_follows(pc, child));
	ck_assert(perfmap_capture_follows(pc, alive));
	unlink(map);
	ck_assert_int_eq(fxt_stream_flush(s), 0);
	stream_entries(&m, out);
	snprintf(want, sizeof(want), "%d 1000 10 reaped|", (int)child);
	ck_assert_str_eq(out, want);
	perfmap_capture_stats(pc, &st);
	ck_assert_uint_eq(st.reaped, 1);
	ck_assert_uint_eq(st.maps_read, 1);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	end_stream(s);
	free(m.data);
	perfmap_capture__free(pc);
}
END_TEST

static Suite *perfmap_suite(void)
{
	Suite *s = suite_create("perfmap");
	TCase *tc = tcase_create("perfmap");

	tcase_add_test(tc, test_parse_lines);
	tcase_add_test(tc, test_pick);
	tcase_add_test(tc, test_pick_bounded);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_blob);
	tcase_add_test(tc, test_read_checks);
	tcase_add_test(tc, test_capture_flush);
	tcase_add_test(tc, test_capture_gone);
	tcase_add_test(tc, test_capture_reap);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(perfmap_suite)
