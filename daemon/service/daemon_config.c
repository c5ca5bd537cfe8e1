// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/daemon_config.h"
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
		.max_frames = 64,
		.unwind = FXS_UNWIND_AUTO,
		.cfi_memory = 16ULL << 20, /* capture.h's CAPTURE_CFI_CAP_DEFAULT */
		.max_clients = 16,
		/* below max_clients: one user's idle connections cannot lock the others out */
		.max_clients_per_uid = 4,
		.handshake_timeout_s = 5,
		.idle_timeout_s = 60,
		.client_read_timeout_s = 30,
		.max_session_length_s = 0,
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
		if (err || !v || v > 255) {
			snprintf(msg, msg_len, "max_frames: '%s' is not in 1..255", val);
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
		err = units_parse_size(val, &v);
		if (err || v < (64ULL << 10) || v > (128ULL << 20)) {
			snprintf(msg, msg_len, "cfi_memory: '%s' is not a size from 64K to 128M",
				 val);
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
	    !strcmp(key, "client_read_timeout") || !strcmp(key, "max_session_length")) {
		bool may_be_off =
			!strcmp(key, "max_session_length") || !strcmp(key, "idle_timeout");

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
		else
			c->max_session_length_s = v;
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

int daemon_config_parse(FILE *f, const char *name, struct daemon_config *cfg, char *err,
			size_t err_len)
{
	struct daemon_config c = *cfg;
	char line[LINE_MAX_LEN], msg[512];
	char *s, *eq, *key, *val;
	unsigned lineno = 0;
	size_t len;
	int ret;

	while (fgets(line, sizeof(line), f)) {
		lineno++;
		len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' && !feof(f)) {
			snprintf(err, err_len, "%s:%u: line longer than %d characters", name,
				 lineno, LINE_MAX_LEN - 2);
			return -EINVAL;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, err_len, "%s:%u: expected 'key = value'", name, lineno);
			return -EINVAL;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (!*key || !*val) {
			snprintf(err, err_len, "%s:%u: expected 'key = value'", name, lineno);
			return -EINVAL;
		}
		ret = apply(&c, key, val, msg, sizeof(msg));
		if (ret) {
			snprintf(err, err_len, "%s:%u: %s", name, lineno, msg);
			return ret;
		}
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, err_len, "%s: read error", name);
		return ret;
	}
	ret = daemon_config_check(&c, msg, sizeof(msg));
	if (ret) {
		snprintf(err, err_len, "%s: %s", name, msg);
		return ret;
	}
	*cfg = c;
	return 0;
}

int daemon_config_load(const char *path, bool must_exist, struct daemon_config *ret, char *err,
		       size_t err_len)
{
	struct daemon_config c;
	FILE *f;
	int e;

	daemon_config_defaults(&c);
	f = fopen(path, "re");
	if (!f) {
		e = -errno;
		if (e == -ENOENT && !must_exist) {
			*ret = c;
			return 0;
		}
		snprintf(err, err_len, "%s: %s", path, strerror(-e));
		return e;
	}
	e = daemon_config_parse(f, path, &c, err, err_len);
	fclose(f);
	if (e)
		return e;
	*ret = c;
	return 0;
}
