/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Protocol buffers encoded by hand: a growable byte buffer and the varint,
 * tag and length-delimited writers that pprof's profile.proto
 * (report_pprof.c) and Perfetto's TracePackets (report/perfetto_trace.c)
 * are made of. The error is sticky: a failed allocation sets err (-ENOMEM)
 * and every later write is a no-op, so a caller checks once at the end.
 * Pure: no I/O.
 */
#ifndef FXS_DAEMON_UTIL_PBUF_H
#define FXS_DAEMON_UTIL_PBUF_H

#include <stddef.h>
#include <stdint.h>

#define PB_VARINT 0
#define PB_LEN	  2

struct pbuf {
	uint8_t *data; /* owned; pbuf_free() frees it */
	size_t len, cap;
	int err;
};

void pb_bytes(struct pbuf *b, const void *p, size_t n);
void pb_varint(struct pbuf *b, uint64_t v);
void pb_tag(struct pbuf *b, unsigned field, unsigned wire);
/* A varint field; zero is left out, as proto3 does. */
void pb_uint(struct pbuf *b, unsigned field, uint64_t v);
/* A varint field written even when zero (proto2's has_field: a CPU 0, a pid 0). */
void pb_uint_always(struct pbuf *b, unsigned field, uint64_t v);
/* A length-delimited field: bytes, a string, a packed array. */
void pb_len(struct pbuf *b, unsigned field, const void *p, size_t n);
/* A string field (its bytes without the NUL). */
void pb_str(struct pbuf *b, unsigned field, const char *s);
/* sub as an embedded message in field, then sub emptied for reuse (its err carries over). */
void pb_msg(struct pbuf *b, unsigned field, struct pbuf *sub);
/* NULL-safe; b is empty afterwards. */
void pbuf_free(struct pbuf *b);

#endif /* FXS_DAEMON_UTIL_PBUF_H */
