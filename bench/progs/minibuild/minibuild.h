/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The bench's exec-heavy workload (section m): a small C project that make -j2 builds. */
#ifndef MINIBUILD_H
#define MINIBUILD_H

#include <stddef.h>
#include <stdint.h>

uint64_t parse_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t lex_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t hash_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t table_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t list_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t tree_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t heap_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t sort_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t search_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t str_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t buf_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t fmt_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t num_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t date_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t path_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t env_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t opt_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t log_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t err_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t mem_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t pool_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t queue_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t stack_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t graph_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t bits_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t crc_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t utf8_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t base64_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t rle_run(const uint8_t *data, size_t len, uint64_t seed);
uint64_t stats_run(const uint8_t *data, size_t len, uint64_t seed);

#endif
