// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/libbpf.h>

#include "capture/kfeatures.h"

/*
 * The helpers bpf/sampler.bpf.c calls from its perf_event program that not
 * every supported-looking kernel has, oldest first, with the mainline
 * release that added each one for perf_event programs.
 */
static const struct {
	enum bpf_func_id id;
	const char *name;
	const char *since;
} helpers[] = {
	{BPF_FUNC_get_ns_current_pid_tgid, "bpf_get_ns_current_pid_tgid", "5.7"},
	{BPF_FUNC_ringbuf_output, "bpf_ringbuf_output", "5.8"},
	{BPF_FUNC_ringbuf_query, "bpf_ringbuf_query", "5.8"},
	{BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf", "5.11"},
	{BPF_FUNC_get_attach_cookie, "bpf_get_attach_cookie", "5.15: BPF cookies on perf links"},
	{BPF_FUNC_task_pt_regs, "bpf_task_pt_regs", "5.15"},
};

/* Append "what (since)" to msg at *len, comma-separated. */
static void add_missing(char *msg, size_t size, size_t *len, const char *what, const char *since)
{
	int n;

	if (*len >= size)
		return;
	n = snprintf(msg + *len, size - *len, "%s%s (%s)", *len ? ", " : "", what, since);
	if (n > 0)
		*len += (size_t)n;
}

int kfeatures_check(char *msg, size_t size)
{
	char missing[384] = "";
	size_t len = 0;
	struct utsname u;
	int ret;

	ret = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, NULL);
	if (ret == 0)
		add_missing(missing, sizeof(missing), &len, "BPF perf_event programs", "4.9");
	else if (ret < 0)
		return 0; /* cannot probe (no privilege?): let the load say why */
	ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	if (ret == 0)
		add_missing(missing, sizeof(missing), &len, "BPF ring buffers", "5.8");
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		ret = libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, helpers[i].id, NULL);
		if (ret == 0)
			add_missing(missing, sizeof(missing), &len, helpers[i].name,
				    helpers[i].since);
	}
	if (!len)
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(msg, size,
		 "kernel %s is too old: it lacks %s; fxsampler needs Linux 5.15 or later",
		 u.release, missing);
	return -EOPNOTSUPP;
}
