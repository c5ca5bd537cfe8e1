// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel-version rule, and where it comes from.
 *
 * The sampler reads the interrupted thread's stack with bpf_probe_read_user()
 * from a perf_event program, i.e. in interrupt context. bpf_probe_read_user()
 * is copy_from_user_nofault(), which on CONFIG_HARDENED_USERCOPY kernels went
 * through check_object_size() -> find_vmap_area(), taking vmap_area_lock: a
 * perf interrupt landing on a CPU that holds that lock spins on it forever
 * (parca-dev/parca-agent issue #1675 shows it on 6.1.25). Upstream fixed it in
 * "mm: Fix copy_from_user_nofault()" (d319f344561d, first in 6.4), backported
 * to 6.1.36 and 6.3.10. check_object_size() entered copy_from_user_nofault()
 * in 5.19, so the affected kernels are exactly 5.19.x, 6.0.x (end of life
 * without the fix), 6.1.0 to 6.1.35, every 6.2.x (end of life at 6.2.16,
 * before the backport) and 6.3.0 to 6.3.9. Reading into a map value instead
 * of the stack would not help: per-CPU and mmapable map values are vmalloc
 * memory too.
 *
 * The version that decides is the stable one the kernel was built from, which
 * distributions keep out of `uname -r`: Debian's "6.1.0-18-amd64" is 6.1.76,
 * named in `uname -v` ("... Debian 6.1.76-1 (2024-02-01)"), and Ubuntu's
 * "5.19.0-46-generic" is 5.19.17, the last field of /proc/version_signature.
 * A vendor may still backport the fix into an older version: the override
 * flag is for that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/guard.h"
#include "capture/hostlock.h"

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
	if (v->major != 6)
		return false;
	switch (v->minor) {
	case 0:
	case 2:
		return true;
	case 1:
		return v->patch <= 35;
	case 3:
		return v->patch <= 9;
	default:
		return false;
	}
}

/* The stable version after the word `tag` ("Debian ") in s, or NULL. */
static const char *after_word(const char *s, const char *tag)
{
	size_t n = strlen(tag);

	for (const char *p = s; (p = strstr(p, tag)); p += n)
		if ((p == s || p[-1] == ' ') && p[n] >= '0' && p[n] <= '9')
			return p + n;
	return NULL;
}

const char *guard_stable_version(const char *release, const char *version, const char *signature,
				 struct guard_kver *ret)
{
	struct guard_kver v;
	const char *p;

	/* "Ubuntu 5.19.0-46.47-generic 5.19.17": the last field. */
	if (signature && (p = strrchr(signature, ' ')) && !guard_parse_release(p + 1, &v)) {
		*ret = v;
		return "/proc/version_signature";
	}
	/* "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2025-..)", "6.12.38-1~bpo12+1". */
	if (version && (p = after_word(version, "Debian ")) && !guard_parse_release(p, &v)) {
		*ret = v;
		return "uname -v";
	}
	if (!guard_parse_release(release, &v)) {
		*ret = v;
		return "uname -r";
	}
	return NULL;
}

int guard_check_kernel(const char *release, const char *version, const char *signature)
{
	struct guard_kver v;

	if (!guard_stable_version(release, version, signature, &v))
		return -EINVAL;
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

int guard_check_dir_of(const char *path)
{
	char dir[256];
	const char *slash = path ? strrchr(path, '/') : NULL;
	struct stat st;
	size_t n;

	if (!slash)
		return -EINVAL;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (stat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* The first line of path, without its newline, in buf, or NULL when unreadable. */
static const char *read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	char *nl;

	if (!f)
		return NULL;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return buf;
}

int guard_check_host(bool allow_unsafe_kernel, char *msg, size_t size)
{
	char sigbuf[256];
	const char *sig, *from;
	struct guard_kver v;
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
	err = guard_check_dir_of(HOSTLOCK_PATH);
	if (err) {
		const char *slash = strrchr(HOSTLOCK_PATH, '/');

		snprintf(msg, size,
			 "%.*s: %s: the host's sampler lock %s lives there (mount a tmpfs on it)",
			 (int)(slash - HOSTLOCK_PATH), HOSTLOCK_PATH, strerror(-err),
			 HOSTLOCK_PATH);
		return err;
	}
	if (allow_unsafe_kernel)
		return 0;
	if (uname(&u))
		return -errno;
	sig = read_line(GUARD_VERSION_SIGNATURE_PATH, sigbuf, sizeof(sigbuf));
	from = guard_stable_version(u.release, u.version, sig, &v);
	if (!from) {
		snprintf(msg, size,
			 "kernel %s is not a release I can check for the perf-interrupt lockup of "
			 "5.19 to 6.3.9; if it is not affected, pass --allow-unsafe-kernel",
			 u.release);
		return -EINVAL;
	}
	if (!guard_user_read_lockup_risk(&v))
		return 0;
	snprintf(msg, size,
		 "kernel %s (%u.%u.%u by %s) is refused: reading user memory from a perf "
		 "interrupt locks up 5.19, 6.0, 6.1 before 6.1.36, 6.2 and 6.3 before 6.3.10 "
		 "(fixed by \"mm: Fix copy_from_user_nofault()\"); upgrade the kernel, or if "
		 "yours has the fix backported, pass --allow-unsafe-kernel",
		 u.release, v.major, v.minor, v.patch, from);
	return -EOPNOTSUPP;
}
