// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fxsamplerd's log lines (log.h). */
#include <stdio.h>

#include "service/log.h"

bool log_verbose;
bool log_journal;

static void vlog(int level, const char *fmt, va_list ap)
{
	static const char *const words[] = {
		[3] = "error: ", [4] = "warning: ", [6] = "", [7] = "debug: "};

	if (level == LOG_DEBUG_ && !log_verbose)
		return;
	if (log_journal)
		fprintf(stderr, "<%d>", level);
	else
		fprintf(stderr, "fxsamplerd: %s", words[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_at(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

int log_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !log_verbose)
		return 0;
	if (log_journal)
		fprintf(stderr, "<%d>", level == LIBBPF_WARN ? LOG_WARN_ : LOG_DEBUG_);
	return vfprintf(stderr, fmt, ap);
}
