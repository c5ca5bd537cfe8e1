// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program that looks like CPython 3.11 to record --python but is not
 * (check_python's safety test): it exports _PyRuntime, Py_Version (3.11.2)
 * and PyCode_Type (tp_basicsize 184, the table's), so the walk is loaded for
 * it, and spins in fake_spin for SECONDS with its "interpreter" as MODE says:
 *   garbage  _PyRuntime is random bytes: no thread state is found;
 *   loop     a thread list that names this thread, whose frame chain is one
 *            frame pointing at itself, its "code object" random bytes whose
 *            qualname and filename fields lead to well-formed str objects
 *            ("wrong_name", "wrong_file.py"): the walk is cut at its bound,
 *            and no frame may be named after them;
 *   race     loop's chain, rewritten all the time by a second thread
 *            (pointers to random places, to NULL, back): memory changing
 *            under the walk.
 * Built with -rdynamic (Makefile) so the symbols are in .dynsym.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The symbols python_elf.c looks for. */
unsigned char _PyRuntime[4096] __attribute__((aligned(64)));
const uint32_t Py_Version = 0x030b02f0;
/* PyTypeObject: ob_refcnt, ob_type, ob_size, tp_name, tp_basicsize (184 in 3.11). */
const uint64_t PyCode_Type[52] = {1, 0, 0, 0, 184};

static uint64_t interp[64], tstate[32], cframe[4], frame[16], code[32];
static uint64_t qualname[16], filename[16];
static volatile int stop;

static uint64_t rnd(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

/* A compact ASCII str of 3.11 (PyASCIIObject, then its characters). */
static void fake_str(uint64_t *o, const char *text)
{
	memset(o, 0, 16 * sizeof(*o));
	o[0] = 1;
	o[1] = rnd();			  /* ob_type: not PyUnicode_Type either */
	o[2] = strlen(text);		  /* length */
	o[4] = 0x04 | 0x20 | 0x40 | 0x80; /* kind 1, compact, ascii, ready */
	memcpy(&o[6], text, strlen(text));
}

static void build_loop(void)
{
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++)
		code[i] = rnd();
	fake_str(qualname, "wrong_name");
	fake_str(filename, "wrong_file.py");
	code[112 / 8] = (uint64_t)(uintptr_t)filename;
	code[128 / 8] = (uint64_t)(uintptr_t)qualname;
	code[136 / 8] = 0; /* no line table */
	memcpy(_PyRuntime + 40, &(uint64_t){(uintptr_t)interp}, 8);
	interp[16 / 8] = (uint64_t)(uintptr_t)tstate;
	tstate[8 / 8] = 0;
	tstate[56 / 8] = (uint64_t)(uintptr_t)cframe;
	tstate[160 / 8] = (uint64_t)syscall(SYS_gettid);
	cframe[8 / 8] = (uint64_t)(uintptr_t)frame;
	frame[32 / 8] = (uint64_t)(uintptr_t)code;
	frame[48 / 8] = (uint64_t)(uintptr_t)frame; /* previous: itself */
	frame[56 / 8] = (uint64_t)(uintptr_t)code + 200;
}

static void *racer(void *arg)
{
	volatile uint64_t *f = frame, *c = cframe;

	(void)arg;
	while (!stop) {
		uint64_t r = rnd();

		f[48 / 8] = r & 1 ? (uint64_t)(uintptr_t)frame : r & 2 ? 0 : r;
		f[32 / 8] = r & 4 ? (uint64_t)(uintptr_t)code : r >> 8;
		c[8 / 8] = r & 8 ? (uint64_t)(uintptr_t)frame : r >> 16;
		code[72 / 8] = rnd(); /* the walk's check */
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long fake_spin(double seconds)
{
	double end = now() + seconds;
	volatile unsigned long n = 0;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			n++;
	return n;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	pthread_t t;
	int racing = 0;

	srandom((unsigned)getpid());
	if (!strcmp(mode, "garbage")) {
		for (size_t i = 0; i < sizeof(_PyRuntime); i += 8)
			memcpy(_PyRuntime + i, &(uint64_t){rnd()}, 8);
	} else if (!strcmp(mode, "loop") || !strcmp(mode, "race")) {
		build_loop();
		racing = !strcmp(mode, "race");
		if (racing && pthread_create(&t, NULL, racer, NULL))
			return 1;
	} else {
		fprintf(stderr, "usage: fakepy garbage|loop|race [SECONDS]\n");
		return 2;
	}
	fake_spin(seconds);
	stop = 1;
	if (racing)
		pthread_join(t, NULL);
	return 0;
}
