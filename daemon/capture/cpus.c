// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cpus.h"
#include "sampler.h"

int cpus_parse_list(const char *list, bool *mask, size_t n)
{
	const char *p = list;

	memset(mask, 0, n * sizeof(*mask));
	while (*p && *p != '\n') {
		unsigned long lo, hi;
		char *end;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			hi = strtoul(p, &end, 10);
		}
		if (hi < lo || hi >= n)
			return -EINVAL;
		for (unsigned long c = lo; c <= hi; c++)
			mask[c] = true;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return 0;
}

int cpus_online(bool *mask, size_t n)
{
	char buf[4096];
	size_t len;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	return cpus_parse_list(buf, mask, n);
}

bool cpu_is_online(int cpu)
{
	bool mask[FXS_MAX_CPUS];

	if (cpu < 0 || cpu >= FXS_MAX_CPUS)
		return false;
	/* A CPU we cannot tell about is tried: opening its event says the rest. */
	return cpus_online(mask, FXS_MAX_CPUS) ? true : mask[cpu];
}
