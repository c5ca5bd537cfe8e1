// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "service/daemon_config.h"
#include "check_main.h"

#define DATA "tests/data/config/"

/* Parse text as a config file named "t.conf" on top of the defaults. */
static int parse_str(const char *text, struct daemon_config *c, char *err, size_t err_len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ck_assert_ptr_nonnull(f);
	daemon_config_defaults(c);
	ret = daemon_config_parse(f, "t.conf", c, err, err_len);
	fclose(f);
	return ret;
}

START_TEST(test_defaults)
{
	struct daemon_config c;

	daemon_config_defaults(&c);
	ck_assert_str_eq(c.socket_path, "/run/fxsampler/control.sock");
	ck_assert(!c.continuous);
	ck_assert_uint_eq(c.continuous_freq_hz, 19);
	ck_assert_str_eq(c.directory, "/var/lib/fxsampler");
	ck_assert_uint_eq(c.max_file_size, 64 << 20);
	ck_assert_uint_eq(c.max_file_age_s, 3600);
	ck_assert_uint_eq(c.max_total_size, 1 << 30);
	ck_assert_uint_eq(c.buffer_size, 256 << 10);
	ck_assert_uint_eq(c.max_frames, 255);
	ck_assert_uint_eq(c.cfi_memory, 0); /* auto: from the machine's memory */
	ck_assert_uint_eq(c.max_clients, 16);
	ck_assert_uint_eq(c.max_clients_per_uid, 4);
	ck_assert_uint_lt(c.max_clients_per_uid, c.max_clients);
	ck_assert_uint_eq(c.handshake_timeout_s, 5);
	ck_assert_uint_eq(c.idle_timeout_s, 60);
	ck_assert_uint_eq(c.client_read_timeout_s, 30);
	/* a user's session ends after an hour; root's does not */
	ck_assert_uint_eq(c.max_session_length_s, 3600);
	ck_assert_uint_eq(c.max_root_session_length_s, 0);
}
END_TEST

