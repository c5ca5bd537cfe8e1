// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * make bench, section j: the cost of reading a perf map at a capture's end
 * (lang/perfmap_capture.h's perfmap_read_fd(), the checks, the reading and
 * the picking) for a map of -n lines (node's format, 200000 by default) and
 * -p sampled pcs in it, -r rounds. Prints one JSON line: the map's bytes, the
 * entries kept, the median and best time, and the peak memory it added.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lang/perfmap.h"
#include "lang/perfmap_capture.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* VmHWM of this process, in KiB. */
static long peak_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			v = atol(line + 6);
	if (f)
		fclose(f);
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned lines = 200000, npcs = 2000, rounds = 5;
	char path[] = "/tmp/perfmapgen.XXXXXX";
	uint32_t uids[4] = {getuid(), geteuid(), geteuid(), geteuid()};
	uint64_t *pcs, *ns, base = 0x7f0000000000ULL, bytes;
	size_t kept = 0;
	long before, after;
	int opt, fd;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:p:r:")) != -1) {
		if (opt == 'n')
			lines = (unsigned)atoi(optarg);
		else if (opt == 'p')
			npcs = (unsigned)atoi(optarg);
		else if (opt == 'r')
			rounds = (unsigned)atoi(optarg);
	}
	if (!lines || !npcs || !rounds || npcs > lines)
		return 2;
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return 1;
	/* node's lines: 0x80 bytes of code each, a name with a script's path */
	for (unsigned i = 0; i < lines; i++)
		fprintf(f, "%llx 80 JS:*fn%u /srv/app/node_modules/pkg/lib/module%u.js:%u:%u\n",
			(unsigned long long)(base + 0x80ULL * i), i, i % 997, i % 4000, i % 80);
	fflush(f);
	bytes = (uint64_t)ftell(f);
	fclose(f);
	pcs = calloc(npcs, sizeof(*pcs));
	ns = calloc(rounds, sizeof(*ns));
	if (!pcs || !ns)
		return 1;
	for (unsigned i = 0; i < npcs; i++)
		pcs[i] = base + 0x80ULL * ((uint64_t)i * lines / npcs) + 0x10;
	before = peak_kib();
	for (unsigned r = 0; r < rounds; r++) {
		struct perfmap_pick pick;
		const struct perfmap_kept *k;
		size_t i = 0;
		uint64_t t0;
		int pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), err;

		if (pfd < 0)
			return 1;
		t0 = now_ns();
		err = perfmap_read_fd(pfd, uids, 0, pcs, npcs, &pick);
		ns[r] = now_ns() - t0;
		close(pfd);
		if (err) {
			fprintf(stderr, "perfmapgen: read: %d\n", err);
			return 1;
		}
		for (kept = 0; perfmap_pick_get(&pick, &i, &k);)
			kept++;
		perfmap_pick_free(&pick);
	}
	after = peak_kib();
	unlink(path);
	qsort(ns, rounds, sizeof(*ns), cmp_u64);
	printf("{\"lines\": %u, \"bytes\": %llu, \"pcs\": %u, \"entries\": %zu, \"rounds\": %u, "
	       "\"read_ns_median\": %llu, \"read_ns_min\": %llu, \"peak_added_kib\": %ld}\n",
	       lines, (unsigned long long)bytes, npcs, kept, rounds,
	       (unsigned long long)ns[rounds / 2], (unsigned long long)ns[0], after - before);
	free(pcs);
	free(ns);
	return 0;
}
