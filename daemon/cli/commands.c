// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "cli/commands.h"

void cli_say(const char *fmt, ...)
{
	va_list ap;

	fputs("fxsampler: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
