// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "capture/lifecycle.h"
#include "sampler.h"
#include "check_main.h"

#define MAX_ARGS 64
#define POOL	 8192

/* argv as the CLI hands it over: writable strings that outlive the result. */
static char pool[POOL];
static char *argv_buf[MAX_ARGS + 2];
static int argc_buf;
static char err[256];
static struct record_args ra;
static char cmdline[1024];

static int parse_list(const char *const *args)
{
	size_t used = 0;

	argc_buf = 0;
	cmdline[0] = '\0';
	for (int i = -1; i < 0 || args[i]; i++) {
		const char *a = i < 0 ? "record" : args[i];
		size_t len = strlen(a) + 1;

		ck_assert_int_lt(argc_buf, MAX_ARGS);
		ck_assert_uint_le(used + len, POOL);
		memcpy(pool + used, a, len);
		argv_buf[argc_buf++] = pool + used;
		used += len;
		if (strlen(cmdline) + len + 3 < sizeof(cmdline))
			snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline),
				 "%s'%s'", i < 0 ? "" : " ", a);
	}
	argv_buf[argc_buf] = NULL;
	/* Garbage in both outputs: an error must write err and leave ra alone. */
	memset(err, 'x', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	memset(&ra, 0x5a, sizeof(ra));
	return args_parse_record(argc_buf, argv_buf, &ra, err, sizeof(err));
}

#define PARSE(...)   parse_list((const char *const[]){__VA_ARGS__, NULL})
#define PARSE_NONE() parse_list((const char *const[]){NULL})

static void accept(const char *const *args)
{
	int rc = parse_list(args);

	ck_assert_msg(rc == ARGS_RUN, "%s: got %d, error '%s'", cmdline, rc, err);
	ck_assert_str_eq(err, "");
}

#define ACCEPT(...) accept((const char *const[]){__VA_ARGS__, NULL})

/* Rejected with -EINVAL, a one-line reason naming `needle`, and *ret untouched. */
static void reject(const char *needle, const char *const *args)
{
	unsigned char untouched[sizeof(ra)];
	int rc = parse_list(args);

	memset(untouched, 0x5a, sizeof(untouched));
	ck_assert_msg(rc == -EINVAL, "%s: got %d, want -EINVAL", cmdline, rc);
	ck_assert_msg(err[0] != '\0' && err[0] != 'x', "%s: no error message", cmdline);
	ck_assert_msg(strlen(err) < sizeof(err) - 1, "%s: error not written", cmdline);
	ck_assert_msg(!strchr(err, '\n'), "%s: error '%s' has a newline", cmdline, err);
	ck_assert_msg(strstr(err, needle), "%s: error '%s' does not name '%s'", cmdline, err,
		      needle);
	ck_assert_msg(!memcmp(&ra, untouched, sizeof(ra)), "%s: *ret written on error", cmdline);
}

#define REJECT(needle, ...) reject(needle, (const char *const[]){__VA_ARGS__, NULL})

/* --- defaults and simple flags --- */

START_TEST(test_defaults)
{
	ck_assert_int_eq(PARSE_NONE(), ARGS_RUN);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(ra.capture.freq_hz, 999);
	ck_assert_uint_eq(ra.capture.freq_hz, ARGS_DEFAULT_FREQ);
	ck_assert_uint_eq(ra.capture.period_ns, 0);
	ck_assert_uint_eq(ra.capture.buffer_size, 2U << 20);
	/* issue 37: 2 % of a clang++ compile's stacks are deeper than 127 */
	ck_assert_uint_eq(ra.capture.max_frames, 255);
	/* 0: sized from the machine's memory when the capture loads */
	ck_assert_uint_eq(ra.capture.cfi_cap_bytes, 0);
	ck_assert_uint_eq(ra.capture.nr_pids, 0);
	ck_assert(ra.capture.inherit);
	ck_assert(ra.all);
	ck_assert_uint_eq(ra.duration_ns, 0);
	ck_assert_str_eq(ra.output, "fxsampler.fxt");
	ck_assert_ptr_null(ra.cmd);
	ck_assert(!ra.compress);
	ck_assert(!ra.quiet);
	ck_assert(!ra.verbose);
	ck_assert(!ra.use_daemon);
	ck_assert_ptr_null(ra.socket);
	ck_assert(!ra.capture.preempt);
	/* mappings come from the kernel's events unless --no-mmap-events */
	ck_assert(!ra.capture.proc_maps_only);

	/* The defaults make a valid sampler config. */
	{
		struct sampler_config cfg = {
			.period_ns = ra.capture.period_ns,
			.freq_hz = ra.capture.freq_hz,
			.buffer_size = ra.capture.buffer_size,
			.max_frames = ra.capture.max_frames,
		};

		ck_assert_int_eq(sampler_config_check(&cfg), 0);
	}
}
END_TEST

