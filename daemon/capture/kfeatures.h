/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF program needs from the kernel, probed before it is loaded, so
 * that a kernel too old for it gets one line naming what is missing (and the
 * release that added it) instead of a verifier or libbpf dump.
 */
#ifndef FXS_DAEMON_KFEATURES_H
#define FXS_DAEMON_KFEATURES_H

#include <stddef.h>

/*
 * 0 when the kernel has every helper and map type the program uses, or when
 * probing itself is not possible (the load then reports its own error);
 * -EOPNOTSUPP with a one-line reason in msg naming each missing feature.
 * Loads small test programs: needs CAP_BPF (root).
 */
int kfeatures_check(char *msg, size_t size);

#endif /* FXS_DAEMON_KFEATURES_H */
