// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What a privileged program looks like to the security tests: check_security
 * installs a copy set-user-ID root, and another with file capabilities, and
 * has a user's target exec it. It spins in secret_root_work for argv[1]
 * seconds of CPU time (default 1), sleeping 200 us every few ms so that an
 * off-CPU capture sees it wait there too: none of that may reach the user's
 * capture. With argv[2], a library's path (libspin.so), it spins half the
 * time in secret_root_work, then dlopens the library and spins the other
 * half in its lib_outer: a mapping made well after the exec.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void secret_root_work(double seconds)
{
	double end = cpu_now() + seconds;

	while (cpu_now() < end) {
		for (int i = 0; i < 100000; i++)
			sink += i;
		usleep(200);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	void (*outer)(double);
	void *lib;

	if (argc < 3) {
		secret_root_work(seconds);
		return 0;
	}
	secret_root_work(seconds / 2);
	lib = dlopen(argv[2], RTLD_NOW);
	outer = lib ? (void (*)(double))dlsym(lib, "lib_outer") : NULL;
	if (!outer) {
		fprintf(stderr, "suidspin: %s\n", dlerror());
		return 1;
	}
	outer(seconds / 2);
	return 0;
}
