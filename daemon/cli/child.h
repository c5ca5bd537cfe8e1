/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command `record -- CMD` profiles: forked first and held before its
 * exec until sampling runs, so its first instruction is sampled, and a
 * command that cannot run fails before any BPF is loaded. It gets SIGTERM
 * if record dies (PR_SET_PDEATHSIG).
 */
#ifndef FXS_CLI_CHILD_H
#define FXS_CLI_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int go_fd;  /* write one byte: exec; -1 once released */
	int err_fd; /* the exec's errno, or EOF when it succeeded */
	bool released;
};

/* Whether cmd can be executed, resolved as execvp would: 0 or -errno. */
int child_find_command(const char *cmd);

/*
 * Fork the held child for cmd (NULL-terminated argv) into *ret: 0 or -errno.
 * No signal reaches it before it has its own dispositions.
 */
int child_spawn(char **cmd, struct child *ret);

/* Let it exec; 0 once it runs the command, or the exec's -errno. */
int child_release(struct child *c);

/*
 * End and reap it: one still held is killed; a released one gets sig (0:
 * none, it is waited for). Its wait status in *ret_status (may be NULL).
 */
void child_end(struct child *c, int sig, int *ret_status);

/* child_end() with SIGKILL: a capture that failed takes its command along. */
void child_abort(struct child *c);

/*
 * Wait for a released command that outlives its capture, passing on the
 * first signal the caller's handler stores in *stop_signal (which this
 * clears first). Its wait status in *ret_status (may be NULL).
 */
void child_wait(struct child *c, volatile sig_atomic_t *stop_signal, int *ret_status);

#endif /* FXS_CLI_CHILD_H */
