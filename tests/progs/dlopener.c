// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs a while, then dlopens libspin.so (next to this program) and spins in
 * it: its mappings appear after the process was first seen. argv[1]: seconds
 * in the library (default 1).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	void (*outer)(double);
	void *lib;

	if (n <= 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libspin.so");
	/* Be seen before the library exists in this process. */
	usleep(300000);
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	outer = (void (*)(double))dlsym(lib, "lib_outer");
	if (!outer)
		return 1;
	outer(seconds);
	return 0;
}
