// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many short processes and threads of three kinds, each kind with one known
 * chain, as a busy host or a server with a pool shows them:
 *   NPROC child processes, forked and named "alpha" or "beta" by turns:
 *     main -> child_main -> alpha_work -> alpha_leaf  (or beta_work -> beta_leaf)
 *   NTHREAD short threads of this process, named "gamma":
 *     start_thread -> gamma_thread -> gamma_work -> gamma_leaf
 * Each spins SPIN_MS of CPU in its leaf, at most two at a time (one child and
 * one thread), so the machine's two CPUs are shared evenly.
 *
 * usage: kinds [NPROC [NTHREAD [SPIN_MS [SETTLE_MS]]]]   (200, 100, 8, 0)
 *
 * SETTLE_MS: sleep first, off the CPU. The CFI walker has a new image's
 * tables only once the reader has read its mapping records (a few tens of
 * ms after the exec): until then its stacks go by frame pointers, marked,
 * the documented rule for the first samples, and on Debian's libc those
 * stacks have another shape. Children forked later walk by the parent's
 * tables from their first sample; the tests that count one shape per chain
 * let the exec's own window pass first.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double spin_ms = 8;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Leaves spin in blocks of plain arithmetic and look at the clock seldom. */
static volatile unsigned long sink;

/*
 * A call at the end keeps the leaf's frame: Debian's x86-64 GCC omits the
 * frame pointer of a function that calls nothing, and its caller would be
 * lost from every sample in it (the CFI walker's work, not this test's).
 */
__attribute__((noinline)) static void leaf_done(void)
{
	sink++;
}

#define LEAF(name)                                                                                 \
	__attribute__((noinline)) static void name(void)                                           \
	{                                                                                          \
		for (unsigned long i = 0; i < 200000; i++)                                         \
			sink += i * 7;                                                             \
		leaf_done();                                                                       \
	}
LEAF(alpha_leaf)
LEAF(beta_leaf)
LEAF(gamma_leaf)

#define WORK(name, leaf)                                                                           \
	__attribute__((noinline)) static void name(void)                                           \
	{                                                                                          \
		double end = cpu_ms() + spin_ms;                                                   \
		while (cpu_ms() < end)                                                             \
			leaf();                                                                    \
	}
WORK(alpha_work, alpha_leaf)
WORK(beta_work, beta_leaf)
WORK(gamma_work, gamma_leaf)

__attribute__((noinline)) static void child_main(int kind)
{
	prctl(PR_SET_NAME, kind ? "beta" : "alpha");
	if (kind)
		beta_work();
	else
		alpha_work();
}

__attribute__((noinline)) static void *gamma_thread(void *arg)
{
	(void)arg;
	/* Named by itself before it spins: no sample of its chain under another name. */
	prctl(PR_SET_NAME, "gamma");
	gamma_work();
	return NULL;
}

int main(int argc, char **argv)
{
	int nproc = argc > 1 ? atoi(argv[1]) : 200, nthread = argc > 2 ? atoi(argv[2]) : 100;
	int p = 0, t = 0;

	if (argc > 3)
		spin_ms = atof(argv[3]);
	if (argc > 4 && atoi(argv[4]) > 0)
		usleep((useconds_t)atoi(argv[4]) * 1000);
	/* One child and one thread at a time, until both kinds are done. */
	while (p < nproc || t < nthread) {
		pid_t pid = -1;
		pthread_t th;
		int started = 0;

		if (p < nproc) {
			pid = fork();
			if (pid == 0) {
				child_main(p % 2);
				_exit(0);
			}
			if (pid < 0) {
				perror("kinds: fork");
				return 1;
			}
			p++;
		}
		if (t < nthread) {
			if (pthread_create(&th, NULL, gamma_thread, NULL)) {
				fprintf(stderr, "kinds: pthread_create failed\n");
				return 1;
			}
			started = 1;
			t++;
		}
		if (started)
			pthread_join(th, NULL);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}
