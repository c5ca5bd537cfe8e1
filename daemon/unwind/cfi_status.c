// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "unwind/cfi_status.h"
#include "unwind/cfi_table.h"

static const char *const state_names[CFI_MOD_NR] = {
	[CFI_MOD_QUEUED] = "queued",	 [CFI_MOD_LOADED] = "loaded", [CFI_MOD_NO_CFI] = "no_cfi",
	[CFI_MOD_NO_CODE] = "no_code",	 [CFI_MOD_FAILED] = "failed", [CFI_MOD_EVICTED] = "evicted",
	[CFI_MOD_LEFT_OUT] = "left_out",
};

const char *cfi_mod_state_name(enum cfi_mod_state s)
{
	return (unsigned)s < CFI_MOD_NR ? state_names[s] : "?";
}

void cfi_mod_encode(const struct cfi_mod_info *m, const char **names, uint64_t *values)
{
	names[0] = m->name && *m->name ? m->name : "?";
	values[0] = m->state;
	names[1] = "bytes";
	values[1] = m->bytes;
	names[2] = "errno";
	values[2] = m->err < 0 ? (uint64_t)-m->err : 0;
}

int cfi_mod_decode(const char *const *names, const uint64_t *values, unsigned nr,
		   struct cfi_mod_info *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (nr < 1 || !names[0] || values[0] >= CFI_MOD_NR)
		return -EINVAL;
	ret->name = names[0];
	ret->state = (enum cfi_mod_state)values[0];
	for (unsigned i = 1; i < nr; i++) {
		if (!names[i])
			continue;
		if (!strcmp(names[i], "bytes"))
			ret->bytes = values[i];
		else if (!strcmp(names[i], "errno") && values[i] < 4096)
			ret->err = -(int)values[i];
	}
	return 0;
}

/* The last part of a path: the summary names libraries as ldd does not, but shorter. */
static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int cfi_mod_describe(const struct cfi_mod_info *m, char *buf, size_t len)
{
	const char *name = base(m->name ? m->name : "?");
	double mib = m->bytes / 1048576.0;

	switch (m->state) {
	case CFI_MOD_LEFT_OUT:
		return snprintf(buf, len,
				"%s: left out, by frame pointers: its %.1f MiB of rows did not fit "
				"beside the tables in use (raise --cfi-memory)",
				name, mib);
	case CFI_MOD_EVICTED:
		return snprintf(buf, len,
				"%s: evicted (%.1f MiB) while no process mapped it; mapped again, "
				"by frame pointers (raise --cfi-memory)",
				name, mib);
	case CFI_MOD_FAILED:
		return snprintf(buf, len, "%s: no table: %s", name,
				m->err == -EBADF ? "its file could not be opened"
						 : cfi_table_strerror(m->err));
	case CFI_MOD_NO_CFI:
		return snprintf(buf, len, "%s: no CFI (no .eh_frame): by frame pointers", name);
	default:
		return snprintf(buf, len, "%s: %s", name, cfi_mod_state_name(m->state));
	}
}
