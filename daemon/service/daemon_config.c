// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sampler.h"
#include "service/daemon_config.h"
#include "service/http_rules.h"
#include "util/safe_open.h"
#include "util/units.h"
#include "unwind_maps.h"

#define LINE_MAX_LEN 4096
/* The smallest ring the BPF side accepts is one page. */
#define MIN_BUFFER 4096
#define MAX_BUFFER (1u << 30)

void daemon_config_defaults(struct daemon_config *ret)
{
	*ret = (struct daemon_config){
		.socket_path = DAEMON_DEFAULT_SOCKET,
		.continuous = false,
		.continuous_freq_hz = 19,
		.directory = DAEMON_DEFAULT_DIR,
		.max_file_size = 64ULL << 20,
		.max_file_age_s = 3600,
		.max_total_size = 1ULL << 30,
		.buffer_size = 256 * 1024,
		.max_frames = FXS_DEFAULT_FRAMES,
		.unwind = FXS_UNWIND_AUTO,
		.cfi_memory = 0, /* auto: cfi_capture_default_memory() */
		.max_clients = 16,
		/* below max_clients: one user's idle connections cannot lock the others out */
		.max_clients_per_uid = 4,
		.handshake_timeout_s = 5,
		.idle_timeout_s = 60,
		.client_read_timeout_s = 30,
		/* a user cannot hold the host's sampler for good; root is not limited */
		.max_session_length_s = 3600,
		.max_root_session_length_s = 0,
		.http_max_scrapes = 4,
		.http_max_seconds = 60,
	};
}

