// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A parent that forks a child; the child spins in child_main -> child_work ->
 * child_leaf, the parent waits for it. argv[1]: seconds of child CPU (default 1).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void child_leaf(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void child_work(double seconds)
{
	child_leaf(seconds);
	sink++;
}

__attribute__((noinline)) void child_main(double seconds)
{
	child_work(seconds);
	sink++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_main(seconds);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
