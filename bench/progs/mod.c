// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One of the 40 modules of bench/progs/mods40.c (bench section v): built
 * once per IDX as libmIDX.so, -O2 -fomit-frame-pointer, so that only CFI
 * unwinds through it. mIDX calls m(IDX + 1) in the next module; the last one
 * spins. A sample in the spin thus has a stack through all 40 modules.
 */
#define PASTE2(a, b) a##b
#define PASTE(a, b)  PASTE2(a, b)

static volatile unsigned long sink;

#if IDX < MODS_LAST
int PASTE(m, NEXT)(unsigned long n);
#endif

__attribute__((noinline)) int PASTE(m, IDX)(unsigned long n)
{
#if IDX < MODS_LAST
	int r = PASTE(m, NEXT)(n);

	sink++;
	return r + 1;
#else
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	return 0;
#endif
}
