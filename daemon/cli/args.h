/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command-line parsing for `fxsampler record` (numbers, durations and sizes
 * through util/units.h, as the config file). Pure: no I/O but the help text,
 * which the caller prints.
 */
#ifndef FXS_DAEMON_ARGS_H
#define FXS_DAEMON_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

#define ARGS_DEFAULT_FREQ   999
#define ARGS_DEFAULT_BUFFER (2U << 20)
#define ARGS_DEFAULT_OUTPUT "fxsampler.fxt"
/* --off-cpu without =MIN: shorter waits are counted, not written. */
#define ARGS_DEFAULT_OFFCPU_MIN 1000000ULL

/* What args_parse_record() found besides an error. */
#define ARGS_RUN     0
#define ARGS_HELP    1
#define ARGS_VERSION 2

struct record_args {
	struct capture_opts capture;
	bool all;	      /* -a: the whole host */
	uint64_t duration_ns; /* -d; 0: until the command or targets end, or a signal */
	const char *output;
	char **cmd;		  /* after "--", NULL-terminated; NULL without a command */
	bool compress;		  /* -z: gzip the .fxt */
	bool quiet;		  /* no live status line */
	bool verbose;		  /* libbpf debug output */
	bool use_daemon;	  /* --daemon: go through fxsamplerd even as root */
	const char *socket;	  /* --socket PATH */
	bool allow_unsafe_kernel; /* load BPF on a kernel the guard refuses */
	bool exit_status;	  /* --exit-status: exit as CMD did, as time(1) does */
};

/*
 * Fill *ret from argv (argv[0] is "record"). Returns ARGS_RUN, ARGS_HELP,
 * ARGS_VERSION, or -EINVAL with a one-line reason in err (no newline).
 * argv must outlive *ret.
 */
int args_parse_record(int argc, char **argv, struct record_args *ret, char *err, size_t err_size);

/* "auto", "fp" or "cfi" into an enum fxs_unwind_mode; -EINVAL otherwise. */
int args_parse_unwind(const char *s, uint32_t *ret);

extern const char args_record_usage[];

#endif /* FXS_DAEMON_ARGS_H */
