// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/authz.h"

/* Parse one decimal uid; -EBADMSG on anything but digits, or out of range. */
static int parse_uid(const char **p, uid_t *ret)
{
	unsigned long v;
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (**p < '0' || **p > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoul(*p, &end, 10);
	/* (uid_t)-1 is "no uid" to the kernel, never a process's */
	if (errno || v >= UINT32_MAX)
		return -EBADMSG;
	*p = end;
	*ret = (uid_t)v;
	return 0;
}

/* "CapPrm:\t000001ffffffffff": 0, or -EBADMSG. */
static int parse_caps(const char *p, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	errno = 0;
	v = strtoull(p, &end, 16);
	if (errno || end == p || (*end && *end != '\n'))
		return -EBADMSG;
	*ret = v;
	return 0;
}

int authz_proc_owner(const char *proc_root, pid_t pid, struct authz_owner *ret)
{
	struct authz_owner o = {0};
	char path[PATH_MAX], line[512];
	const char *p;
	FILE *f;
	int err = -EBADMSG;

	if (pid <= 0)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapPrm:", 7)) {
			/* a malformed one is no capability we could trust to be none */
			if (parse_caps(line + 7, &o.cap_prm))
				o.cap_prm = ~0ULL;
			o.has_caps = true;
			/* after Uid: in the file; nothing else is needed */
			break;
		}
		if (strncmp(line, "Uid:", 4))
			continue;
		p = line + 4;
		if (parse_uid(&p, &o.ruid) || parse_uid(&p, &o.euid) || parse_uid(&p, &o.suid))
			break;
		err = 0;
	}
	fclose(f);
	if (err)
		return err;
	*ret = o;
	return 0;
}

bool authz_in_group(const struct authz_creds *cr, gid_t gid)
{
	size_t i;

	if (cr->gid == gid)
		return true;
	for (i = 0; i < cr->nr_groups; i++) {
		if (cr->groups[i] == gid)
			return true;
	}
	return false;
}

int authz_check_pids(const struct authz_creds *cr, const pid_t *pids,
		     const struct authz_owner *owners, size_t nr, char *reason, size_t reason_len)
{
	const struct authz_owner *o;
	size_t i;

	if (cr->uid == 0)
		return 0;
	for (i = 0; i < nr; i++) {
		o = &owners[i];
		if (o->ruid != cr->uid) {
			snprintf(reason, reason_len, "pid %d belongs to uid %u, not to uid %u",
				 (int)pids[i], (unsigned)o->ruid, (unsigned)cr->uid);
			return -EACCES;
		}
		if (o->euid != cr->uid || o->suid != cr->uid) {
			snprintf(reason, reason_len,
				 "pid %d runs as uid %u (set-user-ID or changed credentials), "
				 "not as uid %u",
				 (int)pids[i], (unsigned)(o->euid != cr->uid ? o->euid : o->suid),
				 (unsigned)cr->uid);
			return -EACCES;
		}
	}
	return 0;
}

int authz_target_left(uid_t uid, uint64_t caps, const struct authz_owner *o, bool foreign_ns,
		      uid_t ns_owner)
{
	if (o->ruid != uid || o->euid != uid || o->suid != uid)
		return AUTHZ_LEFT_UID;
	if (foreign_ns)
		return ns_owner == uid ? 0 : AUTHZ_LEFT_CAPS;
	/* without a CapPrm: line we cannot tell: not the user's */
	if (!o->has_caps || (o->cap_prm & ~caps))
		return AUTHZ_LEFT_CAPS;
	return 0;
}

const char *authz_left_text(int why)
{
	switch (why) {
	case AUTHZ_LEFT_UID:
		return "exec of a set-user-ID program";
	case AUTHZ_LEFT_CAPS:
		return "exec of a program with file capabilities";
	case AUTHZ_LEFT_SECURE:
		return "exec of a set-group-ID or otherwise privileged program";
	case AUTHZ_LEFT_UNREADABLE:
		return "its credentials could not be read";
	default:
		return "they changed";
	}
}

int authz_check_host(const struct authz_policy *pol, const struct authz_creds *cr, char *reason,
		     size_t reason_len)
{
	if (cr->uid == 0)
		return 0;
	if (pol->have_group && authz_in_group(cr, pol->group_gid))
		return 0;
	if (pol->have_group)
		snprintf(reason, reason_len,
			 "host-wide sampling needs root or the group '%s', which uid %u is not in",
			 AUTHZ_GROUP, (unsigned)cr->uid);
	else
		snprintf(reason, reason_len,
			 "host-wide sampling needs root or the group '%s', which does not exist "
			 "on this host",
			 AUTHZ_GROUP);
	return -EACCES;
}

int authz_check_request(const struct authz_policy *pol, const struct authz_creds *cr,
			const char *proc_root, const pid_t *pids, size_t nr, char *reason,
			size_t reason_len)
{
	struct authz_owner owner;
	size_t i;
	int err;

	if (!nr)
		return authz_check_host(pol, cr, reason, reason_len);
	for (i = 0; i < nr; i++) {
		if (pids[i] <= 0) {
			snprintf(reason, reason_len, "pid %d is not a valid pid", (int)pids[i]);
			return -EINVAL;
		}
		err = authz_proc_owner(proc_root, pids[i], &owner);
		if (err == -ESRCH) {
			snprintf(reason, reason_len, "pid %d: no such process", (int)pids[i]);
			return err;
		}
		if (err) {
			snprintf(reason, reason_len, "pid %d: cannot read its owner: %s",
				 (int)pids[i], strerror(-err));
			return err;
		}
		err = authz_check_pids(cr, &pids[i], &owner, 1, reason, reason_len);
		if (err)
			return err;
	}
	return 0;
}

bool authz_kernel_allowed(uid_t uid, size_t nr_pids, int perf_event_paranoid)
{
	return uid == 0 || nr_pids == 0 || perf_event_paranoid <= 1;
}

int authz_perf_paranoid(const char *path)
{
	char buf[32];
	FILE *f = fopen(path, "re");
	int v = 2;

	if (!f)
		return 2;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%d", &v) != 1)
		v = 2;
	fclose(f);
	return v;
}
