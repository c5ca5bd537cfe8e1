// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Bounded fetches of debug files through libdebuginfod (see debuginfod_fetch.h). */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "symbols/debuginfod_fetch.h"

#define NS_PER_S 1000000000ULL

/* A positive decimal number in environment variable name, else 0 (elfutils reads them with atol).
 */
static uint64_t env_positive(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0)
		return 0;
	return (uint64_t)v;
}

void debuginfod_limits_resolve(const struct debuginfod_limits *given, struct debuginfod_limits *ret)
{
	struct debuginfod_limits l = given ? *given : (struct debuginfod_limits){0};

	if (!l.max_size)
		l.max_size = env_positive("DEBUGINFOD_MAXSIZE");
	if (!l.max_size)
		l.max_size = DEBUGINFOD_DEFAULT_MAX_SIZE;
	if (!l.max_time_ns) {
		uint64_t s = env_positive("DEBUGINFOD_MAXTIME");

		l.max_time_ns = s && s < UINT64_MAX / NS_PER_S ? s * NS_PER_S : 0;
	}
	if (!l.max_time_ns)
		l.max_time_ns = DEBUGINFOD_DEFAULT_MAX_TIME_NS;
	if (!l.total_size)
		l.total_size = DEBUGINFOD_DEFAULT_TOTAL_SIZE;
	if (!l.total_time_ns)
		l.total_time_ns = DEBUGINFOD_DEFAULT_TOTAL_TIME_NS;
	if (l.max_size > l.total_size)
		l.max_size = l.total_size;
	if (l.max_time_ns > l.total_time_ns)
		l.max_time_ns = l.total_time_ns;
	*ret = l;
}

/* A size as people read it: "4 MiB", "1 GiB", "1500 bytes". */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 30)))
		snprintf(buf, len, "%llu GiB", (unsigned long long)(v >> 30));
	else if (v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v && !(v % (1ULL << 10)))
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
}

/* A duration as people read it: "2 min", "30 s", "1500 ms". */
static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns && !(ns % (60 * NS_PER_S)))
		snprintf(buf, len, "%llu min", (unsigned long long)(ns / (60 * NS_PER_S)));
	else if (ns && !(ns % NS_PER_S))
		snprintf(buf, len, "%llu s", (unsigned long long)(ns / NS_PER_S));
	else if (ns && !(ns % 1000000))
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000));
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

const char *debuginfod_cap_describe(const struct debuginfod_limits *l, int err, char *buf,
				    size_t len)
{
	char v[32];

	switch (err) {
	case DEBUGINFOD_OVER_SIZE:
		fmt_size(v, sizeof(v), l->max_size);
		snprintf(buf, len, "the size cap of a fetch, %s (--debuginfod-max-size)", v);
		return buf;
	case DEBUGINFOD_OVER_TIME:
		fmt_duration(v, sizeof(v), l->max_time_ns);
		snprintf(buf, len, "the time cap of a fetch, %s (--debuginfod-max-time)", v);
		return buf;
	case DEBUGINFOD_OVER_TOTAL_SIZE:
		fmt_size(v, sizeof(v), l->total_size);
		snprintf(buf, len,
			 "the size cap of the report's fetches, %s (--debuginfod-total-size)", v);
		return buf;
	case DEBUGINFOD_OVER_TOTAL_TIME:
		fmt_duration(v, sizeof(v), l->total_time_ns);
		snprintf(buf, len,
			 "the time cap of the report's fetches, %s (--debuginfod-total-time)", v);
		return buf;
	default:
		return NULL;
	}
}

#ifdef HAVE_LIBDEBUGINFOD

#include <dlfcn.h>
#include <elfutils/debuginfod.h>

/*
 * libdebuginfod's functions, looked up in the library once the first fetch
 * needs them. It is linked to nothing: its chain (libcurl, GnuTLS, libcrypto,
 * Kerberos, LDAP: 4.7 MB resident) would be mapped and initialised by every
 * report, and most never fetch (no DEBUGINFOD_URLS, or every debug file on
 * disk). The header gives the types, so a change of signature fails the build.
 */
struct debuginfod_api {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
};

struct debuginfod_fetcher {
	const char *library; /* its file name, for dlopen */
	struct debuginfod_api api;
	bool tried;		   /* the library: loaded, or load_error says why not */
	char load_error[256];	   /* empty when loaded */
	debuginfod_client *client; /* begun at the first fetch */
	struct debuginfod_limits limits;
	uint64_t used_size, used_time_ns; /* by the fetches so far */
	/* The fetch under way. */
	uint64_t start_ns, size_cap, time_cap_ns;
	uint64_t received; /* the most the progress callback saw */
	bool downloading;  /* a server answered: not a cache hit */
	bool over_size, over_time;
};

/* The fetch under way, for the progress callback (one at a time: see the header). */
static struct debuginfod_fetcher *fetching;

