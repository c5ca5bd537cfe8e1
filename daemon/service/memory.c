// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The daemon's heap against its ceiling (memory.h). */
#include <malloc.h>

#include "service/memory.h"

/* Free heap past which mem_trim() returns it to the kernel. */
#define MEM_TRIM_FREE (8ULL << 20)

uint64_t mem_heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

void mem_trim(void)
{
	struct mallinfo2 mi = mallinfo2();

	if (mi.fordblks > MEM_TRIM_FREE)
		malloc_trim(0);
}
