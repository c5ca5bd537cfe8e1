/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The small pieces the growable tables of report, symbolizer and modules share. */
#ifndef FXS_DAEMON_CONTAINERS_H
#define FXS_DAEMON_CONTAINERS_H

#include <stddef.h>
#include <stdint.h>

#define FNV_INIT 0xcbf29ce484222325ULL

/*
 * Make room in *arr (*cap elements of elem bytes) for element n: doubles the
 * capacity when n reaches it. 0, or -ENOMEM with *arr untouched.
 */
int array_reserve(void **arr, size_t *cap, size_t n, size_t elem);
/* FNV-1a of len bytes, continuing from h (FNV_INIT to start). */
uint64_t fnv1a(uint64_t h, const void *data, size_t len);

#endif /* FXS_DAEMON_CONTAINERS_H */
