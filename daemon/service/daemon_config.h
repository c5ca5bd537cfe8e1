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
	bool continuous_off_cpu; /* also off-CPU intervals of 1 ms or more (costly: every switch) */
	char directory[PATH_MAX]; /* where continuous files go */
	uint64_t max_file_size;	  /* bytes; rotate when a file reaches it */
	uint64_t max_file_age_s;  /* rotate when a file is this old */
	uint64_t max_total_size;  /* bytes; delete the oldest files beyond it */
	uint32_t buffer_size;	  /* per-CPU ring of continuous captures */
	uint32_t max_frames;	  /* of continuous captures */
	uint32_t unwind;	  /* of continuous captures: enum fxs_unwind_mode */
	uint64_t cfi_memory;	  /* bytes of unwind tables per capture (the cap); 0: auto */
	uint32_t max_clients;	  /* connections at once */

	/*
	 * Fairness. Root's connections count against neither limit. A
	 * connection must send a whole message within handshake_timeout_s of
	 * connecting or of starting one; without a running session it may be
	 * silent for idle_timeout_s (0: forever). A session whose client reads
	 * nothing for client_read_timeout_s is stopped; a user's running for
	 * max_session_length_s (default 1 h), root's for
	 * max_root_session_length_s (default none), is ended (0: no limit).
	 */
	uint32_t max_clients_per_uid;
	uint64_t handshake_timeout_s;
	uint64_t idle_timeout_s;
	uint64_t client_read_timeout_s;
	uint64_t max_session_length_s;
	uint64_t max_root_session_length_s;

	/*
	 * The HTTP endpoint (service/http.c), off while http_listen is empty:
	 * ADDRESS:PORT or a unix socket path. Any address but loopback needs
	 * http_token_file (a bearer token). At most http_max_scrapes scrapes
	 * at once, each of at most http_max_seconds.
	 */
	char http_listen[DAEMON_SOCKET_MAX];
	char http_token_file[PATH_MAX];
	uint32_t http_max_scrapes;
	uint64_t http_max_seconds;
};

/* The built-in defaults. */
void daemon_config_defaults(struct daemon_config *ret);

/*
 * Parse f, named name in messages, on top of *cfg (so defaults, then the file).
 * 0, or -EINVAL with "NAME:LINE: what is wrong" in err (a bad key or value,
 * a key set twice, a NUL byte, a line over 4094 characters); -errno on a
 * read error. On failure *cfg is left unchanged.
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

/* The largest configuration file read: the whole example is 3 KiB. */
#define DAEMON_CONFIG_MAX_SIZE (1024 * 1024)

/*
 * Defaults, then the file at path. A missing file is an error only when
 * must_exist (the user named it); otherwise the defaults are used. The file
 * is opened without blocking (a FIFO is refused at once, not waited on) and
 * read only when it is a regular file of at most DAEMON_CONFIG_MAX_SIZE
 * bytes, or the null device (an empty file: `-c /dev/null`, no settings).
 * 0, or -errno with one line in err naming the path and the cause:
 * -EINVAL for a bad file (not a regular file, a bad line), -EFBIG for one too
 * large, the open's or read's -errno otherwise.
 */
int daemon_config_load(const char *path, bool must_exist, struct daemon_config *ret, char *err,
		       size_t err_len);

#endif /* FXS_DAEMON_DAEMON_CONFIG_H */
