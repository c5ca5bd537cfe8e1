// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A flood of mapping events (issue 40): maps argv[1] (default 200000) small
 * executable regions of its own executable, one page each at offsets that
 * never let two merge, and unmaps every second one at once; the regions it
 * keeps are unmapped in batches so that the live ones stay under the
 * kernel's vm.max_map_count (65530 by default). Each mmap is one mapping
 * event for a profiler, as a JIT or a loader that churns makes them. Then it
 * spins for argv[2] seconds (default 0) and exits 0; 1 if a mapping failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEEP_AT_MOST 20000

static volatile unsigned long sink;

__attribute__((noinline)) static void spin(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	double seconds = argc > 2 ? atof(argv[2]) : 0;
	long page = sysconf(_SC_PAGESIZE);
	static void *kept[KEEP_AT_MOST];
	unsigned long nr_kept = 0, pages;
	struct stat st;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || st.st_size < 2 * page)
		return 1;
	/* every other page: two regions next to each other never share a VMA */
	pages = (unsigned long)st.st_size / page;
	for (unsigned long i = 0; i < n; i++) {
		off_t off = (off_t)((i * 2) % pages) * page;
		void *p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);

		if (p == MAP_FAILED)
			return 1;
		if (i % 2) {
			munmap(p, page);
			continue;
		}
		if (nr_kept == KEEP_AT_MOST)
			for (; nr_kept; nr_kept--)
				munmap(kept[nr_kept - 1], page);
		kept[nr_kept++] = p;
	}
	spin(seconds);
	return 0;
}
