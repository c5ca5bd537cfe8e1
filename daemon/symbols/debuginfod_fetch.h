/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Debug files fetched by build id through libdebuginfod, within caps: a
 * .fxt comes from anywhere, and so may the server (plain http, a broken
 * mirror) that streams without end. Each fetch has a size cap and a time
 * cap, and the fetches of one report together have two more. A fetch past
 * a cap is abandoned, and nothing of it stays on disk or in the cache.
 *
 * How the caps hold:
 *   - the size: while a fetch runs, the process's RLIMIT_FSIZE is the cap
 *     (SIGXFSZ noted, not fatal), so the file libdebuginfod writes into its cache can
 *     never grow past it; the progress callback abandons the fetch as soon
 *     as more has arrived;
 *   - the time: the progress callback, which libdebuginfod calls at least
 *     once a second during a fetch, abandons it at the cap;
 *   - libdebuginfod's own DEBUGINFOD_MAXSIZE (sent to the server, checked
 *     against Content-Length) and DEBUGINFOD_MAXTIME (whole seconds) are set
 *     to the caps before each fetch.
 * libdebuginfod removes the partial file of an abandoned fetch and leaves an
 * empty "not found" entry for it; that entry is removed too, so a fetch with
 * larger caps can be tried at once.
 *
 * libdebuginfod is loaded with dlopen() at the first fetch, not linked: its
 * chain (libcurl, GnuTLS, libcrypto, Kerberos, LDAP) costs every report
 * 4.7 MB resident and its start-up, and most reports never fetch. Without
 * the library at run time a fetch returns DEBUGINFOD_NO_LIBRARY and
 * debuginfod_fetcher__library_error() says why, once per fetcher.
 *
 * Pure: no libbpf, no logging. Not thread-safe (process-wide limits and
 * environment, one fetch at a time). Built without libdebuginfod's header
 * (HAVE_LIBDEBUGINFOD undefined), debuginfod_fetcher__new() returns NULL.
 */
#ifndef FXS_DAEMON_DEBUGINFOD_FETCH_H
#define FXS_DAEMON_DEBUGINFOD_FETCH_H

#include <stddef.h>
#include <stdint.h>

#define DEBUGINFOD_DEFAULT_MAX_SIZE	 (256ULL << 20)	       /* a fetch: 256 MiB */
#define DEBUGINFOD_DEFAULT_MAX_TIME_NS	 (30ULL * 1000000000)  /* a fetch: 30 s */
#define DEBUGINFOD_DEFAULT_TOTAL_SIZE	 (1ULL << 30)	       /* a report: 1 GiB */
#define DEBUGINFOD_DEFAULT_TOTAL_TIME_NS (120ULL * 1000000000) /* a report: 2 min */

/* The caps; 0 in a field: its default (see debuginfod_limits_resolve()). */
struct debuginfod_limits {
	uint64_t max_size;	/* bytes of one fetch */
	uint64_t max_time_ns;	/* time of one fetch */
	uint64_t total_size;	/* bytes of all the fetches of a report */
	uint64_t total_time_ns; /* time of all the fetches of a report */
};

/*
 * What a fetch past a cap returns, instead of a -errno (outside their range):
 * the fetch was abandoned at this fetch's size or time cap, or at what was
 * left of the report's (then, and for every fetch after, the total caps).
 */
enum {
	DEBUGINFOD_OVER_SIZE = -4097,
	DEBUGINFOD_OVER_TIME = -4098,
	DEBUGINFOD_OVER_TOTAL_SIZE = -4099,
	DEBUGINFOD_OVER_TOTAL_TIME = -4100,
	/* libdebuginfod could not be loaded: debuginfod_fetcher__library_error(). */
	DEBUGINFOD_NO_LIBRARY = -4101,
};

/* The library a fetcher loads at its first fetch (Debian: libdebuginfod1). */
#define DEBUGINFOD_LIBRARY "libdebuginfod.so.1"

/*
 * given's fields, each 0 taken from the environment (max_size from
 * DEBUGINFOD_MAXSIZE, bytes; max_time_ns from DEBUGINFOD_MAXTIME, seconds;
 * as elfutils reads them, a value that is not a positive number is unset)
 * or else the default. A fetch's cap above the report's is lowered to it.
 */
void debuginfod_limits_resolve(const struct debuginfod_limits *given,
			       struct debuginfod_limits *ret);

/*
 * Which cap err (DEBUGINFOD_OVER_*) is, for a message: "the size cap of a
 * fetch, 4 MiB (--debuginfod-max-size)". NULL when err is not a cap.
 */
const char *debuginfod_cap_describe(const struct debuginfod_limits *resolved, int err, char *buf,
				    size_t len);

struct debuginfod_fetcher;

/*
 * A client on DEBUGINFOD_URLS with its cache (DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client) and these caps (NULL: the defaults). NULL when
 * DEBUGINFOD_URLS is unset or empty (off, as in elfutils), without
 * libdebuginfod, or out of memory.
 */
struct debuginfod_fetcher *debuginfod_fetcher__new(const struct debuginfod_limits *limits);
/* The same, loading library (a file name for dlopen) instead of DEBUGINFOD_LIBRARY. */
struct debuginfod_fetcher *debuginfod_fetcher__new_with(const struct debuginfod_limits *limits,
							const char *library);
void debuginfod_fetcher__free(struct debuginfod_fetcher *f);

/*
 * Why f's library could not be loaded or begun ("libdebuginfod.so.1: cannot
 * open shared object file: No such file or directory"); NULL when it was,
 * or before the first fetch tried.
 */
const char *debuginfod_fetcher__library_error(const struct debuginfod_fetcher *f);

/*
 * The debug file of build id id (id_len bytes), from the cache or fetched:
 * a read-only fd, and its path in *ret_path (malloc'ed; NULL when unknown).
 * Else libdebuginfod's -errno (-ENOENT: no server has it),
 * DEBUGINFOD_OVER_* when a cap ended the fetch or the report's caps are
 * spent (no fetch is tried then), or DEBUGINFOD_NO_LIBRARY (the library is
 * tried once: every fetch after a failed load returns it at once).
 */
int debuginfod_fetcher__fetch(struct debuginfod_fetcher *f, const uint8_t *id, size_t id_len,
			      char **ret_path);

#endif /* FXS_DAEMON_DEBUGINFOD_FETCH_H */
