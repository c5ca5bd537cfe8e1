// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel-version rule, and where it comes from.
 *
 * The sampler reads the interrupted thread's stack with bpf_probe_read_user()
 * from a perf_event program, i.e. in interrupt context. On some kernels a
 * faulting user read there ends in a lockup: parca-dev/parca-agent issue
 * #1675 ("parca-agent triggers kernel bug because it calls
 * bpf_probe_read_user() in the perf_event IRQ") shows a CPU spinning in
 * native_queued_spin_lock_slowpath under the perf interrupt on
 * 6.1.25-37.47.amzn2023, and the reporter judged it an upstream bug, not one
 * of the distribution or the profiler. The project's requirements (issue 6)
 * place the affected range at 5.19 up to 6.1 without the stable fixes.
 *
 * What we could not establish from the sources at hand is the 6.1.y stable
 * release that carries the fix, and a version number cannot tell whether a
 * vendor kernel (Debian's "6.1.0-18-amd64" is 6.1.76; its release string
 * says 6.1.0) has the backport anyway. So the rule is deliberately
 * conservative: every 5.19.x, 6.0.x and 6.1.x kernel is "may be affected",
 * and the caller refuses it unless the user passes the override flag after
 * checking their kernel. 5.19 and 6.0 are end-of-life lines that received no
 * later fixes. Kernels before 5.19 and from 6.2 on are not flagged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "guard.h"

#define GUARD_MAX_COMPONENT 65535

/* Parse digits at *p into *ret; 0 or -EINVAL (no digit, or too large). */
static int parse_component(const char **p, unsigned *ret)
{
	const char *s = *p;
	unsigned v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > GUARD_MAX_COMPONENT)
			return -EINVAL;
		s++;
	}
	*p = s;
	*ret = v;
	return 0;
}

int guard_parse_release(const char *release, struct guard_kver *ret)
{
	struct guard_kver v = {0, 0, 0};
	const char *p = release;

	if (!p)
		return -EINVAL;
	if (parse_component(&p, &v.major) || *p != '.')
		return -EINVAL;
	p++;
	if (parse_component(&p, &v.minor))
		return -EINVAL;
	if (*p == '.') {
		p++;
		if (parse_component(&p, &v.patch))
			return -EINVAL;
	}
	/* A suffix ("-18-amd64", "+", "-rc1") follows; "6.1.2.3" keeps 6.1.2. */
	*ret = v;
	return 0;
}

bool guard_user_read_lockup_risk(const struct guard_kver *v)
{
	if (v->major == 5)
		return v->minor >= 19;
	if (v->major == 6)
		return v->minor <= 1;
	return false;
}

int guard_check_release(const char *release)
{
	struct guard_kver v;
	int err;

	err = guard_parse_release(release, &v);
	if (err)
		return err;
	return guard_user_read_lockup_risk(&v) ? 1 : 0;
}

int guard_check_btf(const char *btf_path)
{
	const char *path = btf_path ? btf_path : GUARD_BTF_PATH;
	struct stat st;
	char c;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	/* sysfs reports a size, but a read is the real test of access. */
	switch (read(fd, &c, 1)) {
	case 1:
		break;
	case 0:
		err = -ENODATA;
		break;
	default:
		err = -errno;
		break;
	}
out:
	close(fd);
	return err;
}

int guard_check_host(bool allow_unsafe_kernel, char *msg, size_t size)
{
	struct utsname u;
	int err;

	err = guard_check_btf(NULL);
	if (err) {
		snprintf(msg, size,
			 "the kernel's BTF is not readable at %s (%s): a kernel built with "
			 "CONFIG_DEBUG_INFO_BTF=y is needed",
			 GUARD_BTF_PATH, strerror(-err));
		return err;
	}
	if (allow_unsafe_kernel)
		return 0;
	if (uname(&u))
		return -errno;
	err = guard_check_release(u.release);
	if (err == 0)
		return 0;
	snprintf(msg, size,
		 "kernel %s %s: reading user memory from a perf interrupt can lock up 5.19 to "
		 "6.1 kernels without the stable fixes; if yours has them, pass "
		 "--allow-unsafe-kernel",
		 u.release, err > 0 ? "is refused" : "is not a release I can check");
	return err > 0 ? -EOPNOTSUPP : err;
}