/*
 * libdebuginfod's progress callback: a is the bytes received once a server
 * answers (a count of loops before), b the size announced (<= 0: unknown).
 * Non-zero abandons the fetch.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	struct debuginfod_fetcher *f = fetching;

	if (!f)
		return 0;
	if (f->over_size || f->over_time)
		return 1;
	/* b is 0 until a server answers (then its size, or -1 when unknown). */
	if (b)
		f->downloading = true;
	if (b && a > 0 && (uint64_t)a > f->received)
		f->received = (uint64_t)a;
	if (f->received > f->size_cap || (b > 0 && (uint64_t)b > f->size_cap)) {
		f->over_size = true;
		return 1;
	}
	if (mono_ns() - f->start_ns >= f->time_cap_ns) {
		f->over_time = true;
		return 1;
	}
	return 0;
}

/*
 * Set when a write of the fetch met RLIMIT_FSIZE. The write that crosses the
 * cap is cut short without a signal, and libcurl gives up on it (-EIO); the
 * retries libdebuginfod makes then write at the cap, which signals.
 */
static volatile sig_atomic_t write_capped;

static void on_sigxfsz(int sig)
{
	write_capped = 1;
}

struct debuginfod_fetcher *debuginfod_fetcher__new_with(const struct debuginfod_limits *limits,
							const char *library)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct debuginfod_fetcher *f;

	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->library = library;
	debuginfod_limits_resolve(limits, &f->limits);
	return f;
}

struct debuginfod_fetcher *debuginfod_fetcher__new(const struct debuginfod_limits *limits)
{
	return debuginfod_fetcher__new_with(limits, DEBUGINFOD_LIBRARY);
}

void debuginfod_fetcher__free(struct debuginfod_fetcher *f)
{
	if (!f)
		return;
	/* The library stays loaded: libcurl's global state is not for unloading. */
	if (f->client)
		f->api.end(f->client);
	free(f);
}

/* One function of the library into *slot; false with why in f->load_error. */
static bool load_symbol(struct debuginfod_fetcher *f, void *lib, const char *name, void *slot)
{
	void *p = dlsym(lib, name);

	if (!p) {
		snprintf(f->load_error, sizeof(f->load_error), "%s has no %s", f->library, name);
		return false;
	}
	memcpy(slot, &p, sizeof(p));
	return true;
}

/* The library and a client on it, once: 0, or DEBUGINFOD_NO_LIBRARY (why in load_error). */
static int load_client(struct debuginfod_fetcher *f)
{
	struct debuginfod_api *a = &f->api;
	const char *why;
	void *lib;

	if (f->tried)
		return f->client ? 0 : DEBUGINFOD_NO_LIBRARY;
	f->tried = true;
	lib = dlopen(f->library, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		why = dlerror();
		snprintf(f->load_error, sizeof(f->load_error), "%s", why ? why : f->library);
		return DEBUGINFOD_NO_LIBRARY;
	}
	if (!load_symbol(f, lib, "debuginfod_begin", &a->begin) ||
	    !load_symbol(f, lib, "debuginfod_end", &a->end) ||
	    !load_symbol(f, lib, "debuginfod_set_progressfn", &a->set_progressfn) ||
	    !load_symbol(f, lib, "debuginfod_find_debuginfo", &a->find_debuginfo))
		return DEBUGINFOD_NO_LIBRARY;
	f->client = a->begin();
	if (!f->client) {
		snprintf(f->load_error, sizeof(f->load_error), "%s: debuginfod_begin() failed",
			 f->library);
		return DEBUGINFOD_NO_LIBRARY;
	}
	a->set_progressfn(f->client, progress);
	return 0;
}

const char *debuginfod_fetcher__library_error(const struct debuginfod_fetcher *f)
{
	return f && f->load_error[0] ? f->load_error : NULL;
}

