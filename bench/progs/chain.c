// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A bench target whose stack is a known depth: main -> link x (DEPTH - 3) ->
 * spin, so a frame-pointer walk from spin sees DEPTH frames (spin's pc, the
 * links' and main's return addresses, and main's return into libc).
 *
 *   chain DEPTH [SECONDS]     spin for SECONDS of wall time (default 5)
 *   chain DEPTH -w ITERS      do a fixed amount of work, then print the
 *                             wall time it took in ns on stdout
 *
 * When FXS_BENCH_MARK is set, the CLOCK_BOOTTIME ns at entry to main are
 * written to that file (the bench's start marker). When FXS_BENCH_OUT is set,
 * "WALL_NS CPU_NS" (the work's wall time, the process's user + sys time) is
 * written there at the end: stdout may be shared with a profiler's output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds = 5;
static unsigned long iters;

static unsigned long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__attribute__((noinline)) void spin(void)
{
	if (iters) {
		for (unsigned long i = 0; i < iters; i++)
			sink += i;
		return;
	}
	unsigned long long end = now_ns(CLOCK_MONOTONIC) + (unsigned long long)(seconds * 1e9);

	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void link(int d)
{
	if (d > 0)
		link(d - 1);
	else
		spin();
	sink++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 32;
	const char *mark = getenv("FXS_BENCH_MARK"), *out = getenv("FXS_BENCH_OUT");
	unsigned long long t0, wall;
	struct rusage ru;

	if (mark) {
		FILE *f = fopen(mark, "we");

		if (f) {
			fprintf(f, "%llu\n", now_ns(CLOCK_BOOTTIME));
			fclose(f);
		}
	}
	if (argc > 3 && !strcmp(argv[2], "-w"))
		iters = strtoul(argv[3], NULL, 0);
	else if (argc > 2)
		seconds = atof(argv[2]);
	if (depth < 3)
		depth = 3;
	t0 = now_ns(CLOCK_MONOTONIC);
	link(depth - 4);
	wall = now_ns(CLOCK_MONOTONIC) - t0;
	if (iters && !out)
		printf("%llu\n", wall);
	if (out && !getrusage(RUSAGE_SELF, &ru)) {
		FILE *f = fopen(out, "we");

		if (f) {
			fprintf(f, "%llu %llu\n", wall,
				(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
					(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL);
			fclose(f);
		}
	}
	return 0;
}
