// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text helpers of the report's outputs: names cut to a width, percentages. */
#include <stdio.h>
#include <string.h>

#include "report/report_internal.h"

/* ---- text helpers ---- */

const char *report_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Control characters (a comm may hold a newline) would break the layout. */
const char *report_sanitize(char *buf)
{
	char *p;

	for (p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return buf;
}

/* Copy s into buf, cut to width bytes with ".." (at a UTF-8 boundary). */
const char *report_fit(const char *s, size_t width, char *buf, size_t size)
{
	size_t len = strlen(s), cut;

	if (len <= width || width < 3) {
		snprintf(buf, size, "%.*s", (int)(width < len ? width : len), s);
		return report_sanitize(buf);
	}
	cut = width - 2;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	snprintf(buf, size, "%.*s..", (int)cut, s);
	return report_sanitize(buf);
}

/* The same, cutting the start: the end of a path says the most. */
const char *report_fit_left(const char *s, size_t width, char *buf, size_t size)
{
	size_t len = strlen(s), start;

	if (len <= width || width < 3)
		return report_fit(s, width, buf, size);
	start = len - (width - 2);
	while (s[start] && ((unsigned char)s[start] & 0xc0) == 0x80)
		start++;
	snprintf(buf, size, "..%s", s + start);
	return report_sanitize(buf);
}

double report_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}