START_TEST(test_flags)
{
	ACCEPT("--no-inherit");
	ck_assert(!ra.capture.inherit);
	ck_assert(!ra.compress);

	ACCEPT("-z");
	ck_assert(ra.compress);
	ck_assert(ra.capture.inherit);
	ACCEPT("--compress");
	ck_assert(ra.compress);

	ACCEPT("-q", "-v", "--daemon", "--socket", "/tmp/s.sock", "-o", "out.fxt");
	ck_assert(ra.quiet);
	ck_assert(ra.verbose);
	ck_assert(ra.use_daemon);
	ck_assert_str_eq(ra.socket, "/tmp/s.sock");
	ck_assert_str_eq(ra.output, "out.fxt");
	/* Values point into argv. */
	ck_assert_ptr_eq(ra.output, argv_buf[7]);

	ACCEPT("-zqv", "--output=o2.fxt", "--quiet", "--verbose");
	ck_assert(ra.compress && ra.quiet && ra.verbose);
	ck_assert_str_eq(ra.output, "o2.fxt");

	ACCEPT("-a");
	ck_assert(ra.all);
	ACCEPT("--all");
	ck_assert(ra.all);

	/* --preempt goes through the daemon, the only one that can end a session */
	ACCEPT("--preempt", "-d", "1s");
	ck_assert(ra.capture.preempt);
	ck_assert(ra.use_daemon);

	/* --no-mmap-events: the /proc reads of before, for the bench's baseline */
	ACCEPT("--no-mmap-events", "-a");
	ck_assert(ra.capture.proc_maps_only);
	ck_assert(!ra.use_daemon);
	REJECT("no-mmap-events", "--no-mmap-events=yes");

	REJECT("output", "-o", "");
}
END_TEST

START_TEST(test_help_version)
{
	ck_assert_int_eq(PARSE("--help"), ARGS_HELP);
	ck_assert_int_eq(PARSE("-h"), ARGS_HELP);
	ck_assert_int_eq(PARSE("-F", "100", "--help"), ARGS_HELP);
	ck_assert_int_eq(PARSE("--version"), ARGS_VERSION);
	ck_assert_int_eq(PARSE("-V"), ARGS_VERSION);
	ck_assert_int_eq(PARSE("-q", "-V"), ARGS_VERSION);
	/* After "--" it is the command's flag. */
	ck_assert_int_eq(PARSE("--", "cmd", "--help"), ARGS_RUN);
	ck_assert_str_eq(ra.cmd[1], "--help");
	/* The usage names every option the parser takes. */
	ck_assert_ptr_nonnull(strstr(args_record_usage, "--period"));
	ck_assert_ptr_nonnull(strstr(args_record_usage, "--buffer-size"));
	ck_assert_ptr_nonnull(strstr(args_record_usage, "--max-frames"));
	ck_assert_ptr_nonnull(strstr(args_record_usage, "--no-inherit"));
}
END_TEST

/* --- rate: -F and --period --- */

