/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxsamplerd's configuration file: `key = value` lines, `#` comments, blank
 * lines. Sizes and durations are spelled as on the command line (util/units.h:
 * K, KB, KiB... powers of 1024; ns to d). Pure: reads a FILE * or a path it is
 * given, logs nothing.
 */
#ifndef FXS_DAEMON_DAEMON_CONFIG_H
#define FXS_DAEMON_DAEMON_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define DAEMON_DEFAULT_CONFIG "/etc/fxsampler/fxsamplerd.conf"
#define DAEMON_DEFAULT_SOCKET "/run/fxsampler/control.sock"
#define DAEMON_DEFAULT_DIR    "/var/lib/fxsampler"
/* sun_path's size, NUL included */
#define DAEMON_SOCKET_MAX 108

struct daemon_config {
	char socket_path[DAEMON_SOCKET_MAX];
	bool continuous;	     /* host-wide capture into rotating files */
	uint64_t continuous_freq_hz; /* default 19: prime, so it does not beat with timers */
	char directory[PATH_MAX];    /* where continuous files go */
	uint64_t max_file_size;	     /* bytes; rotate when a file reaches it */
	uint64_t max_file_age_s;     /* rotate when a file is this old */
	uint64_t max_total_size;     /* bytes; delete the oldest files beyond it */
	uint32_t buffer_size;	     /* per-CPU ring of continuous captures */
	uint32_t max_frames;	     /* of continuous captures */
	uint32_t unwind;	     /* of continuous captures: enum fxs_unwind_mode */
	uint64_t cfi_memory;	     /* bytes of unwind tables per capture (the cap) */
	uint32_t max_clients;	     /* connections at once */

	/*
	 * Fairness. Root's connections count against neither limit. A
	 * connection must send a whole message within handshake_timeout_s of
	 * connecting or of starting one; without a running session it may be
	 * silent for idle_timeout_s (0: forever). A session whose client reads
	 * nothing for client_read_timeout_s is stopped; one running for
	 * max_session_length_s (0: no limit) is ended.
	 */
	uint32_t max_clients_per_uid;
	uint64_t handshake_timeout_s;
	uint64_t idle_timeout_s;
	uint64_t client_read_timeout_s;
	uint64_t max_session_length_s;
};

/* The built-in defaults. */
void daemon_config_defaults(struct daemon_config *ret);

/*
 * Parse f, named name in messages, on top of *cfg (so defaults, then the file).
 * 0, or -EINVAL with "NAME:LINE: what is wrong" in err; -errno on a read
 * error. On failure *cfg is left unchanged.
 */
int daemon_config_parse(FILE *f, const char *name, struct daemon_config *cfg, char *err,
			size_t err_len);

/*
 * Whether the keys together make sense: the disk budget holds the file being
 * written and one complete file (max_total_size >= 2 * max_file_size), no size
 * is zero, no age is under a second. 0, or -EINVAL with one line naming the
 * keys and their values in msg. daemon_config_parse() applies it to its result.
 */
int daemon_config_check(const struct daemon_config *cfg, char *msg, size_t msg_len);

/*
 * Defaults, then the file at path. A missing file is an error only when
 * must_exist (the user named it); otherwise the defaults are used.
 */
int daemon_config_load(const char *path, bool must_exist, struct daemon_config *ret, char *err,
		       size_t err_len);

#endif /* FXS_DAEMON_DAEMON_CONFIG_H */
