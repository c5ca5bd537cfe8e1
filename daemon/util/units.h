/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one parser of counts, sizes and durations, for the command line and
 * fxsamplerd.conf alike, so a value means the same in both. Strict: the
 * whole string is a decimal number, then at most one unit, nothing else (no
 * sign, blank, fraction, hexadecimal or exponent). Units are matched without
 * regard to case. Each returns 0 and sets *ret, or -EINVAL (garbage, a sign,
 * an unknown unit) or -ERANGE (the result overflows 64 bits), leaving *ret
 * alone. A NULL string is -EINVAL.
 */
#ifndef FXS_DAEMON_UNITS_H
#define FXS_DAEMON_UNITS_H

#include <stdint.h>

/* A plain count: "0", "999"; no unit. */
int units_parse_u64(const char *s, uint64_t *ret);

/*
 * Bytes: a bare number, or with B; K, KB, KiB (1024); M, MB, MiB (1024^2);
 * G, GB, GiB (1024^3). KB and KiB alike are powers of 1024.
 */
int units_parse_size(const char *s, uint64_t *ret);

/*
 * Nanoseconds: ns, us, ms, s, m or min (60 s), h, d (86400 s); a bare number
 * is seconds.
 */
int units_parse_duration_ns(const char *s, uint64_t *ret_ns);

/*
 * The same spellings in whole seconds, for settings kept in seconds: a
 * sub-second unit must add up to whole seconds ("2000ms"; "1500ms" is
 * -EINVAL).
 */
int units_parse_duration_s(const char *s, uint64_t *ret_s);

/* A hexadecimal digit's value (either case), or -1: for the parsers of /proc's and perf's text. */
static inline int units_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif /* FXS_DAEMON_UNITS_H */
