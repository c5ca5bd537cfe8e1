// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <strings.h>

#include "util/units.h"

#define NSEC_PER_SEC 1000000000ULL

struct unit {
	const char *name; /* "" is the bare number */
	uint64_t scale;
};

static const struct unit size_units[] = {
	{"", 1},
	{"B", 1},
	{"K", 1ULL << 10},
	{"KB", 1ULL << 10},
	{"KiB", 1ULL << 10},
	{"M", 1ULL << 20},
	{"MB", 1ULL << 20},
	{"MiB", 1ULL << 20},
	{"G", 1ULL << 30},
	{"GB", 1ULL << 30},
	{"GiB", 1ULL << 30},
	{NULL, 0},
};

/* In nanoseconds; a bare number is seconds, as in both spellings before. */
static const struct unit duration_units[] = {
	{"", NSEC_PER_SEC},
	{"ns", 1},
	{"us", 1000ULL},
	{"ms", 1000000ULL},
	{"s", NSEC_PER_SEC},
	{"m", 60 * NSEC_PER_SEC},
	{"min", 60 * NSEC_PER_SEC},
	{"h", 3600 * NSEC_PER_SEC},
	{"d", 86400 * NSEC_PER_SEC},
	{NULL, 0},
};

static const struct unit no_units[] = {{"", 1}, {NULL, 0}};

/* The number and its unit's scale, unmultiplied: the caller picks the base. */
static int parse(const char *s, const struct unit *units, uint64_t *ret_v, uint64_t *ret_scale)
{
	unsigned long long v;
	char *end;

	/* strtoull takes blanks, signs and "0x"; none of them is a value here. */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno)
		return -EINVAL;
	for (; units->name; units++) {
		if (strcasecmp(end, units->name))
			continue;
		*ret_v = v;
		*ret_scale = units->scale;
		return 0;
	}
	return -EINVAL;
}

static int parse_scaled(const char *s, const struct unit *units, uint64_t *ret)
{
	uint64_t v, scale;
	int err = parse(s, units, &v, &scale);

	if (err)
		return err;
	if (v > UINT64_MAX / scale)
		return -ERANGE;
	*ret = v * scale;
	return 0;
}

int units_parse_u64(const char *s, uint64_t *ret)
{
	return parse_scaled(s, no_units, ret);
}

int units_parse_size(const char *s, uint64_t *ret)
{
	return parse_scaled(s, size_units, ret);
}

int units_parse_duration_ns(const char *s, uint64_t *ret_ns)
{
	return parse_scaled(s, duration_units, ret_ns);
}

int units_parse_duration_s(const char *s, uint64_t *ret_s)
{
	uint64_t v, scale, m;
	int err = parse(s, duration_units, &v, &scale);

	if (err)
		return err;
	if (scale >= NSEC_PER_SEC) {
		/* whole-second units: scale in seconds, so the range is 64 bits of seconds */
		m = scale / NSEC_PER_SEC;
		if (v > UINT64_MAX / m)
			return -ERANGE;
		*ret_s = v * m;
		return 0;
	}
	/* ns, us, ms divide a second: a whole number of seconds is v / (1s / scale) */
	m = NSEC_PER_SEC / scale;
	if (v % m)
		return -EINVAL;
	*ret_s = v / m;
	return 0;
}
