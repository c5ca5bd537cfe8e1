/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxsamplerd's log: one line on stderr per message, "fxsamplerd: warning: ..."
 * on a terminal, or with a journald level prefix ("<4>...") when stderr is
 * the journal's stream. Debug lines only with log_verbose. libbpf's own
 * output goes the same way through log_libbpf_print (libbpf_set_print()).
 */
#ifndef FXS_SERVICE_LOG_H
#define FXS_SERVICE_LOG_H

#include <stdarg.h>
#include <stdbool.h>

#include <bpf/libbpf.h>

/* syslog(3)'s levels, which journald reads from the prefix */
enum { LOG_ERR_ = 3, LOG_WARN_ = 4, LOG_INFO_ = 6, LOG_DEBUG_ = 7 };

extern bool log_verbose; /* -v: debug lines, libbpf's included */
extern bool log_journal; /* $JOURNAL_STREAM: level prefixes instead of words */

void log_at(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)   log_at(LOG_ERR_, __VA_ARGS__)
#define log_warn(...)  log_at(LOG_WARN_, __VA_ARGS__)
#define log_info(...)  log_at(LOG_INFO_, __VA_ARGS__)
#define log_debug(...) log_at(LOG_DEBUG_, __VA_ARGS__)

int log_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap);

#endif /* FXS_SERVICE_LOG_H */
