// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Threads that live about 5 ms each, one after another, each named
 * "short-N" by itself as it starts: each must still carry its name in the
 * capture. argv[1]: how many (default 40).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void short_spin(void)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + 0.005;
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

static void *run(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "short-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	short_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 40;

	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, run, (void *)i))
			return 1;
		pthread_join(t, NULL);
	}
	return 0;
}