START_TEST(test_full_file)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(daemon_config_load(DATA "full.conf", true, &c, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	ck_assert_str_eq(c.socket_path, "/run/test/fxs.sock");
	ck_assert(c.continuous);
	ck_assert_uint_eq(c.continuous_freq_hz, 49);
	ck_assert_str_eq(c.directory, "/srv/fxs");
	ck_assert_uint_eq(c.max_file_size, 16 << 20);
	ck_assert_uint_eq(c.max_file_age_s, 1800);
	ck_assert_uint_eq(c.max_total_size, 2ULL << 30);
	ck_assert_uint_eq(c.buffer_size, 1 << 20);
	ck_assert_uint_eq(c.max_frames, 127);
	ck_assert_uint_eq(c.max_clients, 4);
	ck_assert_uint_eq(c.max_clients_per_uid, 2);
	ck_assert_uint_eq(c.handshake_timeout_s, 3);
	ck_assert_uint_eq(c.idle_timeout_s, 120);
	ck_assert_uint_eq(c.client_read_timeout_s, 10);
	ck_assert_uint_eq(c.max_session_length_s, 3600);
	ck_assert_uint_eq(c.max_root_session_length_s, 7200);
}
END_TEST

/* The shipped example holds only comments: it must give the defaults. */
START_TEST(test_example_is_defaults)
{
	struct daemon_config c, d;
	char err[256] = "";

	ck_assert_int_eq(daemon_config_load(DATA "fxsamplerd.conf", true, &c, err, sizeof(err)), 0);
	daemon_config_defaults(&d);
	ck_assert_str_eq(c.socket_path, d.socket_path);
	ck_assert_int_eq(c.continuous, d.continuous);
	ck_assert_uint_eq(c.continuous_freq_hz, d.continuous_freq_hz);
	ck_assert_str_eq(c.directory, d.directory);
	ck_assert_uint_eq(c.max_file_size, d.max_file_size);
	ck_assert_uint_eq(c.max_file_age_s, d.max_file_age_s);
	ck_assert_uint_eq(c.max_total_size, d.max_total_size);
	ck_assert_uint_eq(c.buffer_size, d.buffer_size);
	ck_assert_uint_eq(c.max_frames, d.max_frames);
	ck_assert_uint_eq(c.max_clients, d.max_clients);
	ck_assert_uint_eq(c.max_clients_per_uid, d.max_clients_per_uid);
	ck_assert_uint_eq(c.handshake_timeout_s, d.handshake_timeout_s);
	ck_assert_uint_eq(c.idle_timeout_s, d.idle_timeout_s);
	ck_assert_uint_eq(c.client_read_timeout_s, d.client_read_timeout_s);
	ck_assert_uint_eq(c.max_session_length_s, d.max_session_length_s);
	ck_assert_uint_eq(c.max_root_session_length_s, d.max_root_session_length_s);
}
END_TEST

START_TEST(test_missing_file)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(daemon_config_load(DATA "nope.conf", false, &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.continuous_freq_hz, 19);
	ck_assert_int_eq(daemon_config_load(DATA "nope.conf", true, &c, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, DATA "nope.conf: No such file or directory");
}
END_TEST

START_TEST(test_errors_name_the_line)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(daemon_config_load(DATA "bad_key.conf", true, &c, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, DATA "bad_key.conf:3: unknown key 'contiunous'");
	ck_assert_int_eq(daemon_config_load(DATA "bad_buffer.conf", true, &c, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, DATA "bad_buffer.conf:4: buffer_size: '3000' is not a power of two "
				   "between 4K and 1G");
}
END_TEST

START_TEST(test_bad_values)
{
	static const char *const bad[] = {
		"continuous = maybe\n",
		"continuous_frequency = 0\n",
		"continuous_frequency = 19K\n",
		"continuous_frequency = -5\n",
		"continuous_frequency = 100001\n",
		"continuous_frequency = 50001\n",
		"max_file_size = 1K\n",
		"max_file_size = 12Q\n",
		"max_file_size = 99999999999999999999G\n",
		"max_total_size = \n",
		"max_file_age = 0\n",
		"max_file_age = 5 weeks\n",
		"buffer_size = 2K\n",
		"buffer_size = 2G\n",
		"max_frames = 513\n",
		"max_clients = 0\n",
		"max_clients_per_uid = 0\n",
		"max_clients_per_uid = 2000\n",
		"handshake_timeout = 0\n",
		"client_read_timeout = 0\n",
		"client_read_timeout = soon\n",
		"max_session_length = 90d\n",
		"max_root_session_length = forever\n",
		"idle_timeout = -1\n",
		"socket = relative.sock\n",
		"socket = /a/very/long/path/that/goes/on/and/on/and/on/and/on/and/on/and/on/and/on/"
		"and/on/and/on/and/on/and/on/and/on/and/on/and/on.sock\n",
		"directory = var/lib\n",
		"just words\n",
		"= value\n",
	};
	struct daemon_config c;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(parse_str(bad[i], &c, err, sizeof(err)) == -EINVAL, "accepted %s",
			      bad[i]);
		ck_assert_msg(!strncmp(err, "t.conf:1: ", 10), "no line in '%s'", err);
	}
}
END_TEST

/*
 * Keys that are fine alone but impossible together, or sizes and ages that
 * hold nothing: refused with one line that names the keys and their values.
 */
START_TEST(test_bad_combinations)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		/* the case: the default 64M file in a 1M budget */
		{"continuous = yes\nmax_total_size = 1M\nmax_file_age = 10s\n",
		 "t.conf: max_total_size = 1M is less than twice max_file_size = 64M: the budget "
		 "must hold the file being written and the last complete one"},
		{"max_file_size = 64K\nmax_total_size = 127K\n",
		 "t.conf: max_total_size = 127K is less than twice max_file_size = 64K: the budget "
		 "must hold the file being written and the last complete one"},
		{"max_file_size = 600M\n",
		 "t.conf: max_total_size = 1G is less than twice max_file_size = 600M: the budget "
		 "must hold the file being written and the last complete one"},
		{"max_total_size = 131071\nmax_file_size = 65536\n",
		 "t.conf: max_total_size = 131071 is less than twice max_file_size = 64K: the "
		 "budget must hold the file being written and the last complete one"},
		/* zero sizes and ages under a second, in every spelling */
		{"max_file_size = 0\n",
		 "t.conf:1: max_file_size: '0' is not a size of at least 64K"},
		{"max_total_size = 0K\n",
		 "t.conf:1: max_total_size: '0K' is not a size of at least 64K"},
		{"max_file_age = 0\n",
		 "t.conf:1: max_file_age: '0' is not a duration like 30m or 1h"},
		{"max_file_age = 0s\n",
		 "t.conf:1: max_file_age: '0s' is not a duration like 30m or 1h"},
		{"max_file_age = 0h\n",
		 "t.conf:1: max_file_age: '0h' is not a duration like 30m or 1h"},
		{"max_file_age = 500ms\n",
		 "t.conf:1: max_file_age: '500ms' is not a duration like 30m or 1h"},
	};
	static const char *const good[] = {
		"max_file_size = 64K\nmax_total_size = 128K\n",
		"max_file_size = 512M\nmax_total_size = 1G\n",
		"max_total_size = 128M\n",
		"max_file_age = 1s\n",
	};
	struct daemon_config c, d;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(parse_str(bad[i].text, &c, err, sizeof(err)) == -EINVAL,
			      "accepted %s", bad[i].text);
		ck_assert_str_eq(err, bad[i].err);
		ck_assert_ptr_null(strchr(err, '\n'));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(parse_str(good[i], &c, err, sizeof(err)) == 0, "refused %s: %s",
			      good[i], err);

	/* The check on its own, for what no file can spell. */
	daemon_config_defaults(&c);
	ck_assert_int_eq(daemon_config_check(&c, err, sizeof(err)), 0);
	d = c;
	d.max_file_size = 0;
	ck_assert_int_eq(daemon_config_check(&d, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "max_file_size = 0: a size of zero holds no capture");
	d = c;
	d.max_total_size = 0;
	ck_assert_int_eq(daemon_config_check(&d, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "max_total_size = 0: a size of zero holds no capture");
	d = c;
	d.max_file_age_s = 0;
	ck_assert_int_eq(daemon_config_check(&d, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "max_file_age = 0: files must last at least a second");
	/* no overflow in twice a huge size */
	d = c;
	d.max_file_size = UINT64_MAX;
	d.max_total_size = UINT64_MAX;
	ck_assert_int_eq(daemon_config_check(&d, err, sizeof(err)), -EINVAL);

	/* A refused combination leaves the configuration alone (SIGHUP keeps the old one). */
	{
		static const char text[] = "continuous = yes\nmax_total_size = 1M\n";
		FILE *f = fmemopen((void *)text, strlen(text), "r");

		daemon_config_defaults(&c);
		d = c;
		ck_assert_int_eq(daemon_config_parse(f, "t.conf", &c, err, sizeof(err)), -EINVAL);
		fclose(f);
		ck_assert_mem_eq(&c, &d, sizeof(c));
	}
}
END_TEST

/* A failed parse leaves the configuration it started from alone (SIGHUP relies on it). */
START_TEST(test_failure_keeps_config)
{
	static const char text[] = "continuous = yes\nmax_frames = 10\nbogus = 1\n";
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct daemon_config c, d;
	char err[256];

	daemon_config_defaults(&c);
	d = c;
	ck_assert_int_eq(daemon_config_parse(f, "t.conf", &c, err, sizeof(err)), -EINVAL);
	fclose(f);
	ck_assert_str_eq(err, "t.conf:3: unknown key 'bogus'");
	ck_assert_mem_eq(&c, &d, sizeof(c));
}
END_TEST

START_TEST(test_long_line)
{
	char *text = malloc(5000);
	struct daemon_config c;
	char err[256];

	ck_assert_ptr_nonnull(text);
	strcpy(text, "# ok\nsocket = /");
	/* Every byte up to the newline written: the parser reads them all. */
	memset(text + strlen(text), 'a', 5000 - 2 - strlen(text));
	strcpy(text + 5000 - 2, "\n");
	ck_assert_int_eq(parse_str(text, &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: line longer than 4094 characters");
	free(text);
}
END_TEST

/*
 * The config spells sizes and durations as the command line does
 * (util/units.h, tested in tests/unit/util/check_units.c): `2MB` was refused
 * here while `--buffer-size 2MB` worked.
 */
START_TEST(test_units_as_cli)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(parse_str("buffer_size = 2MB\n"
				   "max_file_size = 16MB\n"
				   "max_total_size = 1GB\n"
				   "max_file_age = 1d\n"
				   "handshake_timeout = 2000ms\n"
				   "idle_timeout = 2min\n"
				   "client_read_timeout = 90\n",
				   &c, err, sizeof(err)),
			 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(c.buffer_size, 2U << 20);
	ck_assert_uint_eq(c.max_file_size, 16ULL << 20);
	ck_assert_uint_eq(c.max_total_size, 1ULL << 30);
	ck_assert_uint_eq(c.max_file_age_s, 86400);
	ck_assert_uint_eq(c.handshake_timeout_s, 2);
	ck_assert_uint_eq(c.idle_timeout_s, 120);
	ck_assert_uint_eq(c.client_read_timeout_s, 90);

	ck_assert_int_eq(
		parse_str("buffer_size = 4k\nmax_file_size = 64KiB\nmax_total_size = 3GiB\n", &c,
			  err, sizeof(err)),
		0);
	ck_assert_uint_eq(c.buffer_size, 4096);
	ck_assert_uint_eq(c.max_file_size, 65536);
	ck_assert_uint_eq(c.max_total_size, 3ULL << 30);

	/* Not whole seconds: refused, not rounded to 0 or 1. */
	ck_assert_int_eq(parse_str("handshake_timeout = 1500ms\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err,
			 "t.conf:1: handshake_timeout: '1500ms' is not a duration like 30s or 5m");
}
END_TEST

/* Booleans: yes/true/on/1 and no/false/off/0 in any case, nothing else. */
START_TEST(test_bools)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(parse_str("continuous = On\n", &c, err, sizeof(err)), 0);
	ck_assert(c.continuous);
	ck_assert_int_eq(parse_str("continuous = 0\n", &c, err, sizeof(err)), 0);
	ck_assert(!c.continuous);
	ck_assert_int_eq(parse_str("continuous = TRUE\n", &c, err, sizeof(err)), 0);
	ck_assert(c.continuous);
	ck_assert_int_eq(parse_str("continuous = y\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: continuous: 'y' is not yes or no");
}
END_TEST

/* A key set twice: which value was meant is a guess, so neither is taken. */
/* issue 37: cfi_memory up to 1G, or auto */
START_TEST(test_cfi_memory)
{
	struct daemon_config c;
	char err[256] = "";

	ck_assert_int_eq(parse_str("cfi_memory = 1G\n", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.cfi_memory, 1ULL << 30);
	ck_assert_int_eq(parse_str("cfi_memory = auto\n", &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.cfi_memory, 0);
	ck_assert_int_eq(parse_str("cfi_memory = 2G\n", &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: cfi_memory: '2G' is not auto or a size from 64K to 1G");
}
END_TEST

START_TEST(test_duplicate_key)
{
	struct daemon_config c, d;
	char err[256] = "";

	daemon_config_defaults(&d);
	ck_assert_int_eq(
		parse_str("max_clients = 4\n# again\nmax_clients = 5\n", &c, err, sizeof(err)),
		-EINVAL);
	ck_assert_str_eq(err, "t.conf:3: max_clients is set twice (first on line 1)");
	ck_assert_mem_eq(&c, &d, sizeof(c));
	/* The same value twice is refused too; other keys in between do not matter. */
	ck_assert_int_eq(parse_str("continuous = no\nmax_frames = 9\ncontinuous = no\n", &c, err,
				   sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "t.conf:3: continuous is set twice (first on line 1)");
}
END_TEST

/* "max_clients = 4\0junk" was taken as 4: the NUL ended the line for the parser. */
START_TEST(test_nul_byte)
{
	static const char text[] = "# ok\nmax_clients = 4\0junk\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct daemon_config c, d;
	char err[256] = "";

	ck_assert_ptr_nonnull(f);
	daemon_config_defaults(&c);
	d = c;
	ck_assert_int_eq(daemon_config_parse(f, "t.conf", &c, err, sizeof(err)), -EINVAL);
	fclose(f);
	ck_assert_str_eq(err, "t.conf:2: a NUL byte in the line");
	ck_assert_mem_eq(&c, &d, sizeof(c));
}
END_TEST

/* A temporary directory for files that are not regular ones. */
static void tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "%s/fxs_cfg.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* A FIFO as the config: refused at once (no writer to wait for), named. */
START_TEST(test_fifo_refused)
{
	struct daemon_config c;
	char dir[256], path[300], want[400], err[512] = "";

	tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fxsamplerd.conf", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(daemon_config_load(path, true, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file (fifo)", path);
	ck_assert_str_eq(err, want);
	/* Not even when the file is optional: it exists, and is not a config. */
	ck_assert_int_eq(daemon_config_load(path, false, &c, err, sizeof(err)), -EINVAL);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* A directory said only "read error"; now its errno. */
START_TEST(test_directory_refused)
{
	struct daemon_config c;
	char dir[256], want[400], err[512] = "";

	tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(daemon_config_load(dir, true, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: Is a directory: the configuration must be a regular file",
		 dir);
	ck_assert_str_eq(err, want);
	rmdir(dir);
}
END_TEST

START_TEST(test_too_large)
{
	struct daemon_config c;
	char dir[256], path[300], want[400], err[512] = "";
	FILE *f;

	tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	/* Comments only: the size alone refuses it. */
	for (int i = 0; i <= DAEMON_CONFIG_MAX_SIZE / 64; i++)
		fprintf(f, "# %061d\n", i);
	fclose(f);
	ck_assert_int_eq(daemon_config_load(path, true, &c, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: %d bytes: a configuration has at most %d", path,
		 (DAEMON_CONFIG_MAX_SIZE / 64 + 1) * 64, DAEMON_CONFIG_MAX_SIZE);
	ck_assert_str_eq(err, want);
	/* An empty file is the defaults. */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(daemon_config_load(path, true, &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.max_clients, 16);
	/* So is the null device, the usual "no settings" (another device is refused). */
	ck_assert_int_eq(daemon_config_load("/dev/null", true, &c, err, sizeof(err)), 0);
	ck_assert_uint_eq(c.max_clients, 16);
	ck_assert_int_eq(daemon_config_load("/dev/zero", true, &c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "/dev/zero: not a regular file (character device)");
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *daemon_config_suite(void)
{
	Suite *s = suite_create("daemon_config");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_full_file);
	tcase_add_test(tc, test_example_is_defaults);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_units_as_cli);
	tcase_add_test(tc, test_bools);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_errors_name_the_line);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_bad_combinations);
	tcase_add_test(tc, test_failure_keeps_config);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_duplicate_key);
	tcase_add_test(tc, test_cfi_memory);
	tcase_add_test(tc, test_nul_byte);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_fifo_refused);
	tcase_add_test(tc, test_directory_refused);
	tcase_add_test(tc, test_too_large);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(daemon_config_suite)
