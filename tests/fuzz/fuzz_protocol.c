// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the daemon's message decoder, which reads bytes from any
 * local user. protocol_frame_len() on the stream start, protocol_decode() on
 * the whole input and on the first frame; whatever decodes must encode
 * again (the encoder and decoder share their rules), and encoding is a fixed
 * point: encode(decode(encode(m))) is the same bytes.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t enc1[FXS_PROTO_MAX_MSG], enc2[FXS_PROTO_MAX_MSG];

static void round_trip(const uint8_t *buf, size_t len)
{
	struct fxs_msg m, m2;
	int n1, n2;

	if (protocol_decode(buf, len, &m))
		return;
	assert(m.type != 0);
	(void)protocol_type_name(m.type);
	if (m.type == FXS_MSG_ERROR) {
		assert(strlen(m.error.text) <= FXS_PROTO_MAX_TEXT);
		(void)protocol_err_name(m.error.kind);
	}
	if (m.type == FXS_MSG_STATUS_REPLY)
		(void)protocol_session_name(m.status.session);
	if (m.type == FXS_MSG_DATA) {
		assert((const uint8_t *)m.data.data >= buf);
		assert((const uint8_t *)m.data.data + m.data.len <= buf + len);
	}
	n1 = protocol_encode(&m, enc1, sizeof(enc1));
	assert(n1 > 0);
	assert(protocol_decode(enc1, (size_t)n1, &m2) == 0);
	assert(m2.type == m.type);
	n2 = protocol_encode(&m2, enc2, sizeof(enc2));
	assert(n2 == n1);
	assert(!memcmp(enc1, enc2, (size_t)n1));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = 0;
	uint8_t *copy;
	int err;

	/* An exact-size heap copy, so that ASan sees a read past the end. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	err = protocol_frame_len(copy, size, &len);
	assert(err == 0 || err == -EAGAIN || err == -EBADMSG);
	if (!err) {
		assert(len >= FXS_PROTO_HDR_SIZE && len <= FXS_PROTO_MAX_MSG);
		if (len <= size)
			round_trip(copy, len);
	}
	round_trip(copy, size);
	free(copy);
	return 0;
}
