/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Guardrails checked before any BPF is loaded: the kernel's BTF is there,
 * and the running kernel is not one where reading user memory from a
 * perf_event interrupt (what the sampler's frame-pointer walk does with
 * bpf_probe_read_user) is known to lock the machine up. Pure: the caller
 * passes the `uname -r` release string and the BTF path, so both are unit
 * tested. No libbpf, no logging.
 */
#ifndef FXS_DAEMON_GUARD_H
#define FXS_DAEMON_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Where the kernel exposes its own BTF; CO-RE needs it. */
#define GUARD_BTF_PATH "/sys/kernel/btf/vmlinux"

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
 * Whether the known lockup of user-memory reads in perf_event interrupts may
 * apply to this kernel version: true for 5.19.x, 6.0.x and 6.1.x, false
 * otherwise. See guard.c for the source and why the whole 6.1 line is
 * included.
 */
bool guard_user_read_lockup_risk(const struct guard_kver *v);

/*
 * Both of the above on a release string: 1 when the kernel may be affected,
 * 0 when it is not, -EINVAL when the release cannot be parsed (the caller
 * should then refuse too, unless overridden: an unknown kernel is not a
 * known-good one).
 */
int guard_check_release(const char *release);

/*
 * 0 when btf_path (NULL: GUARD_BTF_PATH) is a readable, non-empty regular
 * file; -ENOENT when it does not exist, -ENODATA when it is empty, another
 * -errno when it cannot be read. The caller names the path in its error.
 */
int guard_check_btf(const char *btf_path);

/*
 * Both checks on this host: 0, or -errno with a one-line reason in msg that
 * names the cause and the way out. allow_unsafe_kernel skips the release check
 * (a kernel with the stable fixes backported, which a version cannot show).
 */
int guard_check_host(bool allow_unsafe_kernel, char *msg, size_t size);

#endif /* FXS_DAEMON_GUARD_H */