/* yes/true/on/1 or no/false/off/0, any case: only the config has booleans. */
static int parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Apply one key; a message (without the "name:line: " prefix) on failure. */
static int apply(struct daemon_config *c, const char *key, const char *val, char *msg,
		 size_t msg_len)
{
	uint64_t v;
	int err;

	if (!strcmp(key, "socket")) {
		if (val[0] != '/' || strlen(val) >= sizeof(c->socket_path)) {
			snprintf(msg, msg_len,
				 "socket: '%s' is not an absolute path shorter than %d", val,
				 DAEMON_SOCKET_MAX);
			return -EINVAL;
		}
		strcpy(c->socket_path, val);
		return 0;
	}
	if (!strcmp(key, "directory")) {
		if (val[0] != '/' || strlen(val) >= sizeof(c->directory)) {
			snprintf(msg, msg_len, "directory: '%s' is not an absolute path", val);
			return -EINVAL;
		}
		strcpy(c->directory, val);
		return 0;
	}
	if (!strcmp(key, "continuous")) {
		err = parse_bool(val, &c->continuous);
		if (err)
			snprintf(msg, msg_len, "continuous: '%s' is not yes or no", val);
		return err;
	}
	if (!strcmp(key, "continuous_off_cpu")) {
		err = parse_bool(val, &c->continuous_off_cpu);
		if (err)
			snprintf(msg, msg_len, "continuous_off_cpu: '%s' is not yes or no", val);
		return err;
	}
	if (!strcmp(key, "continuous_frequency")) {
		err = units_parse_u64(val, &v);
		/* the sampler's ceiling (lifecycle.h) */
		if (err || !v || v > 50000) {
			snprintf(msg, msg_len,
				 "continuous_frequency: '%s' is not a rate in 1..50000 Hz", val);
			return -EINVAL;
		}
		c->continuous_freq_hz = v;
		return 0;
	}
	if (!strcmp(key, "max_file_size") || !strcmp(key, "max_total_size")) {
		err = units_parse_size(val, &v);
		/* below one FXT prologue and a few records a file is useless */
		if (err || v < 65536) {
			snprintf(msg, msg_len, "%s: '%s' is not a size of at least 64K", key, val);
			return -EINVAL;
		}
		if (!strcmp(key, "max_file_size"))
			c->max_file_size = v;
		else
			c->max_total_size = v;
		return 0;
	}
	if (!strcmp(key, "max_file_age")) {
		err = units_parse_duration_s(val, &v);
		if (err || !v) {
			snprintf(msg, msg_len,
				 "max_file_age: '%s' is not a duration like 30m or 1h", val);
			return -EINVAL;
		}
		c->max_file_age_s = v;
		return 0;
	}
	if (!strcmp(key, "buffer_size")) {
		err = units_parse_size(val, &v);
		if (err || v < MIN_BUFFER || v > MAX_BUFFER || (v & (v - 1))) {
			snprintf(msg, msg_len,
				 "buffer_size: '%s' is not a power of two between 4K and 1G", val);
			return -EINVAL;
		}
		c->buffer_size = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "max_frames")) {
		err = units_parse_u64(val, &v);
		if (err || !v || v > FXS_MAX_FRAMES) {
			snprintf(msg, msg_len, "max_frames: '%s' is not in 1..%d", val,
				 FXS_MAX_FRAMES);
			return -EINVAL;
		}
		c->max_frames = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "unwind")) {
		if (!strcmp(val, "auto") || !strcmp(val, "fp") || !strcmp(val, "cfi")) {
			c->unwind = val[0] == 'a'   ? FXS_UNWIND_AUTO
				    : val[0] == 'f' ? FXS_UNWIND_FP
						    : FXS_UNWIND_CFI;
		} else {
			snprintf(msg, msg_len, "unwind: '%s' is not auto, fp or cfi", val);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "cfi_memory")) {
		if (!strcmp(val, "auto")) {
			c->cfi_memory = 0;
			return 0;
		}
		err = units_parse_size(val, &v);
		if (err || v < (64ULL << 10) || v > (1ULL << 30)) {
			snprintf(msg, msg_len,
				 "cfi_memory: '%s' is not auto or a size from 64K to 1G", val);
			return -EINVAL;
		}
		c->cfi_memory = v;
		return 0;
	}
	if (!strcmp(key, "max_clients")) {
		err = units_parse_u64(val, &v);
		if (err || !v || v > 1024) {
			snprintf(msg, msg_len, "max_clients: '%s' is not in 1..1024", val);
			return -EINVAL;
		}
		c->max_clients = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "max_clients_per_uid")) {
		err = units_parse_u64(val, &v);
		if (err || !v || v > 1024) {
			snprintf(msg, msg_len, "max_clients_per_uid: '%s' is not in 1..1024", val);
			return -EINVAL;
		}
		c->max_clients_per_uid = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "handshake_timeout") || !strcmp(key, "idle_timeout") ||
	    !strcmp(key, "client_read_timeout") || !strcmp(key, "max_session_length") ||
	    !strcmp(key, "max_root_session_length")) {
		bool may_be_off = !strcmp(key, "max_session_length") ||
				  !strcmp(key, "max_root_session_length") ||
				  !strcmp(key, "idle_timeout");

		err = units_parse_duration_s(val, &v);
		/* a day is plenty for a handshake, a month for a session */
		if (err || (!v && !may_be_off) || v > 30 * 86400ULL) {
			snprintf(msg, msg_len, "%s: '%s' is not a duration like 30s or 5m%s", key,
				 val, may_be_off ? " (0: none)" : "");
			return -EINVAL;
		}
		if (!strcmp(key, "handshake_timeout"))
			c->handshake_timeout_s = v;
		else if (!strcmp(key, "idle_timeout"))
			c->idle_timeout_s = v;
		else if (!strcmp(key, "client_read_timeout"))
			c->client_read_timeout_s = v;
		else if (!strcmp(key, "max_session_length"))
			c->max_session_length_s = v;
		else
			c->max_root_session_length_s = v;
		return 0;
	}
	if (!strcmp(key, "http_listen")) {
		struct http_addr a;

		if (!strcmp(val, "off")) {
			c->http_listen[0] = '\0';
			return 0;
		}
		err = http_addr_parse(val, &a, msg, msg_len);
		if (!err)
			strcpy(c->http_listen, val);
		return err;
	}
	if (!strcmp(key, "http_token_file")) {
		if (val[0] != '/' || strlen(val) >= sizeof(c->http_token_file)) {
			snprintf(msg, msg_len, "http_token_file: '%s' is not an absolute path",
				 val);
			return -EINVAL;
		}
		strcpy(c->http_token_file, val);
		return 0;
	}
	if (!strcmp(key, "http_max_scrapes")) {
		err = units_parse_u64(val, &v);
		if (err || !v || v > 64) {
			snprintf(msg, msg_len, "http_max_scrapes: '%s' is not in 1..64", val);
			return -EINVAL;
		}
		c->http_max_scrapes = (uint32_t)v;
		return 0;
	}
	if (!strcmp(key, "http_max_seconds")) {
		err = units_parse_duration_s(val, &v);
		if (err || !v || v > 3600) {
			snprintf(msg, msg_len,
				 "http_max_seconds: '%s' is not a duration from 1s to 1h", val);
			return -EINVAL;
		}
		c->http_max_seconds = v;
		return 0;
	}
	snprintf(msg, msg_len, "unknown key '%s'", key);
	return -EINVAL;
}

