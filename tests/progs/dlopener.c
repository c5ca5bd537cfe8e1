// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs a while, then dlopens libspin.so (next to this program) and spins in
 * it: its mappings appear after the process was first seen. argv[1]: seconds
 * in the library (default 1); argv[2] "thread": all of it in a second thread
 * made at once, the main thread waiting, and the library opened only once
 * the file argv[3] exists (a mapping made by a thread that existed before a
 * -p session began).
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double seconds = 1;
static const char *go_path;

/* libspin.so's lib_outer, once opened; NULL on an error (said). */
static void (*open_library(void))(double)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	void (*outer)(double);
	void *lib;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libspin.so");
	/* Be seen before the library exists in this process. */
	usleep(300000);
	/* on the CPU meanwhile: sampled, so its maps are read before the library is in them */
	while (go_path && access(go_path, F_OK))
		;
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return NULL;
	}
	outer = (void (*)(double))dlsym(lib, "lib_outer");
	if (!outer)
		fprintf(stderr, "dlsym: %s\n", dlerror());
	return outer;
}

static void *spinner(void *arg)
{
	void (*outer)(double) = open_library();

	if (!outer)
		return arg;
	outer(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	void (*outer)(double);
	pthread_t t;
	void *err;

	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2 && !strcmp(argv[2], "thread")) {
		go_path = argc > 3 ? argv[3] : NULL;
		if (pthread_create(&t, NULL, spinner, argv) || pthread_join(t, &err))
			return 1;
		return err ? 1 : 0;
	}
	/* main;lib_outer;lib_spin, as check_live wants the stack */
	outer = open_library();
	if (!outer)
		return 1;
	outer(seconds);
	return 0;
}