START_TEST(test_freq)
{
	ACCEPT("-F", "50000");
	ck_assert_uint_eq(ra.capture.freq_hz, 50000);
	ck_assert_uint_eq(ra.capture.period_ns, 0);
	ACCEPT("-F", "1");
	ck_assert_uint_eq(ra.capture.freq_hz, 1);
	ACCEPT("-F49");
	ck_assert_uint_eq(ra.capture.freq_hz, 49);
	ACCEPT("--freq", "4999");
	ck_assert_uint_eq(ra.capture.freq_hz, 4999);
	ACCEPT("--freq=250");
	ck_assert_uint_eq(ra.capture.freq_hz, 250);

	REJECT("'0'", "-F", "0");
	REJECT("'-5'", "-F", "-5");
	REJECT("abc", "-F", "abc");
	REJECT("99x", "-F", "99x");
	REJECT("50001", "-F", "50001");
	REJECT("100000", "-F", "100000");
	REJECT("18446744073709551616", "-F", "18446744073709551616");
	REJECT("0x10", "-F", "0x10");
	REJECT("'+5'", "-F", "+5");
	REJECT("' 5'", "-F", " 5");
	REJECT("'5 '", "-F", "5 ");
	REJECT("1.5", "-F", "1.5");
	REJECT("''", "-F", "");
}
END_TEST

START_TEST(test_period)
{
	ACCEPT("--period", "1ms");
	ck_assert_uint_eq(ra.capture.period_ns, 1000000);
	ck_assert_uint_eq(ra.capture.freq_hz, 0);
	ACCEPT("--period", "20us");
	ck_assert_uint_eq(ra.capture.period_ns, 20000);
	ACCEPT("--period=250us");
	ck_assert_uint_eq(ra.capture.period_ns, 250000);
	ACCEPT("--period", "1");
	ck_assert_uint_eq(ra.capture.period_ns, 1000000000ULL);
	ACCEPT("--period", "20000ns");
	ck_assert_uint_eq(ra.capture.period_ns, 20000);

	REJECT("'0'", "--period", "0");
	REJECT("0ms", "--period", "0ms");
	REJECT("5us", "--period", "5us");
	REJECT("19999ns", "--period", "19999ns");
	REJECT("10us", "--period", "10us");
	REJECT("-1ms", "--period", "-1ms");
	REJECT("abc", "--period", "abc");
	REJECT("1.5ms", "--period", "1.5ms");
	REJECT("1 ms", "--period", "1 ms");
	REJECT("99999999999h", "--period", "99999999999h");
}
END_TEST

START_TEST(test_freq_and_period_exclude)
{
	REJECT("--period", "-F", "99", "--period", "1ms");
	ck_assert_ptr_nonnull(strstr(err, "-F"));
	REJECT("-F", "--period", "1ms", "-F", "99");
	ck_assert_ptr_nonnull(strstr(err, "--period"));
	REJECT("--period", "--freq", "99", "--period=1ms");
	/* A bad value is reported as such, before the conflict. */
	REJECT("'0'", "-F", "0", "--period", "1ms");
}
END_TEST

/* --- buffer and frames --- */

START_TEST(test_buffer_size)
{
	ACCEPT("--buffer-size", "64K");
	ck_assert_uint_eq(ra.capture.buffer_size, 65536);
	ACCEPT("--buffer-size", "2M");
	ck_assert_uint_eq(ra.capture.buffer_size, 2U << 20);
	ACCEPT("--buffer-size", "4096");
	ck_assert_uint_eq(ra.capture.buffer_size, 4096);
	ACCEPT("--buffer-size", "4K");
	ck_assert_uint_eq(ra.capture.buffer_size, 4096);
	ACCEPT("--buffer-size=1G");
	ck_assert_uint_eq(ra.capture.buffer_size, 1U << 30);
	ACCEPT("--buffer-size", "8MiB");
	ck_assert_uint_eq(ra.capture.buffer_size, 8U << 20);
	ACCEPT("--buffer-size", "2MB");
	ck_assert_uint_eq(ra.capture.buffer_size, 2U << 20);
	ACCEPT("--buffer-size", "64k");
	ck_assert_uint_eq(ra.capture.buffer_size, 65536);

	REJECT("3000", "--buffer-size", "3000");
	REJECT("2048", "--buffer-size", "2048");
	REJECT("2G", "--buffer-size", "2G");
	REJECT("'0'", "--buffer-size", "0");
	REJECT("'-1'", "--buffer-size", "-1");
	REJECT("abc", "--buffer-size", "abc");
	REJECT("4097", "--buffer-size", "4097");
	REJECT("3M", "--buffer-size", "3M");
	REJECT("2T", "--buffer-size", "2T");
	/* 2^32: would be 0 as a u32. */
	REJECT("4294967296", "--buffer-size", "4294967296");
	REJECT("4G", "--buffer-size", "4G");
	REJECT("18446744073709551616", "--buffer-size", "18446744073709551616");
	REJECT("17179869184G", "--buffer-size", "17179869184G");
}
END_TEST

