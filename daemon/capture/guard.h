/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Guardrails checked before any BPF is loaded: the kernel's BTF is there,
 * and the running kernel is not one where reading user memory from a
 * perf_event interrupt (what the sampler's frame-pointer walk does with
 * bpf_probe_read_user) is known to lock the machine up. Pure but for
 * guard_check_host(): the callers pass the release and version strings and
 * the BTF path, so all are unit tested. No libbpf, no logging.
 */
#ifndef FXS_DAEMON_GUARD_H
#define FXS_DAEMON_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Where the kernel exposes its own BTF; CO-RE needs it. */
#define GUARD_BTF_PATH "/sys/kernel/btf/vmlinux"
/* Where Ubuntu names the stable version its kernel was built from. */
#define GUARD_VERSION_SIGNATURE_PATH "/proc/version_signature"

/* The version at the start of a kernel release string. */
struct guard_kver {
	unsigned major;
	unsigned minor;
	unsigned patch; /* 0 when the release has none ("6.2-rc1") */
};

/*
 * Parse the version at the start of a `uname -r` string: "6.1.0-18-amd64",
 * "5.19.17", "6.18.44-fc-v782", "6.2-rc1", "5.15.0+". MAJOR.MINOR is
 * required, .PATCH optional; whatever follows a number that is not '.' and
 * not a digit is a suffix and ignored. Returns 0, or -EINVAL for anything
 * else (empty, NULL, "6", "6.", "x.y", a component over 65535); *ret is
 * written only on success.
 */
int guard_parse_release(const char *release, struct guard_kver *ret);

/*
 * Whether the known lockup of user-memory reads in perf_event interrupts
 * applies to this stable kernel version: true for 5.19.x, 6.0.x, 6.1.0 to
 * 6.1.35, 6.2.x and 6.3.0 to 6.3.9, false otherwise. See guard.c for the fix.
 */
bool guard_user_read_lockup_risk(const struct guard_kver *v);

/*
 * The stable version a kernel was built from, from the first of these that
 * names one: Ubuntu's /proc/version_signature (signature, NULL when absent;
 * its last field), Debian's `uname -v` (version; the number after "Debian "),
 * the `uname -r` release. Returns which one it used ("uname -v", ...), or
 * NULL when none parses; *ret is written only then.
 */
const char *guard_stable_version(const char *release, const char *version, const char *signature,
				 struct guard_kver *ret);

/*
 * The rule on a kernel's strings as above: 1 when it is affected, 0 when it
 * is not, -EINVAL when no version can be found (the caller refuses then too,
 * unless overridden: an unknown kernel is not a known-good one).
 */
int guard_check_kernel(const char *release, const char *version, const char *signature);

/*
 * 0 when btf_path (NULL: GUARD_BTF_PATH) is a readable, non-empty regular
 * file; -ENOENT when it does not exist, -ENODATA when it is empty, another
 * -errno when it cannot be read. The caller names the path in its error.
 */
int guard_check_btf(const char *btf_path);

/*
 * 0 when the directory that holds path ("/run" for "/run/fxsampler.lock")
 * exists and is a directory; -ENOENT, -ENOTDIR or another -errno otherwise,
 * -EINVAL for a path without a '/'.
 */
int guard_check_dir_of(const char *path);

/*
 * The checks on this host: BTF, the directory of the host lock, the kernel
 * version: 0, or -errno with a one-line reason in msg that
 * names the cause and the way out. allow_unsafe_kernel skips the release check
 * (a kernel with the stable fixes backported, which a version cannot show).
 */
int guard_check_host(bool allow_unsafe_kernel, char *msg, size_t size);

#endif /* FXS_DAEMON_GUARD_H */
