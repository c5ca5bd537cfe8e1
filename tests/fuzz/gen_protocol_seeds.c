// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writes the protocol seed corpus: one encoded message of every type, as the
 * real encoder makes them, into the directory given (tests/fuzz/corpus/protocol).
 * Run by hand when the protocol changes; run.sh only reads the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/protocol.h"

static uint8_t buf[FXS_PROTO_MAX_MSG];

static int emit(const char *dir, const char *name, const struct fxs_msg *m)
{
	char path[512];
	FILE *f;
	int n = protocol_encode(m, buf, sizeof(buf));

	if (n < 0) {
		fprintf(stderr, "gen_protocol_seeds: cannot encode %s: %d\n", name, n);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, (size_t)n, f) != (size_t)n || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char fxt[] = "\x10\x00\x04\x46\x78\x54\x16\x00";
	struct fxs_msg m;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_protocol_seeds DIR\n");
		return 2;
	}
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_SETUP;
	m.setup.freq_hz = 999;
	m.setup.buffer_size = 1 << 21;
	m.setup.max_frames = 64;
	m.setup.flags = FXS_SETUP_INHERIT;
	m.setup.nr_pids = 2;
	m.setup.pids[0] = 4242;
	m.setup.pids[1] = 4243;
	err |= emit(argv[1], "setup-pids", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_SETUP;
	m.setup.period_ns = 1000000;
	m.setup.buffer_size = 4096;
	m.setup.max_frames = 255;
	m.setup.flags = FXS_SETUP_ALL_HOST;
	err |= emit(argv[1], "setup-host", &m);
	m.setup.flags = FXS_SETUP_ALL_HOST | FXS_SETUP_OFFCPU;
	m.setup.offcpu_min_ns = 1000000;
	err |= emit(argv[1], "setup-offcpu", &m);
	for (unsigned t = FXS_MSG_START; t <= FXS_MSG_STATUS; t++) {
		char name[32];

		memset(&m, 0, sizeof(m));
		m.type = (uint16_t)t;
		snprintf(name, sizeof(name), "request-%s", protocol_type_name(t));
		err |= emit(argv[1], name, &m);
	}
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_OK;
	m.ok.request = FXS_MSG_START;
	err |= emit(argv[1], "ok", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_ERROR;
	m.error.request = FXS_MSG_SETUP;
	m.error.kind = FXS_ERR_ALREADY_EXISTS;
	m.error.err = -16;
	m.error.holder_pid = 77;
	m.error.holder_uid = 1000;
	snprintf(m.error.text, sizeof(m.error.text), "the host's sampler is held by pid 77");
	err |= emit(argv[1], "error-busy", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_DATA;
	m.data.data = fxt;
	m.data.len = 8;
	err |= emit(argv[1], "data-magic", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_STATUS_REPLY;
	m.status.session = FXS_SESSION_RUNNING;
	m.status.flags = FXS_STATUS_YOURS;
	m.status.holder_pid = 77;
	m.status.nr_cpus = 2;
	m.status.nr_pids = 1;
	m.status.freq_hz = 999;
	m.status.processes = 3;
	m.status.threads = 5;
	m.status.bytes = 123456;
	err |= emit(argv[1], "status-reply", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_END;
	m.end.reason = FXS_END_SHUTDOWN;
	err |= emit(argv[1], "end", &m);
	memset(&m, 0, sizeof(m));
	m.type = FXS_MSG_NOTICE;
	m.notice.kind = FXS_NOTICE_TARGET_LEFT;
	m.notice.pid = 4242;
	snprintf(m.notice.text, sizeof(m.notice.text),
		 "pid 4242 changed credentials (exec of a set-user-ID program): no longer sampled");
	err |= emit(argv[1], "notice", &m);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
