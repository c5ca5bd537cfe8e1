// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hostile mapper (issue 40): maps N one-page executable regions of its
 * own file, apart (every other page offset, so that the kernel cannot merge
 * neighbours), unmapping every other one at once and the oldest kept ones
 * past KEEP (vm.max_map_count is 65530), spinning a little between, so that
 * it is sampled while it maps. Then, if given, creates DONE and exits.
 *
 *   manymaps N [KEEP [DONE]]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(void)
{
	for (int i = 0; i < 2000; i++)
		sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, keep = argc > 2 ? atol(argv[2]) : 30000;
	long page = sysconf(_SC_PAGESIZE), kept = 0, oldest = 0;
	void **ring;
	int fd;

	if (argc < 2 || keep < 1) {
		fprintf(stderr, "usage: manymaps N [KEEP [DONE]]\n");
		return 2;
	}
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ring = calloc((size_t)keep, sizeof(*ring));
	if (fd < 0 || !ring) {
		perror("manymaps");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
			       (off_t)(i % 2) * page);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		work();
		if (i % 2) {
			munmap(p, (size_t)page);
			continue;
		}
		if (kept == keep) {
			munmap(ring[oldest], (size_t)page);
			ring[oldest] = p;
			oldest = (oldest + 1) % keep;
			continue;
		}
		ring[kept++] = p;
	}
	if (argc > 3)
		close(open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return 0;
}
