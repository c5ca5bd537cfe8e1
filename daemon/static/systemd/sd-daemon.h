/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The three calls of libsystemd's sd-daemon.h fxsamplerd uses, for the static
 * build (make cross): Debian ships no static libsystemd. The native build
 * still links the real one; this directory is only on the static include path.
 */
#ifndef FXS_STATIC_SD_DAEMON_H
#define FXS_STATIC_SD_DAEMON_H

#include <stddef.h>

#define SD_LISTEN_FDS_START 3

int sd_listen_fds(int unset_environment);
int sd_is_socket_unix(int fd, int type, int listening, const char *path, size_t length);
int sd_notify(int unset_environment, const char *state);

#endif /* FXS_STATIC_SD_DAEMON_H */
