// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Bench of the CFI table generator (issue 22, daemon/unwind/cfi_table.h):
 * for each module, its table's bytes, rows and FDEs, how many FDEs keep a
 * frame pointer, and the generation time (median and min of ROUNDS builds).
 * Rows as the walker reads them (issue 37, daemon/unwind/cfi_pages.h): bytes
 * of the 4-byte rows and page index ("bytes"; "bytes_8" is rows * 8, the
 * rows before), pages, the module's distinct rules and the time to encode.
 * One JSON object a line on stdout, and last {"rules_shared": N}: the rules
 * of all the modules together, each once (what the cfi_rules map holds).
 *
 *   cfigen [-r ROUNDS] FILE...   the named modules
 *   cfigen [-r ROUNDS] --host    every ELF file mapped executable by a
 *                                process of this host (/proc/PID/maps)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_file.h"
#include "unwind/cfi_pages.h"
#include "unwind/cfi_table.h"
#include "util/clock.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The size of the module's .text, 0 when it has none. */
static uint64_t text_size(const char *path)
{
	struct elf_file f;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	uint64_t size = 0;

	if (elf_file_open(path, &f, &ehdr))
		return 0;
	if (elf_find_section(f.elf, ".text", &shdr))
		size = shdr.sh_size;
	elf_file_close(&f);
	return size;
}

/* Every module's rules, each once (the cfi_rules map's content). */
static uint32_t shared_store[FXS_CFI_RULES_MAX];
static struct cfi_rules shared;

/*
 * t's rows encoded: their words (page index and rows), pages, the module's
 * own distinct rules, and the time of one encoding (with the rules new to
 * it). 0, or the error.
 */
static int compact(const struct cfi_table *t, uint64_t *words, struct cfi_pages *g,
		   uint32_t *rules, uint64_t *enc_ns)
{
	static uint32_t own_store[FXS_CFI_RULES_MAX];
	struct cfi_rules own;
	uint32_t *out;
	uint64_t t0;
	int err;

	*words = cfi_pages_words(t->rows, t->nrows, g);
	out = malloc((*words + 1) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	cfi_rules_init(&own, own_store, FXS_CFI_RULES_MAX);
	err = cfi_pages_encode(t->rows, t->nrows, &own, out, *words, NULL);
	*rules = own.n;
	cfi_rules_free(&own);
	t0 = mono_ns();
	if (!err)
		err = cfi_pages_encode(t->rows, t->nrows, &shared, out, *words, NULL);
	*enc_ns = mono_ns() - t0;
	free(out);
	return err;
}

static int one(const char *path, int rounds)
{
	uint64_t ns[64], words = 0, enc_ns = 0;
	struct cfi_table *t = NULL;
	struct cfi_pages g = {0};
	uint32_t rules = 0;
	int err = 0;

	for (int r = 0; r < rounds; r++) {
		uint64_t t0 = mono_ns();

		cfi_table_free(t);
		err = cfi_table_from_path(path, NULL, &t);
		ns[r] = mono_ns() - t0;
		if (err)
			break;
	}
	if (err) {
		printf("{\"path\": \"%s\", \"error\": \"%s\"}\n", path, cfi_table_strerror(err));
		return err;
	}
	qsort(ns, (size_t)rounds, sizeof(ns[0]), cmp_u64);
	err = compact(t, &words, &g, &rules, &enc_ns);
	if (err) {
		printf("{\"path\": \"%s\", \"error\": \"rules: %s\"}\n", path, strerror(-err));
		cfi_table_free(t);
		return err;
	}
	printf("{\"path\": \"%s\", \"fdes\": %u, \"fdes_fp\": %u, \"fdes_bad\": %u, "
	       "\"rows\": %u, \"rows_unmerged\": %u, \"bytes\": %llu, \"bytes_8\": %llu, "
	       "\"pages\": %u, \"rules\": %u, \"encode_ns\": %llu, \"text_bytes\": %llu, "
	       "\"rows_unsupported\": %u, \"rows_fp\": %u, \"rows_end\": %u, \"rows_plt\": %u, "
	       "\"rows_signal\": %u, \"debug_frame\": %s, \"gen_ns_median\": %llu, "
	       "\"gen_ns_min\": %llu, \"text_size\": %llu}\n",
	       path, t->stats.fdes, t->stats.fdes_fp, t->stats.fdes_bad, t->stats.rows,
	       t->stats.rows_unmerged, (unsigned long long)words * 4,
	       (unsigned long long)t->stats.bytes, g.nr_pages, rules, (unsigned long long)enc_ns,
	       (unsigned long long)t->stats.text_bytes, t->stats.rows_by_kind[FXS_CFI_UNSUPPORTED],
	       t->stats.rows_by_kind[FXS_CFI_FP], t->stats.rows_by_kind[FXS_CFI_END],
	       t->stats.rows_by_kind[FXS_CFI_PLT], t->stats.rows_by_kind[FXS_CFI_SIGNAL],
	       t->from_debug_frame ? "true" : "false", (unsigned long long)ns[rounds / 2],
	       (unsigned long long)ns[0], (unsigned long long)text_size(path));
	cfi_table_free(t);
	return 0;
}

/* Every file mapped with x by some process, sorted and unique, into *ret. */
static size_t host_modules(char ***ret)
{
	char **paths = NULL, line[4096], maps[300];
	size_t n = 0, cap = 0, u = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(maps, sizeof(maps), "/proc/%s/maps", de->d_name);
		f = fopen(maps, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char perms[8], *path = strchr(line, '/');

			if (!path || sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x')
				continue;
			path[strcspn(path, "\n")] = 0;
			if (strstr(path, " (deleted)"))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				paths = realloc(paths, cap * sizeof(*paths));
				if (!paths)
					exit(1);
			}
			paths[n] = strdup(path);
			if (!paths[n])
				exit(1);
			n++;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	if (!n) {
		*ret = paths;
		return 0;
	}
	qsort(paths, n, sizeof(*paths), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (u && !strcmp(paths[u - 1], paths[i])) {
			free(paths[i]);
			continue;
		}
		paths[u++] = paths[i];
	}
	*ret = paths;
	return u;
}

int main(int argc, char **argv)
{
	int rounds = 5, i = 1;

	cfi_rules_init(&shared, shared_store, FXS_CFI_RULES_MAX);

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		rounds = atoi(argv[2]);
		if (rounds < 1 || rounds > 64)
			rounds = 5;
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: cfigen [-r ROUNDS] FILE... | --host\n");
		return 2;
	}
	if (!strcmp(argv[i], "--host")) {
		char **paths;
		size_t n = host_modules(&paths);

		for (size_t k = 0; k < n; k++) {
			one(paths[k], rounds);
			free(paths[k]);
		}
		free(paths);
		printf("{\"rules_shared\": %u}\n", shared.n);
		return 0;
	}
	for (; i < argc; i++)
		one(argv[i], rounds);
	printf("{\"rules_shared\": %u}\n", shared.n);
	return 0;
}
