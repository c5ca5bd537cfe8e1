// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writes an .fxt of a profile of itself whose every sample is known, for the
 * browser and npm tests (they need no root): the module and mmap records of
 * its own mappings as a capture writes them (modules_scan_dir() on its own pid),
 * its process with a command line, two named threads, the capture's clock
 * record, and backtraces through its own functions:
 *
 *   main thread (tid = pid, "gen-main"):  30 samples 1 ms apart, sample i
 *     main;fxs_gen_mid;fxs_gen_leaf_b when i is even, else ..;fxs_gen_leaf_a
 *   worker (tid = pid + 1000000, "gen-worker"): 20 samples 1 ms apart, half
 *     a ms later, leaf_a when i is even, else leaf_b; written first
 *
 * Neighbouring samples of a thread differ, so a timeline shows each apart.
 *
 * usage: gen_profile OUT.fxt; prints "key=value" lines of what to expect.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_symbols.h"
#include "fxt/fxt.h"
#include "capture/modules.h"

#define MS	     1000000ULL
#define T0	     (1000 * 1000 * MS) /* 1000 s of boot time */
#define REALTIME0    1700000000000000000ULL
#define MAIN_SAMPLES 30
#define WORK_SAMPLES 20

static volatile int sink;

/* Global, so that their names are in .symtab and .dynsym alike. */
void fxs_gen_leaf_a(void);
void fxs_gen_leaf_b(void);
void fxs_gen_mid(int x);

__attribute__((noinline)) void fxs_gen_leaf_a(void)
{
	sink += 1;
	sink *= 3;
}

__attribute__((noinline)) void fxs_gen_leaf_b(void)
{
	sink -= 1;
	sink *= 5;
}

__attribute__((noinline)) void fxs_gen_mid(int x)
{
	if (x)
		fxs_gen_leaf_a();
	else
		fxs_gen_leaf_b();
	sink++;
}

static int file_sink(void *ctx, const void *data, size_t len)
{
	return fwrite(data, 1, len, ctx) == len ? 0 : -EIO;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_profile: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

int main(int argc, char **argv)
{
	static const char *const clock_names[] = {"start_boottime_ns", "start_realtime_ns",
						  "stop_boottime_ns"};
	const uint64_t clock_values[] = {T0 - 5 * MS, REALTIME0, T0 + 40 * MS};
	uint64_t pid = (uint64_t)getpid(), worker = pid + 1000000;
	/* Frame 0 is where the thread was; the others are return addresses. */
	uint64_t a[3] = {(uintptr_t)fxs_gen_leaf_a + 1, (uintptr_t)fxs_gen_mid + 2,
			 (uintptr_t)main + 2};
	uint64_t b[3] = {(uintptr_t)fxs_gen_leaf_b + 1, (uintptr_t)fxs_gen_mid + 2,
			 (uintptr_t)main + 2};
	const struct elf_symbols_opts no_debug = {.no_debug_file = true};
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	struct elf_symbols *self;
	struct fxt_stream *s;
	struct modules *m;
	const uint8_t *id;
	size_t id_len = 0;
	int err, i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_profile OUT.fxt\n");
		return 2;
	}
	f = fopen(argv[1], "we");
	if (!f)
		die(argv[1], errno);
	s = fxt_stream__new(file_sink, f, "fxsampler", 1000000000ULL);
	m = modules__new(NULL);
	if (!s || !m)
		die("setup", errno);
	err = fxt_stream_process_cmdline(s, pid, "gen_profile", "gen_profile --fixture 1");
	if (!err)
		err = fxt_stream_thread(s, pid, pid, "gen-main");
	if (!err)
		err = fxt_stream_thread(s, pid, worker, "gen-worker");
	if (!err)
		err = modules_scan_dir(m, s, T0, (pid_t)pid, NULL) < 0 ? -EIO : 0;
	for (i = 0; !err && i < WORK_SAMPLES; i++)
		err = fxt_stream_backtrace(s, T0 + (uint64_t)i * MS + MS / 2, pid, worker, 0,
					   i % 2 ? b : a, 3);
	for (i = 0; !err && i < MAIN_SAMPLES; i++)
		err = fxt_stream_backtrace(s, T0 + (uint64_t)i * MS, pid, pid, 0, i % 2 ? a : b, 3);
	if (!err)
		err = fxt_stream_instant(s, T0 + 40 * MS, 0, 0, "fxsampler", FXT_CLOCK_EVENT,
					 clock_names, clock_values, 3);
	if (!err)
		err = fxt_stream_flush(s);
	if (err)
		die("writing", err);
	fxt_stream__free(s);
	modules__free(m);
	if (fclose(f))
		die(argv[1], errno);

	/* Our build id, as modules.c read it for the module record. */
	self = elf_symbols__open("/proc/self/exe", &no_debug);
	id = self ? elf_symbols__build_id(self, &id_len) : NULL;
	printf("pid=%llu\nworker=%llu\nmain_samples=%d\nworker_samples=%d\n",
	       (unsigned long long)pid, (unsigned long long)worker, MAIN_SAMPLES, WORK_SAMPLES);
	printf("period_ns=%llu\ntime_nanos=%llu\nduration_nanos=%llu\n", MS, REALTIME0, 45 * MS);
	printf("build_id=%s\n", id ? elf_build_id_hex(id, id_len, hex, sizeof(hex)) : "");
	elf_symbols__free(self);
	return 0;
}
