// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A syscall-heavy bench target (section o): what a hook on every syscall's
 * exit would cost each one.
 *
 *   syscalls ITERS     ITERS getppid() system calls; prints the ns each took
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned long long t0;

	if (!iters)
		return 1;
	t0 = now_ns();
	/* the raw call: libc's getppid() is one too, but says so less plainly */
	for (unsigned long i = 0; i < iters; i++)
		syscall(SYS_getppid);
	printf("%.2f\n", (double)(now_ns() - t0) / iters);
	return 0;
}