START_TEST(test_max_frames)
{
	ACCEPT("--max-frames", "1");
	ck_assert_uint_eq(ra.capture.max_frames, 1);
	ACCEPT("--max-frames", "255");
	ck_assert_uint_eq(ra.capture.max_frames, 255);
	ACCEPT("--max-frames=32");
	ck_assert_uint_eq(ra.capture.max_frames, 32);

	REJECT("'0'", "--max-frames", "0");
	ACCEPT("--max-frames", "512");
	ck_assert_uint_eq(ra.capture.max_frames, 512);
	REJECT("513", "--max-frames", "513");
	REJECT("'-1'", "--max-frames", "-1");
	REJECT("abc", "--max-frames", "abc");
	REJECT("''", "--max-frames", "");
	REJECT("4294967297", "--max-frames", "4294967297");
	REJECT("10x", "--max-frames", "10x");
}
END_TEST

/* issue 37: up to 1 GiB of unwind tables (two LLVM-sized programs need 35 MB) */
START_TEST(test_cfi_memory)
{
	ACCEPT("--cfi-memory", "1G");
	ck_assert_uint_eq(ra.capture.cfi_cap_bytes, 1ULL << 30);
	ACCEPT("--cfi-memory", "64K");
	ck_assert_uint_eq(ra.capture.cfi_cap_bytes, 64ULL << 10);
	REJECT("a size from 64K to 1G", "--cfi-memory", "1025M");
	REJECT("a size from 64K to 1G", "--cfi-memory", "63K");
}
END_TEST

/* --- duration --- */

START_TEST(test_duration)
{
	static const struct {
		const char *arg;
		uint64_t ns;
	} ok[] = {
		{"10s", 10000000000ULL},
		{"500ms", 500000000ULL},
		{"2m", 120000000000ULL},
		{"1h", 3600000000000ULL},
		{"100us", 100000ULL},
		{"5", 5000000000ULL},
		{"1ns", 1ULL},
		/* the config's spellings, the same parser (util/units.h) */
		{"1d", 86400000000000ULL},
		{"10S", 10000000000ULL},
		{"2min", 120000000000ULL},
	};

	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ACCEPT("-d", ok[i].arg);
		ck_assert_msg(ra.duration_ns == ok[i].ns, "-d %s: %llu ns", ok[i].arg,
			      (unsigned long long)ra.duration_ns);
	}
	ACCEPT("--duration=3s");
	ck_assert_uint_eq(ra.duration_ns, 3000000000ULL);
	ACCEPT("-d30s");
	ck_assert_uint_eq(ra.duration_ns, 30000000000ULL);

	REJECT("'0'", "-d", "0");
	REJECT("0s", "-d", "0s");
	REJECT("5x", "-d", "5x");
	REJECT("'-1'", "-d", "-1");
	REJECT("abc", "-d", "abc");
	REJECT("10sec", "-d", "10sec");
	REJECT("''", "-d", "");
	REJECT("9999999999999h", "-d", "9999999999999h");
}
END_TEST

/* --- targets --- */

