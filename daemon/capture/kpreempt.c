// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "capture/kpreempt.h"
#include "util/io.h"

static enum kpreempt by_name(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum kpreempt m;
	} names[] = {
		{"none", KPREEMPT_NONE}, {"voluntary", KPREEMPT_VOLUNTARY},
		{"full", KPREEMPT_FULL}, {"lazy", KPREEMPT_FULL},
		{"rt", KPREEMPT_FULL},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len && !strncmp(s, names[i].name, len))
			return names[i].m;
	return KPREEMPT_UNKNOWN;
}

/* The word in parentheses: the model in use of those listed. */
static enum kpreempt from_debugfs(const char *s)
{
	const char *open = s ? strchr(s, '(') : NULL;
	const char *close = open ? strchr(open, ')') : NULL;

	return close ? by_name(open + 1, (size_t)(close - open - 1)) : KPREEMPT_UNKNOWN;
}

/* Whether s holds word as a whole word (space-separated). */
static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; (p = strstr(p, word)); p += n)
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * uname -v carries "PREEMPT_RT", "PREEMPT_DYNAMIC" (the model chosen at boot)
 * or "PREEMPT"/"PREEMPT_LAZY" (a fixed preemptible model); none of them: a
 * kernel built for none or voluntary.
 */
static enum kpreempt from_uname(const char *v, bool *dynamic)
{
	*dynamic = false;
	if (!v)
		return KPREEMPT_UNKNOWN;
	if (has_word(v, "PREEMPT_DYNAMIC")) {
		*dynamic = true;
		return KPREEMPT_UNKNOWN;
	}
	if (has_word(v, "PREEMPT_RT") || has_word(v, "PREEMPT") || has_word(v, "PREEMPT_LAZY"))
		return KPREEMPT_FULL;
	return KPREEMPT_NONE;
}

static enum kpreempt from_cmdline(const char *s)
{
	for (const char *p = s; p && (p = strstr(p, "preempt=")); p++)
		if (p == s || p[-1] == ' ')
			return by_name(p + 8, strcspn(p + 8, " \n"));
	return KPREEMPT_UNKNOWN;
}

/* The default a PREEMPT_DYNAMIC kernel boots with: the build's choice. */
static enum kpreempt from_config(const char *s)
{
	static const struct {
		const char *line;
		enum kpreempt m;
	} choices[] = {
		{"CONFIG_PREEMPT_RT=y", KPREEMPT_FULL},
		{"CONFIG_PREEMPT_NONE=y", KPREEMPT_NONE},
		{"CONFIG_PREEMPT_VOLUNTARY=y", KPREEMPT_VOLUNTARY},
		{"CONFIG_PREEMPT=y", KPREEMPT_FULL},
		{"CONFIG_PREEMPT_LAZY=y", KPREEMPT_FULL},
	};

	if (!s)
		return KPREEMPT_UNKNOWN;
	for (size_t i = 0; i < sizeof(choices) / sizeof(choices[0]); i++) {
		size_t n = strlen(choices[i].line);

		for (const char *p = s; (p = strstr(p, choices[i].line)); p += n)
			if ((p == s || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
				return choices[i].m;
	}
	return KPREEMPT_UNKNOWN;
}

enum kpreempt kpreempt_parse(const char *debugfs, const char *uname_version, const char *cmdline,
			     const char *config)
{
	enum kpreempt m = from_debugfs(debugfs);
	bool dynamic;

	if (m != KPREEMPT_UNKNOWN)
		return m;
	m = from_uname(uname_version, &dynamic);
	if (!dynamic)
		return m;
	m = from_cmdline(cmdline);
	return m != KPREEMPT_UNKNOWN ? m : from_config(config);
}

/* A small text file, or /proc/config.gz, whole (NULL if it cannot be read). */
static char *read_text(const char *path)
{
	char *text;
	size_t len;

	return read_whole(path, 1 << 22, &text, &len) ? NULL : text;
}

enum kpreempt kpreempt_running(void)
{
	char *debugfs = read_text("/sys/kernel/debug/sched/preempt");
	char *cmdline = read_text("/proc/cmdline");
	char *config = NULL, path[400];
	struct utsname u;
	bool ok = uname(&u) == 0;
	enum kpreempt m;

	m = kpreempt_parse(debugfs, ok ? u.version : NULL, cmdline, NULL);
	if (m == KPREEMPT_UNKNOWN && ok) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		config = read_text(path);
		if (!config)
			config = read_text("/proc/config.gz");
		m = kpreempt_parse(debugfs, u.version, cmdline, config);
	}
	free(debugfs);
	free(cmdline);
	free(config);
	return m;
}
