// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A process mapping thousands of distinct files (issue 40): copies SRC (a
 * small library without a build id, progs/libnoid.so) N times into DIR and
 * maps each copy executable, spinning a little between, so that every copy
 * is a module of its own and is sampled while it maps. Then spins a second
 * more and, if given, creates DONE.
 *
 *   manyfiles SRC DIR N [DONE]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void work(long loops)
{
	for (long i = 0; i < loops; i++)
		sink += i;
}

static int copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		n = -1;
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 2500;
	char path[4096];
	struct stat st;
	time_t end;

	if (argc < 4) {
		fprintf(stderr, "usage: manyfiles SRC DIR N [DONE]\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/copy%ld.so", argv[2], i);
		if (copy(argv[1], path) || (fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) ||
		    mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
			    MAP_FAILED) {
			perror(path);
			return 1;
		}
		close(fd);
		work(20000);
	}
	end = time(NULL) + 1;
	while (time(NULL) <= end)
		work(100000);
	if (argc > 4) {
		int fd = open(argv[4], O_WRONLY | O_CREAT, 0644);

		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}