START_TEST(test_pids)
{
	char list[1024];
	size_t n = 0;

	ACCEPT("-p", "123,456");
	ck_assert_uint_eq(ra.capture.nr_pids, 2);
	ck_assert_uint_eq(ra.capture.pids[0], 123);
	ck_assert_uint_eq(ra.capture.pids[1], 456);
	ck_assert(!ra.all);
	ck_assert_ptr_null(ra.cmd);
	ck_assert(ra.capture.inherit);

	ACCEPT("--pid", "7");
	ck_assert_uint_eq(ra.capture.nr_pids, 1);
	ck_assert_uint_eq(ra.capture.pids[0], 7);
	ACCEPT("--pid=8", "-p", "9,10");
	ck_assert_uint_eq(ra.capture.nr_pids, 3);
	ck_assert_uint_eq(ra.capture.pids[0], 8);
	ck_assert_uint_eq(ra.capture.pids[2], 10);
	ACCEPT("-p", "1073741823");
	ck_assert_uint_eq(ra.capture.pids[0], 1073741823);

	REJECT("''", "-p", "");
	REJECT("1,,2", "-p", "1,,2");
	REJECT("1,", "-p", "1,");
	REJECT(",1", "-p", ",1");
	REJECT("','", "-p", ",");
	REJECT("'0'", "-p", "0");
	REJECT("'-1'", "-p", "-1");
	REJECT("abc", "-p", "abc");
	REJECT("12a", "-p", "5,12a");
	REJECT("' 1'", "-p", " 1");
	REJECT("4294967297", "-p", "4294967297");
	REJECT("99999999999999999999999", "-p", "99999999999999999999999");

	/* 64 pids fit, a 65th does not (in one list or across -p). */
	for (int i = 1; i <= CAPTURE_MAX_PIDS; i++)
		n += snprintf(list + n, sizeof(list) - n, "%s%d", i > 1 ? "," : "", 100 + i);
	ACCEPT("-p", list);
	ck_assert_uint_eq(ra.capture.nr_pids, CAPTURE_MAX_PIDS);
	ck_assert_uint_eq(ra.capture.pids[CAPTURE_MAX_PIDS - 1], 100 + CAPTURE_MAX_PIDS);
	REJECT("64", "-p", list, "-p", "999");
	snprintf(list + n, sizeof(list) - n, ",999");
	REJECT("64", "-p", list);
	ck_assert_ptr_nonnull(strstr(err, "pids"));
}
END_TEST

START_TEST(test_targets_exclude)
{
	REJECT("-p", "-p", "1", "--", "ls");
	REJECT("-a", "-a", "-p", "1");
	ck_assert_ptr_nonnull(strstr(err, "-p"));
	REJECT("-a", "-p", "1", "-a");
	REJECT("-a", "-a", "--", "ls");
}
END_TEST

START_TEST(test_command)
{
	ACCEPT("--", "cmd", "-x", "--y");
	ck_assert_ptr_nonnull(ra.cmd);
	ck_assert_ptr_eq(ra.cmd, &argv_buf[2]);
	ck_assert_str_eq(ra.cmd[0], "cmd");
	ck_assert_str_eq(ra.cmd[1], "-x");
	ck_assert_str_eq(ra.cmd[2], "--y");
	ck_assert_ptr_null(ra.cmd[3]);
	ck_assert(!ra.all);
	ck_assert_uint_eq(ra.capture.nr_pids, 0);

	/* Our flags before "--", the command's after it. */
	ACCEPT("-F", "100", "-o", "x.fxt", "--", "cmd", "-F", "5", "-o", "y", "--", "z");
	ck_assert_uint_eq(ra.capture.freq_hz, 100);
	ck_assert_str_eq(ra.output, "x.fxt");
	ck_assert_str_eq(ra.cmd[0], "cmd");
	ck_assert_str_eq(ra.cmd[1], "-F");
	ck_assert_str_eq(ra.cmd[5], "--");
	ck_assert_str_eq(ra.cmd[6], "z");
	ck_assert_ptr_null(ra.cmd[7]);

	/* "--" and nothing after: no command, the whole host. */
	ACCEPT("--");
	ck_assert_ptr_null(ra.cmd);
	ck_assert(ra.all);
}
END_TEST

START_TEST(test_stray_positional)
{
	REJECT("foo", "foo");
	REJECT("foo", "-F", "99", "foo");
	REJECT("foo", "foo", "--", "bar");
	REJECT("foo", "-p", "1", "foo");
	REJECT("'-'", "-");
	/* An option's value "--" does not end the options. */
	REJECT("ls", "-o", "--", "ls");
	REJECT("ls", "--socket", "--", "ls");
}
END_TEST

