// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Runs every module once over a fixed buffer: the build links and runs. */
#include <stdio.h>

#include "minibuild.h"

int main(void)
{
	uint8_t data[256];
	uint64_t r = 0;

	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	r += parse_run(data, sizeof(data), r);
	r += lex_run(data, sizeof(data), r);
	r += hash_run(data, sizeof(data), r);
	r += table_run(data, sizeof(data), r);
	r += list_run(data, sizeof(data), r);
	r += tree_run(data, sizeof(data), r);
	r += heap_run(data, sizeof(data), r);
	r += sort_run(data, sizeof(data), r);
	r += search_run(data, sizeof(data), r);
	r += str_run(data, sizeof(data), r);
	r += buf_run(data, sizeof(data), r);
	r += fmt_run(data, sizeof(data), r);
	r += num_run(data, sizeof(data), r);
	r += date_run(data, sizeof(data), r);
	r += path_run(data, sizeof(data), r);
	r += env_run(data, sizeof(data), r);
	r += opt_run(data, sizeof(data), r);
	r += log_run(data, sizeof(data), r);
	r += err_run(data, sizeof(data), r);
	r += mem_run(data, sizeof(data), r);
	r += pool_run(data, sizeof(data), r);
	r += queue_run(data, sizeof(data), r);
	r += stack_run(data, sizeof(data), r);
	r += graph_run(data, sizeof(data), r);
	r += bits_run(data, sizeof(data), r);
	r += crc_run(data, sizeof(data), r);
	r += utf8_run(data, sizeof(data), r);
	r += base64_run(data, sizeof(data), r);
	r += rle_run(data, sizeof(data), r);
	r += stats_run(data, sizeof(data), r);
	printf("%llx\n", (unsigned long long)r);
	return 0;
}
