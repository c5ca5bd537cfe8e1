/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxsampler's commands, one file each as bpftool's: cmd_record.c, cmd_report.c,
 * cmd_dump.c, cmd_status.c. main() (fxsampler.c) picks one by its name and
 * passes argv from that name on (argv[0] is "record"); each returns the
 * process's exit status: EXIT_SUCCESS, EXIT_FAILURE (a runtime failure) or
 * EXIT_USAGE.
 */
#ifndef FXS_CLI_COMMANDS_H
#define FXS_CLI_COMMANDS_H

#define EXIT_USAGE 2

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* One line on stderr, "fxsampler: " first and a newline after: every command's messages. */
__attribute__((format(printf, 1, 2))) void cli_say(const char *fmt, ...);

#endif /* FXS_CLI_COMMANDS_H */
