/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who may sample what, decided from a peer's SO_PEERCRED/SO_PEERGROUPS
 * credentials and the owners of the target processes:
 *  - root may sample anything;
 *  - a user may sample only processes that run entirely as that user: real,
 *    effective and saved uid all its own (the ptrace rule, so that a set-user-ID
 *    program the user started, running as root, is refused);
 *  - host-wide sampling needs root or membership of the `fxsampler` group.
 * Pure policy apart from authz_proc_owner(), which reads /proc. No logging.
 */
#ifndef FXS_DAEMON_AUTHZ_H
#define FXS_DAEMON_AUTHZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AUTHZ_GROUP	 "fxsampler"
#define AUTHZ_MAX_GROUPS 256

/* A peer's credentials; groups are the supplementary groups (may be NULL when none). */
struct authz_creds {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t nr_groups;
};

/*
 * The owner of a process, from the "Uid:" line of /proc/PID/status, and its
 * permitted capabilities from "CapPrm:" (has_caps false when there is none).
 */
struct authz_owner {
	uid_t ruid, euid, suid;
	uint64_t cap_prm;
	bool has_caps;
};

/* Why a process is no longer a non-root session's to sample (as FXS_LEFT_*). */
#define AUTHZ_LEFT_UID	      1 /* real, effective or saved uid not the user's */
#define AUTHZ_LEFT_CAPS	      2 /* capabilities the client does not have */
#define AUTHZ_LEFT_SECURE     3 /* a secure exec otherwise (set-group-ID, LSM) */
#define AUTHZ_LEFT_UNREADABLE 4 /* its credentials could not be read */

/* The policy's view of the host: the gid of AUTHZ_GROUP, if that group exists. */
struct authz_policy {
	bool have_group;
	gid_t group_gid;
};

/*
 * Read the owner of pid from <proc_root>/<pid>/status. 0, or -ESRCH when there
 * is no such process, -EBADMSG when the file has no well-formed "Uid:" line,
 * other -errno. *ret is written only on success.
 */
int authz_proc_owner(const char *proc_root, pid_t pid, struct authz_owner *ret);

/* Whether the credentials include gid, as primary or supplementary group. */
bool authz_in_group(const struct authz_creds *cr, gid_t gid);

/*
 * May cr sample every one of the nr processes owned by owners[] (pids[i] is
 * the pid of owners[i], for the message)? 0, or -EACCES with the reason in
 * reason ("pid 123 belongs to uid 0, not to uid 1000").
 */
int authz_check_pids(const struct authz_creds *cr, const pid_t *pids,
		     const struct authz_owner *owners, size_t nr, char *reason, size_t reason_len);

/*
 * Whether a target is still fully the session's user's (uid, with permitted
 * capabilities caps), the rule the BPF program applies to every sample:
 * real, effective and saved uid are uid; and its permitted capabilities are
 * among caps, unless it lives in a user namespace (foreign_ns) whose ancestor
 * just below ours belongs to uid (ns_owner), where its capabilities count
 * only inside. 0, or the AUTHZ_LEFT_* reason it is not.
 */
int authz_target_left(uid_t uid, uint64_t caps, const struct authz_owner *o, bool foreign_ns,
		      uid_t ns_owner);
/* What happened to a target that left, for people: "exec of a set-user-ID program". */
const char *authz_left_text(int why);

/* May cr sample the whole host? 0, or -EACCES with the reason. */
int authz_check_host(const struct authz_policy *pol, const struct authz_creds *cr, char *reason,
		     size_t reason_len);

/*
 * The whole decision for a capture request: host-wide when nr is 0, else the
 * pids, whose owners are read under proc_root. 0; -EACCES with the reason;
 * -ESRCH with "pid N: no such process"; -EINVAL for a pid <= 0; other -errno
 * with a message. A pid may be reused between this check and the capture's
 * start: a non-root session checks each target again through its pidfd
 * (targets.h), and the kernel checks every sample (capture_opts.check_creds).
 */
int authz_check_request(const struct authz_policy *pol, const struct authz_creds *cr,
			const char *proc_root, const pid_t *pids, size_t nr, char *reason,
			size_t reason_len);

/*
 * Whether a session may have kernel stacks (record --kernel): root, a
 * host-wide session (root or the group), or any user when
 * perf_event_paranoid allows users kernel profiling (<= 1, as perf decides).
 * The names only: no session ever gets a kernel address (capture/kstacks.h).
 */
bool authz_kernel_allowed(uid_t uid, size_t nr_pids, int perf_event_paranoid);
/* perf_event_paranoid from path (/proc/sys/kernel/perf_event_paranoid); 2 if unreadable. */
int authz_perf_paranoid(const char *path);

#endif /* FXS_DAEMON_AUTHZ_H */