/* A size as the configuration would spell it: 64M, 1G, 100K or bytes. */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	if (v && !(v % (1ULL << 30)))
		snprintf(buf, len, "%lluG", (unsigned long long)(v >> 30));
	else if (v && !(v % (1ULL << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v && !(v % (1ULL << 10)))
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

int daemon_config_check(const struct daemon_config *c, char *msg, size_t msg_len)
{
	char file[32], total[32];

	fmt_size(file, sizeof(file), c->max_file_size);
	fmt_size(total, sizeof(total), c->max_total_size);
	if (!c->max_file_size || !c->max_total_size) {
		snprintf(msg, msg_len, "%s = 0: a size of zero holds no capture",
			 c->max_file_size ? "max_total_size" : "max_file_size");
		return -EINVAL;
	}
	if (c->http_listen[0]) {
		struct http_addr a;

		/* the profile covers every process of the host: admins only */
		if (!http_addr_parse(c->http_listen, &a, msg, msg_len) && !a.is_unix &&
		    !a.is_loopback && !c->http_token_file[0]) {
			snprintf(msg, msg_len,
				 "http_listen = %s is not loopback: it needs http_token_file (a "
				 "bearer token), or listen on 127.0.0.1 or a unix socket",
				 c->http_listen);
			return -EINVAL;
		}
	}
	if (!c->max_file_age_s) {
		snprintf(msg, msg_len, "max_file_age = 0: files must last at least a second");
		return -EINVAL;
	}
	/*
	 * Rotation reserves max_file_size for the file it starts: a smaller
	 * budget would delete the file just completed at every rotation.
	 */
	if (c->max_total_size / 2 < c->max_file_size) {
		snprintf(msg, msg_len,
			 "max_total_size = %s is less than twice max_file_size = %s: the budget "
			 "must hold the file being written and the last complete one",
			 total, file);
		return -EINVAL;
	}
	return 0;
}

/* The keys set so far and where, to refuse a key set twice. */
struct seen_keys {
	struct {
		char key[32];
		unsigned line;
	} v[32];
	unsigned n;
};

/* The line that set key before, else 0; remembers key at lineno. */
static unsigned seen_before(struct seen_keys *seen, const char *key, unsigned lineno)
{
	unsigned i;

	for (i = 0; i < seen->n; i++)
		if (!strcmp(seen->v[i].key, key))
			return seen->v[i].line;
	/* Only known keys get here (apply() refused the rest): they are few and short. */
	if (seen->n < sizeof(seen->v) / sizeof(seen->v[0]) &&
	    strlen(key) < sizeof(seen->v[0].key)) {
		strcpy(seen->v[seen->n].key, key);
		seen->v[seen->n++].line = lineno;
	}
	return 0;
}

int daemon_config_parse(FILE *f, const char *name, struct daemon_config *cfg, char *err,
			size_t err_len)
{
	struct daemon_config c = *cfg;
	struct seen_keys seen = {.n = 0};
	char *line = NULL, msg[512];
	char *s, *eq, *key, *val;
	unsigned lineno = 0, first;
	size_t cap = 0, len;
	ssize_t got;
	int ret = 0;

	errno = 0;
	while ((got = getline(&line, &cap, f)) >= 0) {
		lineno++;
		len = (size_t)got;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > LINE_MAX_LEN - 2) {
			snprintf(err, err_len, "%s:%u: line longer than %d characters", name,
				 lineno, LINE_MAX_LEN - 2);
			ret = -EINVAL;
			goto out;
		}
		/* A NUL would end the line early for every reader here: refuse it. */
		if (memchr(line, '\0', len)) {
			snprintf(err, err_len, "%s:%u: a NUL byte in the line", name, lineno);
			ret = -EINVAL;
			goto out;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, err_len, "%s:%u: expected 'key = value'", name, lineno);
			ret = -EINVAL;
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (!*key || !*val) {
			snprintf(err, err_len, "%s:%u: expected 'key = value'", name, lineno);
			ret = -EINVAL;
			goto out;
		}
		ret = apply(&c, key, val, msg, sizeof(msg));
		if (ret) {
			snprintf(err, err_len, "%s:%u: %s", name, lineno, msg);
			goto out;
		}
		/* Which of two values was meant is anyone's guess: say so. */
		first = seen_before(&seen, key, lineno);
		if (first) {
			snprintf(err, err_len, "%s:%u: %s is set twice (first on line %u)", name,
				 lineno, key, first);
			ret = -EINVAL;
			goto out;
		}
		errno = 0;
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;
		snprintf(err, err_len, "%s: read error: %s", name, strerror(-ret));
		goto out;
	}
	ret = daemon_config_check(&c, msg, sizeof(msg));
	if (ret) {
		snprintf(err, err_len, "%s: %s", name, msg);
		goto out;
	}
	*cfg = c;
out:
	free(line);
	return ret;
}

/*
 * The file at path, read whole: opened as any file named by someone else
 * (safe_open.h: a FIFO does not block, only a regular file is read) and no
 * larger than DAEMON_CONFIG_MAX_SIZE. A string stream of it, or NULL with
 * the message in err and -errno in *ret_err (-EINVAL: not a config file).
 */
static FILE *read_config(const char *path, char **ret_buf, char *err, size_t err_len, int *ret_err)
{
	struct stat st;
	size_t n = 0;
	ssize_t got;
	char *buf;
	FILE *f;
	int fd;

	fd = safe_open_regular(path, &st);
	/* `-c /dev/null` is the usual way to say "no settings": the null device reads empty. */
	if (fd == -SAFE_OPEN_ENOTREG && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		buf = malloc(1);
		f = buf ? fmemopen(buf, 1, "r") : NULL;
		if (!f) {
			free(buf);
			snprintf(err, err_len, "%s: %s", path, strerror(ENOMEM));
			*ret_err = -ENOMEM;
			return NULL;
		}
		buf[0] = '\n';
		*ret_buf = buf;
		return f;
	}
	if (fd == -SAFE_OPEN_ENOTREG) {
		/* A directory has an errno of its own; other kinds are named. */
		if (S_ISDIR(st.st_mode))
			snprintf(err, err_len, "%s: %s: the configuration must be a regular file",
				 path, strerror(EISDIR));
		else
			snprintf(err, err_len, "%s: not a regular file (%s)", path,
				 safe_open_type_name(st.st_mode));
		*ret_err = -EINVAL;
		return NULL;
	}
	if (fd < 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(-fd));
		*ret_err = fd;
		return NULL;
	}
	if (st.st_size > DAEMON_CONFIG_MAX_SIZE) {
		snprintf(err, err_len, "%s: %lld bytes: a configuration has at most %d", path,
			 (long long)st.st_size, DAEMON_CONFIG_MAX_SIZE);
		close(fd);
		*ret_err = -EFBIG;
		return NULL;
	}
	/* One byte more than allowed tells a file that grew since fstat(). */
	buf = malloc(DAEMON_CONFIG_MAX_SIZE + 1);
	if (!buf) {
		snprintf(err, err_len, "%s: %s", path, strerror(ENOMEM));
		close(fd);
		*ret_err = -ENOMEM;
		return NULL;
	}
	while (n <= DAEMON_CONFIG_MAX_SIZE &&
	       (got = read(fd, buf + n, DAEMON_CONFIG_MAX_SIZE + 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*ret_err = -errno;
			snprintf(err, err_len, "%s: read error: %s", path, strerror(errno));
			goto fail;
		}
		n += (size_t)got;
	}
	if (n > DAEMON_CONFIG_MAX_SIZE) {
		snprintf(err, err_len, "%s: a configuration has at most %d bytes", path,
			 DAEMON_CONFIG_MAX_SIZE);
		*ret_err = -EFBIG;
		goto fail;
	}
	close(fd);
	fd = -1;
	/* fmemopen() of zero bytes fails: an empty file is a stream of one newline. */
	if (!n)
		buf[n++] = '\n';
	f = fmemopen(buf, n, "r");
	if (!f) {
		*ret_err = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		goto fail;
	}
	*ret_buf = buf;
	return f;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

int daemon_config_load(const char *path, bool must_exist, struct daemon_config *ret, char *err,
		       size_t err_len)
{
	struct daemon_config c;
	char *buf = NULL;
	FILE *f;
	int e = 0;

	daemon_config_defaults(&c);
	f = read_config(path, &buf, err, err_len, &e);
	if (!f) {
		if (e == -ENOENT && !must_exist) {
			*ret = c;
			return 0;
		}
		return e;
	}
	e = daemon_config_parse(f, path, &c, err, err_len);
	fclose(f);
	free(buf);
	if (e)
		return e;
	*ret = c;
	return 0;
}
