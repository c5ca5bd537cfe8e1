// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The CFI walker after a dlclose: dlopens libshape_a.so (next to this
 * program), runs it argv[1] seconds (default 1), dlcloses it, then dlopens
 * libshape_b.so, which the loader puts at the address the first had, and runs
 * it as long. Prints both load addresses ("a=ADDR b=ADDR").
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* lib (a name next to this program) opened and its run function called; its base. */
static void *run_library(const char *lib, const char *run, double seconds, void **ret_handle)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	unsigned long (*fn)(double);
	Dl_info info;
	void *h;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, lib);
	h = dlopen(path, RTLD_NOW);
	fn = h ? (unsigned long (*)(double))dlsym(h, run) : NULL;
	if (!fn || !dladdr((void *)fn, &info)) {
		fprintf(stderr, "reopen: %s: %s\n", lib, dlerror());
		exit(1);
	}
	fn(seconds);
	*ret_handle = h;
	return info.dli_fbase;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	void *h, *a, *b;

	a = run_library("libshape_a.so", "sa_run", seconds, &h);
	dlclose(h);
	b = run_library("libshape_b.so", "sb_run", seconds, &h);
	printf("a=%p b=%p\n", a, b);
	return 0;
}
