// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hostile exec loop (issue 40): execs itself N times through
 * /proc/self/exe, one pid, N images, spinning about 200 us in each so that
 * some are sampled; then, if given, creates DONE (the moment it ends, for
 * the test's clock) and exits.
 *
 *   execloop N [DONE]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
	char next[32];
	long n;

	if (argc < 2) {
		fprintf(stderr, "usage: execloop N [DONE]\n");
		return 2;
	}
	n = atol(argv[1]);
	spin_us(50);
	if (n > 0) {
		snprintf(next, sizeof(next), "%ld", n - 1);
		execl("/proc/self/exe", "execloop", next, argc > 2 ? argv[2] : (char *)NULL,
		      (char *)NULL);
		perror("execl /proc/self/exe");
		return 1;
	}
	if (argc > 2)
		close(open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return 0;
}