/* --- unknown options and missing values --- */

START_TEST(test_unknown_option)
{
	REJECT("--bogus", "--bogus");
	REJECT("--bogus", "-q", "--bogus", "-z");
	REJECT("-X", "-X");
	REJECT("--bogus=1", "--bogus=1");
	REJECT("--d", "--d", "1"); /* ambiguous: --duration or --daemon */
	/* Inside a cluster: the unknown letter, not a neighbour. */
	REJECT("-X", "-qX");
	REJECT("-X", "-Xq");
	REJECT("-X", "-q", "-Xz");
	ck_assert_ptr_null(strstr(err, "'-q'"));
	ck_assert_ptr_null(strstr(err, "record"));
	REJECT("-X", "-p", "1", "-zXq");
	ck_assert_ptr_null(strstr(err, "'1'"));
}
END_TEST

START_TEST(test_missing_value)
{
	REJECT("-F", "-F");
	REJECT("--period", "--period");
	REJECT("-d", "-d");
	REJECT("-o", "-o");
	REJECT("-p", "-p");
	REJECT("--buffer-size", "--buffer-size");
	REJECT("--max-frames", "--max-frames");
	REJECT("--socket", "--socket");
	REJECT("F", "-zF");
	REJECT("-F", "-q", "-F");
}
END_TEST

/* --- re-entrancy --- */

START_TEST(test_reentrant)
{
	REJECT("-X", "-Xq");
	ACCEPT("-q", "-F", "5");
	ck_assert_uint_eq(ra.capture.freq_hz, 5);
	ck_assert(ra.quiet);

	ACCEPT("-p", "1,2");
	ck_assert_uint_eq(ra.capture.nr_pids, 2);
	ACCEPT("-p", "3");
	ck_assert_uint_eq(ra.capture.nr_pids, 1);
	ck_assert_uint_eq(ra.capture.pids[0], 3);

	ACCEPT("--", "a", "b");
	ck_assert_ptr_nonnull(ra.cmd);
	ACCEPT("-a");
	ck_assert_ptr_null(ra.cmd);
	ck_assert(ra.all);

	/* A parse that stopped in the middle of a cluster leaves nothing behind. */
	ck_assert_int_eq(PARSE("-hq"), ARGS_HELP);
	ACCEPT("-z");
	ck_assert(!ra.quiet);
	ck_assert(ra.compress);
	ck_assert_uint_eq(ra.capture.freq_hz, ARGS_DEFAULT_FREQ);

	REJECT("foo", "foo");
	ACCEPT("--no-inherit");
	ck_assert(!ra.capture.inherit);
	ACCEPT("-v");
	ck_assert(ra.capture.inherit);
}
END_TEST

/* A message that does not fit is cut, still terminated. */
START_TEST(test_error_truncated)
{
	struct record_args a;
	char small[8];
	char arg0[] = "record", arg1[] = "-F", arg2[] = "123456789x";
	char *argv[] = {arg0, arg1, arg2, NULL};

	memset(small, 'x', sizeof(small));
	ck_assert_int_eq(args_parse_record(3, argv, &a, small, sizeof(small)), -EINVAL);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
}
END_TEST

static Suite *args_suite(void)
{
	Suite *s = suite_create("args");
	TCase *tc;

	tc = tcase_create("record");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_reentrant);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_freq);
	tcase_add_test(tc, test_period);
	tcase_add_test(tc, test_freq_and_period_exclude);
	tcase_add_test(tc, test_buffer_size);
	tcase_add_test(tc, test_max_frames);
	tcase_add_test(tc, test_cfi_memory);
	tcase_add_test(tc, test_duration);
	suite_add_tcase(s, tc);

	tc = tcase_create("targets");
	tcase_add_test(tc, test_pids);
	tcase_add_test(tc, test_targets_exclude);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_stray_positional);
	tcase_add_test(tc, test_unknown_option);
	tcase_add_test(tc, test_missing_value);
	tcase_add_test(tc, test_error_truncated);
	suite_add_tcase(s, tc);

	return s;
}

CHECK_MAIN(args_suite)
