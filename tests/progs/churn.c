// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many short-lived processes and threads: argv[1] rounds (default 4), each
 * forking argv[2] children (default 250) and starting as many threads, every
 * one of which spins in churn_work() for about a millisecond of CPU and
 * exits. At most 16 of each run at once. Exits 0 when all were reaped.
 *
 * With argv[3], a log file: each child execs churn anew (so that ASLR gives
 * it a layout of its own) and every process appends a line "P pid start-end
 * ..." of its executable mappings as /proc/self/maps shows them (a child
 * twice: as forked and as execed), every thread a line "T tid pid", while
 * they live: what a test checks the capture's records against.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AT_ONCE 16

static volatile unsigned long sink;
static const char *log_path;
static int log_fd = -1;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void churn_work(void)
{
	double end = cpu_now() + 0.001;

	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

/* One line in one write: O_APPEND keeps the lines of all processes whole. */
static void log_line(const char *line, size_t len)
{
	if (log_fd >= 0 && write(log_fd, line, len) != (ssize_t)len)
		_exit(3);
}

/* "P pid" and the mappings a profiler records: executable, of a file or the vdso. */
static void log_maps(void)
{
	char line[16384], map[512], perms[8], path[400];
	unsigned long start, end;
	size_t len;
	FILE *f;

	if (log_fd < 0)
		return;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		_exit(3);
	len = snprintf(line, sizeof(line), "P %d", (int)getpid());
	while (fgets(map, sizeof(map), f)) {
		path[0] = '\0';
		if (sscanf(map, "%lx-%lx %7s %*s %*s %*s %399s", &start, &end, perms, path) < 3)
			continue;
		if (perms[2] != 'x' || (path[0] != '/' && strcmp(path, "[vdso]")) ||
		    len + 64 > sizeof(line))
			continue;
		len += snprintf(line + len, sizeof(line) - len, " %lx-%lx", start, end);
	}
	fclose(f);
	line[len++] = '\n';
	log_line(line, len);
}

static void *thread_main(void *arg)
{
	char line[64];

	if (log_fd >= 0)
		log_line(line, snprintf(line, sizeof(line), "T %ld %d\n", (long)syscall(SYS_gettid),
					(int)getpid()));
	churn_work();
	return arg;
}

static int run_processes(int n)
{
	int running = 0, status;

	for (int i = 0; i < n; i++) {
		pid_t pid;

		if (running == AT_ONCE) {
			if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
				return -1;
			running--;
		}
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (log_path) {
				log_maps();
				execl("/proc/self/exe", "churn", "--child", log_path, (char *)NULL);
				_exit(3);
			}
			churn_work();
			_exit(0);
		}
		running++;
	}
	while (running--)
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return -1;
	return 0;
}

static int run_threads(int n)
{
	pthread_t t[AT_ONCE];

	for (int i = 0; i < n; i += AT_ONCE) {
		int k, batch = n - i < AT_ONCE ? n - i : AT_ONCE;

		for (k = 0; k < batch; k++)
			if (pthread_create(&t[k], NULL, thread_main, NULL))
				return -1;
		for (k = 0; k < batch; k++)
			pthread_join(t[k], NULL);
	}
	return 0;
}

static int open_log(const char *path, int flags)
{
	log_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | flags, 0644);
	if (log_fd < 0) {
		perror(path);
		return -1;
	}
	log_maps();
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 4;
	int n = argc > 2 ? atoi(argv[2]) : 250;

	if (argc == 3 && !strcmp(argv[1], "--child")) {
		if (open_log(argv[2], 0))
			return 1;
		churn_work();
		return 0;
	}
	if (argc > 3) {
		log_path = argv[3];
		if (open_log(log_path, O_CREAT | O_TRUNC))
			return 1;
	}

	for (int r = 0; r < rounds; r++) {
		if (run_processes(n) || run_threads(n)) {
			fprintf(stderr, "churn: round %d failed\n", r);
			return 1;
		}
	}
	return 0;
}