/* libdebuginfod's cache directory, found as it finds it (debuginfod-client.c). */
static int cache_dir(char *buf, size_t len)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else {
		n = snprintf(buf, len, "%s/.debuginfod_client_cache", home ? home : "/");
		if (n >= 0 && (size_t)n < len && stat(buf, &st)) {
			if (xdg && *xdg)
				n = snprintf(buf, len, "%s/debuginfod_client", xdg);
			else
				n = snprintf(buf, len, "%s/.cache/debuginfod_client",
					     home ? home : "/");
		}
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * An abandoned fetch leaves an empty "not found" entry (BUILDID/debuginfo) in
 * the cache, which would refuse any fetch of it for ten minutes. Only an
 * empty regular file is removed: it holds nothing.
 */
static void forget_miss(const uint8_t *id, size_t id_len)
{
	char dir[4096], path[4096 + 2 * 64 + 16], hex[2 * 64 + 1];
	struct stat st;
	size_t i;

	if (cache_dir(dir, sizeof(dir)) || id_len > 64)
		return;
	for (i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * id_len] = '\0';
	snprintf(path, sizeof(path), "%s/%s/debuginfo", dir, hex);
	if (!lstat(path, &st) && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, hex);
	rmdir(path); /* only when empty */
}

/* An environment variable libdebuginfod reads at each fetch. */
static void set_env_u64(const char *name, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	setenv(name, buf, 1);
}

int debuginfod_fetcher__fetch(struct debuginfod_fetcher *f, const uint8_t *id, size_t id_len,
			      char **ret_path)
{
	const struct debuginfod_limits *l = &f->limits;
	struct sigaction note = {.sa_handler = on_sigxfsz}, old_act;
	struct rlimit old_lim, lim;
	bool size_is_total, time_is_total, limited;
	uint64_t elapsed;
	struct stat st;
	char *path = NULL;
	int fd;

	*ret_path = NULL;
	fd = load_client(f);
	if (fd)
		return fd;
	if (f->used_time_ns >= l->total_time_ns)
		return DEBUGINFOD_OVER_TOTAL_TIME;
	if (f->used_size >= l->total_size)
		return DEBUGINFOD_OVER_TOTAL_SIZE;
	size_is_total = l->total_size - f->used_size < l->max_size;
	f->size_cap = size_is_total ? l->total_size - f->used_size : l->max_size;
	time_is_total = l->total_time_ns - f->used_time_ns < l->max_time_ns;
	f->time_cap_ns = time_is_total ? l->total_time_ns - f->used_time_ns : l->max_time_ns;
	f->received = 0;
	f->downloading = f->over_size = f->over_time = false;

	/* libdebuginfod's own caps: whole seconds, a second later than ours. */
	set_env_u64("DEBUGINFOD_MAXSIZE", f->size_cap);
	set_env_u64("DEBUGINFOD_MAXTIME", f->time_cap_ns / NS_PER_S + 1);
	/* The cache file cannot grow past the cap: a write beyond it fails (EFBIG). */
	limited = !getrlimit(RLIMIT_FSIZE, &old_lim);
	if (limited) {
		lim = old_lim;
		if (lim.rlim_max == RLIM_INFINITY || lim.rlim_max > f->size_cap)
			lim.rlim_cur = f->size_cap;
		write_capped = 0;
		limited = !sigaction(SIGXFSZ, &note, &old_act);
		if (limited && setrlimit(RLIMIT_FSIZE, &lim)) {
			sigaction(SIGXFSZ, &old_act, NULL);
			limited = false;
		}
	}
	f->start_ns = mono_ns();
	fetching = f;
	fd = f->api.find_debuginfo(f->client, id, (int)id_len, &path);
	fetching = NULL;
	elapsed = mono_ns() - f->start_ns;
	if (limited) {
		setrlimit(RLIMIT_FSIZE, &old_lim);
		sigaction(SIGXFSZ, &old_act, NULL);
	}
	f->used_time_ns += elapsed;
	if (fd >= 0) {
		/* What came from the cache was not fetched: it costs the report nothing. */
		if (f->downloading && !fstat(fd, &st) && st.st_size > 0)
			f->used_size += (uint64_t)st.st_size;
		*ret_path = path;
		return fd;
	}
	free(path);
	/*
	 * Past the size cap: seen by the callback, or refused by libdebuginfod
	 * (Content-Length, or the server's 406 for DEBUGINFOD_MAXSIZE), or a
	 * write that RLIMIT_FSIZE cut (-EIO).
	 */
	if (f->over_size || fd == -EFBIG ||
	    (fd == -EIO && (write_capped || f->received > f->size_cap))) {
		f->used_size += f->received < f->size_cap ? f->received : f->size_cap;
		fd = size_is_total ? DEBUGINFOD_OVER_TOTAL_SIZE : DEBUGINFOD_OVER_SIZE;
	} else if (f->over_time || (fd == -ETIME && elapsed >= f->time_cap_ns)) {
		fd = time_is_total ? DEBUGINFOD_OVER_TOTAL_TIME : DEBUGINFOD_OVER_TIME;
	} else {
		return fd;
	}
	forget_miss(id, id_len);
	return fd;
}

#else /* !HAVE_LIBDEBUGINFOD */

struct debuginfod_fetcher *debuginfod_fetcher__new_with(const struct debuginfod_limits *limits,
							const char *library)
{
	return NULL;
}

struct debuginfod_fetcher *debuginfod_fetcher__new(const struct debuginfod_limits *limits)
{
	return NULL;
}

const char *debuginfod_fetcher__library_error(const struct debuginfod_fetcher *f)
{
	return NULL;
}

void debuginfod_fetcher__free(struct debuginfod_fetcher *f)
{
}

int debuginfod_fetcher__fetch(struct debuginfod_fetcher *f, const uint8_t *id, size_t id_len,
			      char **ret_path)
{
	*ret_path = NULL;
	return -ENOSYS;
}

#endif /* HAVE_LIBDEBUGINFOD */
