// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tests of the CFI walker in a new image's first milliseconds (issue
 * 37): a shell script running 200 short processes of a program built
 * without frame pointers. Each lives ~20 ms, about as long as the window
 * before user space has read its mappings and published its ranges; its
 * modules' tables (the program's, libc's, ld.so's) are made by then, once
 * for all, and the walker finds them by the file the kernel maps at each pc
 * (bpf/vma.bpf.h). Before, every process's first milliseconds went by frame
 * pointers, marked, and lost their stack.
 */
#include <check.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live.h"

static void setup(void)
{
	live_make_dir("/tmp/fxs-live-cfiexec-XXXXXX");
}

static void teardown(void)
{
	live_remove_dir();
}

/* The mapping holding frame i of s, as the mmap records before s say. */
static const struct mapping *mapping_of(const struct capture_file *f, const struct sample *s,
					unsigned i)
{
	uint64_t pc = s->frames[i];

	for (size_t m = f->nr_maps; m-- > 0;) {
		const struct mapping *map = &f->maps[m];

		if (map->seq <= s->seq && map->pid == s->pid && pc >= map->start &&
		    pc < map->start + map->size)
			return map;
	}
	return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* The ELF entry point of the file at path (0: unreadable). */
static uint64_t entry_of(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok = fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
		  !memcmp(eh.e_ident, ELFMAG, SELFMAG);

	if (fd >= 0)
		close(fd);
	return ok ? eh.e_entry : 0;
}

/*
 * Whether frame i of s is in ld.so's entry code, _start and _dl_start_user
 * (glibc's RTLD_START, 61 bytes on x86-64): the outermost frame while ld.so
 * runs first, before it jumps to the program's _start.
 */
static bool at_ldso_entry(const struct capture_file *f, const struct sample *s, unsigned i)
{
	static uint64_t entry;
	const struct mapping *map = mapping_of(f, s, i);
	uint64_t vaddr;

	if (!map || !strstr(f->modules[map->module], "/ld-linux"))
		return false;
	if (!entry)
		entry = entry_of(f->modules[map->module]);
	vaddr = s->frames[i] - (i ? 1 : 0) - map->start + map->vaddr;
	return entry && vaddr >= entry && vaddr < entry + 64;
}

struct short_lives {
	size_t samples, whole, marked, truncated, before_exec, in_exec, pids;
};

/*
 * The samples of the processes named nofp: whole when unmarked, uncut, and
 * their outermost frame is the program's _start, or the dynamic loader's
 * entry (ld.so runs first from its own _start, which its CFI, or the table
 * made for its entry, ends the stack at). A process's samples before its
 * exec (the shell's fork, in the shell's code) are not the program's; nor
 * those in the execve system call itself (the kernel making the new image,
 * with the registers of the shell's libc that called it: the shell's stack
 * is gone with its address space, and no walker reads it).
 */
static void count_short_lives(const struct capture_file *f, struct short_lives *c)
{
	uint32_t last_pid = 0;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < f->nr_samples; i++) {
		const struct sample *s = &f->samples[i];
		const char *name = process_name(f, s->pid), *mod, *fn;
		const struct mapping *map;

		if (!name || strcmp(name, "nofp") || !s->n)
			continue;
		map = mapping_of(f, s, s->n - 1);
		mod = map ? f->modules[map->module] : NULL;
		if (mod && !ends_with(mod, "/nofp") && !strstr(mod, "/ld-linux") &&
		    !strstr(mod, "/libc.so")) {
			c->before_exec++;
			continue;
		}
		if (leaf_is(f, s, "execve")) {
			c->in_exec++;
			continue;
		}
		c->samples++;
		c->pids += s->pid != last_pid;
		last_pid = s->pid;
		if (s->flags & FXT_BT_FLAG_FP_FALLBACK) {
			c->marked++;
			continue;
		}
		if (s->flags & FXT_BT_FLAG_TRUNCATED) {
			c->truncated++;
			continue;
		}
		fn = symbolize(f, s, s->n - 1);
		c->whole += at_ldso_entry(f, s, s->n - 1) || (fn && !strcmp(fn, "_start"));
	}
}

/* The unwind counter's by_file (0 from a build without it: the figure of before). */
static uint64_t by_file(const struct capture_file *f)
{
	const struct counter *c = counter(f, "unwind");

	for (unsigned k = 0; c && k < c->nr; k++)
		if (!strcmp(c->arg_names[k], "by_file"))
			return c->values[k];
	return 0;
}

START_TEST(test_short_processes_whole)
{
	const char *path = out_path("short.fxt");
	char script[512];
	struct capture_file *f;
	struct short_lives c;
	struct run r;

	snprintf(script, sizeof(script),
		 "i=0; while [ $i -lt 200 ]; do %s 0.02 || exit 1; i=$((i + 1)); done",
		 prog("nofp"));
	RUN(&r, "record", "-o", path, "--", "/bin/sh", "-c", script);
	ck_assert_msg(exit_code(&r) == 0, "record failed: %s", r.err);
	f = load(path);
	ck_assert_msg(f->read_result == 0, "reader: %s", f->error);
	count_short_lives(f, &c);
	printf("200 short processes: %zu of %zu samples whole (%.1f %%), %zu marked (by frame "
	       "pointers), %zu truncated; %zu before their exec and %zu in execve left out "
	       "(with those in execve: %.1f %%); %llu walks found a module by its file\n",
	       c.whole, c.samples, c.samples ? 100.0 * c.whole / c.samples : 0.0, c.marked,
	       c.truncated, c.before_exec, c.in_exec,
	       c.samples ? 100.0 * c.whole / (c.samples + c.in_exec) : 0.0,
	       (unsigned long long)by_file(f));
	fflush(stdout);
	ck_assert_msg(c.samples > 1500, "only %zu samples of the 200 processes", c.samples);
	ck_assert_msg(c.pids >= 150, "only %zu of 200 processes sampled", c.pids);
	/*
	 * Issue 37 asks 95 %. Here (2026-12-05, at a load of 6 on 2 cores)
	 * 99.3 % and 99.4 % of 4,686 and 4,630, 18-23 marked; 94.6 % and
	 * 95.6 % with the 187-233 samples in execve counted as not whole.
	 * Before ld.so's entry ended the stack 86.2 % (473 marked: every stack
	 * of ld.so's first milliseconds reached its _start, which had no row),
	 * before the walk by file 80.9 %.
	 */
	ck_assert_msg(c.whole * 100 >= c.samples * 95,
		      "%zu of %zu samples of the short processes whole (%zu marked)", c.whole,
		      c.samples, c.marked);
	/* the module found by its file is counted, and named in the summary */
	ck_assert_uint_gt(by_file(f), 0);
	ck_assert_msg(strstr(r.err, "found a module by its file"), "summary: %s", r.err);
	check_accounting(f);
	unload(f);
}
END_TEST

static Suite *cfi_exec_suite(void)
{
	Suite *s = suite_create("cfi_exec");
	TCase *tc = tcase_create("short_lives");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_short_processes_whole);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return live_main(cfi_exec_suite());
}
