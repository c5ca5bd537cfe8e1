/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The client side of the fxsamplerd protocol, for `fxsampler record` and
 * `fxsampler status` when they go through the daemon. No logging: every
 * failure returns -errno and writes one line for the user into errbuf
 * (without the program name, e.g. "pid 1 belongs to uid 0, not to uid 1000").
 */
#ifndef FXS_DAEMON_CLIENT_H
#define FXS_DAEMON_CLIENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/capture.h"
#include "service/protocol.h"

#define CLIENT_SOCKET_ENV "FXSAMPLER_SOCKET"
/* How long a reply may take before the daemon is declared stuck. */
#define CLIENT_REPLY_TIMEOUT_MS 30000

struct client_result {
	struct capture_stats stats; /* the daemon's totals at the end of the session */
	uint64_t bytes_written;	    /* FXT bytes written to out_fd */
	/*
	 * -ECONNRESET only: the bytes of out_fd, from its start, that are whole
	 * FXT records (the rest is a record cut short): a partial capture.
	 */
	uint64_t bytes_whole;
	bool shutdown; /* the daemon ended the capture (it is stopping); the file is complete */
	bool ended_by_daemon; /* the daemon ended it (end_reason says why): no STATUS asked */
	uint32_t end_reason;  /* FXS_END_*, when ended_by_daemon */
};

/* Optional callbacks of client_record(); any may be NULL. */
struct client_hooks {
	/* Sampling runs: e.g. release a command held until now. Nonzero aborts. */
	int (*started)(void *ctx);
	/* About twice a second while running, for a live status line. */
	void (*progress)(void *ctx, const struct capture_stats *stats, uint64_t elapsed_ns);
	/* A NOTICE from the daemon, e.g. that a target left the client's reach. */
	void (*notice)(void *ctx, const char *text);
	/* About ten times a second while running: true ends the capture (targets gone). */
	bool (*done)(void *ctx);
	void *ctx;
};

/* The socket to use: opt if given, else $FXSAMPLER_SOCKET if set, else the default. */
const char *client_socket_path(const char *opt);

/*
 * Connect to the daemon: 0 and *ret_fd (SOCK_CLOEXEC, blocking; the caller
 * closes it), or -errno with "cannot connect to fxsamplerd at 'PATH': reason".
 */
int client_connect(const char *socket_path, int *ret_fd, char *errbuf, size_t errlen);

/*
 * Record through the daemon: SETUP, START, then the FXT bytes streamed into
 * out_fd (written from its current position; the caller owns it) until
 * *stop_flag is set (by a signal handler), duration_ns passes (0: no limit) or
 * the daemon ends the capture; then STOP, the rest of the stream, STATUS and
 * DESTROY. On 0 the bytes in out_fd form one complete FXT file.
 * Errors: -EBUSY (the sampler is held; errbuf names the holder pid and uid),
 * -EACCES (errbuf says why), -EINVAL, -ESRCH (a target is gone), -ECONNREFUSED
 * or -ENOENT (no daemon), -ECONNRESET (the daemon went away mid-capture),
 * -ETIMEDOUT, -EPROTO (a reply that makes no sense), -errno of a write to
 * out_fd. *ret is written on success, and on -ECONNRESET with only
 * bytes_written and bytes_whole set.
 */
int client_record(const char *socket_path, const struct capture_opts *opts, int out_fd,
		  volatile sig_atomic_t *stop_flag, uint64_t duration_ns,
		  const struct client_hooks *hooks, struct client_result *ret, char *errbuf,
		  size_t errlen);

/* Ask the daemon for its status: 0 and *ret, or -errno with errbuf. */
int client_query_status(const char *socket_path, struct fxs_msg_status *ret, char *errbuf,
			size_t errlen);

/*
 * `fxsampler status` through the daemon: the state, the holder and the
 * counters, printed to out (fits in 80 columns). 0 or -errno with errbuf.
 */
int client_status(const char *socket_path, FILE *out, char *errbuf, size_t errlen);

/* Print a status reply as client_status() does. */
void client_print_status(FILE *out, const char *socket_path, const struct fxs_msg_status *st);

#endif /* FXS_DAEMON_CLIENT_H */
