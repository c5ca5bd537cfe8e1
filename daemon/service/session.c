// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A client's session on the sampler (daemon.h): SETUP authorizes and sets up
 * the capture (pausing continuous mode), START, STOP, READ and DESTROY move
 * it along, STATUS says who holds the sampler; a target that leaves the
 * client's reach becomes a NOTICE.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "util/clock.h"
#include "service/daemon.h"

static const char wake_tag[] = "rings";

bool session_owns_event(const void *tag)
{
	return tag == wake_tag;
}

void session_watch(struct daemon *d)
{
	struct session *s = &d->sess;
	struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = (void *)wake_tag};
	int fd = capture_wake_fd(s->cap);

	if (s->watched)
		return;
	if (fd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		log_warn("the rings cannot wake fxsamplerd (%s): they are drained every %d ms",
			 strerror(fd < 0 ? -fd : errno), DRAIN_MS);
		return;
	}
	s->watched = true;
}

/* Before the capture (and with it the wake fd) is freed. */
static void session_unwatch(struct daemon *d)
{
	struct session *s = &d->sess;

	if (s->watched)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, capture_wake_fd(s->cap), NULL);
	s->watched = false;
}

int session_drain(struct session *s)
{
	int err = capture_poll(s->cap, 0);

	s->drained_ms = mono_ms();
	s->next_drain_ms = s->drained_ms + (uint64_t)capture_next_drain_ms(s->cap, DRAIN_MS);
	return err;
}

void session_clear(struct daemon *d)
{
	struct session *s = &d->sess;

	session_unwatch(d);
	capture__free(s->cap);
	s->cap = NULL;
	s->owner = NULL;
	s->state = FXS_SESSION_NONE;
	s->holder_pid = 0;
	s->holder_uid = 0;
}

/* --- requests --- */

/* A target of a client's session left its reach: the client is told, once per pid. */
static void session_notice(void *ctx, uint32_t pid, const char *text)
{
	struct session *s = ctx;
	struct fxs_msg m = {.type = FXS_MSG_NOTICE};

	if (!s->owner)
		return;
	log_info("session of pid %d (uid %u): %s", (int)s->owner->pid, (unsigned)s->owner->uid,
		 text);
	m.notice.kind = FXS_NOTICE_TARGET_LEFT;
	m.notice.pid = pid;
	snprintf(m.notice.text, sizeof(m.notice.text), "%s", text);
	if (queue_msg(s->owner, &m))
		s->owner->closing = true;
}

/* A stop that waits long for writes in flight goes to the log (capture_opts.warn). */
static void session_warn(void *ctx, const char *text)
{
	struct session *s = ctx;

	if (s->owner)
		log_warn("session of pid %d (uid %u): %s", (int)s->owner->pid,
			 (unsigned)s->owner->uid, text);
}

/*
 * A session for a non-root client with targets samples them only while they
 * stay fully its own (capture_opts.check_creds). Its capabilities are those
 * the client process has now; a host-wide session (root or the group) is not
 * limited.
 */
static void limit_to_client(struct session *s, const struct conn *c, struct capture_opts *o)
{
	struct authz_owner peer;

	if (c->uid == 0 || !o->nr_pids)
		return;
	o->check_creds = true;
	o->uid = (uint32_t)c->uid;
	o->caps = 0;
	if (!authz_proc_owner("/proc", c->pid, &peer) && peer.has_caps && peer.ruid == c->uid &&
	    peer.euid == c->uid && peer.suid == c->uid)
		o->caps = peer.cap_prm;
	o->notice = session_notice;
	o->notice_ctx = s;
}

/*
 * Kernel stacks only for whom authz_kernel_allowed() says; the others are
 * told and get the user stacks (names only either way: capture/kstacks.h).
 */
static void limit_kernel(struct conn *c, struct capture_opts *o)
{
	int paranoid = authz_perf_paranoid("/proc/sys/kernel/perf_event_paranoid");
	struct fxs_msg m = {.type = FXS_MSG_NOTICE};

	if (!o->kernel || authz_kernel_allowed(c->uid, o->nr_pids, paranoid))
		return;
	o->kernel = false;
	log_info("session of pid %d (uid %u): no kernel stacks (perf_event_paranoid %d)",
		 (int)c->pid, (unsigned)c->uid, paranoid);
	m.notice.kind = FXS_NOTICE_NO_KERNEL;
	snprintf(m.notice.text, sizeof(m.notice.text),
		 "no kernel stacks: perf_event_paranoid is %d, and a user needs 1 or less "
		 "(or root, or the fxsampler group with -a)",
		 paranoid);
	if (queue_msg(c, &m))
		c->closing = true;
}

static bool own_session(struct daemon *d, struct conn *c)
{
	return d->sess.cap && d->sess.owner == c;
}

/*
 * The sampler is held by holder (uid huid). As STATUS does, a client that is
 * neither root nor the holder's user learns the uid and not the pid: on a
 * host with /proc mounted hidepid=invisible the pid is otherwise hidden.
 */
static void reply_busy(struct conn *c, pid_t holder, uid_t huid, const char *where)
{
	if (c->uid && c->uid != huid)
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_ALREADY_EXISTS, -EBUSY, 0, huid,
			    "the sampler is busy: held by uid %u%s", (unsigned)huid, where);
	else
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_ALREADY_EXISTS, -EBUSY, holder, huid,
			    "the sampler is busy: held by pid %d (uid %u)%s", (int)holder,
			    (unsigned)huid, where);
}

static void handle_setup(struct daemon *d, struct conn *c, const struct fxs_msg_setup *req)
{
	struct authz_creds cr = {c->pid, c->uid, c->gid, c->groups, c->nr_groups};
	pid_t pids[FXS_PROTO_MAX_PIDS], holder = 0;
	struct session *s = &d->sess;
	struct authz_owner owner = {0};
	char reason[FXS_PROTO_MAX_TEXT];
	struct capture_opts o;
	size_t pending;
	unsigned i;
	int err;

	if (own_session(d, c)) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_BAD_STATE, -EALREADY, 0, 0,
			    "this connection already has a session (destroy it first)");
		return;
	}
	if ((req->flags & FXS_SETUP_PREEMPT) && c->uid) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_ACCESS_DENIED, -EPERM, 0, 0,
			    "only root may pre-empt another session (record --preempt)");
		return;
	}
	if (s->cap && s->owner && !(req->flags & FXS_SETUP_PREEMPT)) {
		reply_busy(c, s->holder_pid, s->holder_uid, "");
		return;
	}
	if (protocol_setup_to_opts(req, &o)) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, -EINVAL, 0, 0,
			    "invalid capture options");
		return;
	}
	o.cfi_cap_bytes = d->cfg.cfi_memory;
	if (!o.period_ns == !o.freq_hz) {
		reply_error(c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, -EINVAL, 0, 0,
			    "give exactly one of a period and a frequency");
		return;
	}
	for (i = 0; i < o.nr_pids; i++)
		pids[i] = (pid_t)o.pids[i];
	reason[0] = '\0';
	err = authz_check_request(&d->pol, &cr, "/proc", pids, o.nr_pids, reason, sizeof(reason));
	if (err) {
		reply_error(c, FXS_MSG_SETUP,
			    err == -EACCES   ? FXS_ERR_ACCESS_DENIED
			    : err == -ESRCH  ? FXS_ERR_NOT_FOUND
			    : err == -EINVAL ? FXS_ERR_INVALID_ARGS
					     : FXS_ERR_INTERNAL,
			    err, 0, 0, "%s", reason);
		if (err == -EACCES)
			log_info("denied pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid,
				 reason);
		return;
	}
	if (s->cap && s->owner) {
		/* root takes the sampler back: the holder's file is complete */
		log_info("pid %d (uid 0) pre-empts the session of pid %d (uid %u)", (int)c->pid,
			 (int)s->owner->pid, (unsigned)s->owner->uid);
		end_session_early(d, FXS_END_PREEMPTED, "root pre-empted it (record --preempt)");
	} else if (s->cap) {
		log_info("pausing continuous mode for pid %d (uid %u)", (int)c->pid,
			 (unsigned)c->uid);
		cont_finish(d);
	}
	/*
	 * The prologue is queued by the sink during setup: drop it if setup
	 * fails. Nothing is sent meanwhile, so the bytes queued before stay the
	 * first pending ones even if the queue is compacted.
	 */
	pending = outq_pending(&c->out);
	limit_to_client(s, c, &o);
	limit_kernel(c, &o);
	o.warn = session_warn;
	o.warn_ctx = s;
	err = capture__new(&o, conn_sink, c, &s->cap, &holder);
	if (err) {
		s->cap = NULL;
		c->out.len = c->out.off + pending;
		switch (err) {
		case -EBUSY:
			if (holder > 0)
				authz_proc_owner("/proc", holder, &owner);
			reply_busy(c, holder, owner.ruid, " outside fxsamplerd");
			break;
		case -EINVAL:
			reply_error(
				c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, err, 0, 0,
				"invalid capture options: the period or frequency, buffer size "
				"(a power of two, at least a page) or max frames (1..%d) is out "
				"of range",
				FXS_MAX_FRAMES);
			break;
		case -ESRCH:
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_NOT_FOUND, err, 0, 0,
				    "a target process exited");
			break;
		case -EOPNOTSUPP:
			/* --unwind=cfi of a kernel that refuses the CFI walker */
			reply_error(
				c, FXS_MSG_SETUP, FXS_ERR_INVALID_ARGS, err, 0, 0,
				"--unwind=cfi: the CFI walker does not load on this kernel: %s; "
				"auto or fp work here",
				cfi_fallback_text(bpf_sampler_cfi_cause()));
			break;
		case -EACCES:
			/* it changed between the check above and its pidfd */
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_ACCESS_DENIED, err, 0, 0,
				    "a target process changed credentials: it is not uid %u's",
				    (unsigned)c->uid);
			break;
		default:
			reply_error(c, FXS_MSG_SETUP, FXS_ERR_INTERNAL, err, 0, 0,
				    "fxsamplerd cannot set up the sampler: %s", strerror(-err));
			log_err("cannot set up a capture for pid %d: %s", (int)c->pid,
				strerror(-err));
			break;
		}
		/* continuous mode resumes by itself */
		return;
	}
	s->owner = c;
	s->state = FXS_SESSION_CONFIGURED;
	s->holder_pid = c->pid;
	s->holder_uid = c->uid;
	s->opts = o;
	log_info("session for pid %d (uid %u): %s, %u target%s", (int)c->pid, (unsigned)c->uid,
		 o.nr_pids ? "pids" : "host-wide", o.nr_pids, o.nr_pids == 1 ? "" : "s");
	reply_ok(c, FXS_MSG_SETUP);
}

static void bad_state(struct conn *c, unsigned request, const struct session *s, bool own,
		      const char *want)
{
	reply_error(c, request, FXS_ERR_BAD_STATE, -EINVAL, 0, 0, "%s: %s, not %s",
		    protocol_type_name(request),
		    own ? protocol_session_name(s->state) : "this connection has no session", want);
}

/* Stop and finish a client's capture: the stream is complete after this. */
int session_end(struct session *s, unsigned reason)
{
	int err = 0;

	if (s->state == FXS_SESSION_RUNNING)
		err = capture_stop(s->cap);
	if (!err)
		err = capture_finish(s->cap);
	s->state = FXS_SESSION_STOPPED;
	if (!err)
		reply_end(s->owner, reason);
	return err;
}

void handle_request(struct daemon *d, struct conn *c, const struct fxs_msg *m)
{
	struct session *s = &d->sess;
	bool own = own_session(d, c);
	struct capture_stats st;
	struct fxs_msg r;
	int err;

	switch (m->type) {
	case FXS_MSG_SETUP:
		handle_setup(d, c, &m->setup);
		return;
	case FXS_MSG_START:
		if (!own || s->state != FXS_SESSION_CONFIGURED) {
			bad_state(c, m->type, s, own, "configured");
			return;
		}
		err = capture_start(s->cap);
		if (err) {
			reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
				    "cannot start sampling: %s", strerror(-err));
			return;
		}
		s->state = FXS_SESSION_RUNNING;
		s->next_drain_ms = mono_ms() + DRAIN_MS;
		s->drained_ms = 0;
		s->started_ms = mono_ms();
		session_watch(d);
		reply_ok(c, m->type);
		return;
	case FXS_MSG_STOP:
		if (!own || s->state != FXS_SESSION_RUNNING) {
			bad_state(c, m->type, s, own, "running");
			return;
		}
		err = session_end(s, FXS_END_STOPPED);
		if (err) {
			reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
				    "cannot stop sampling: %s", strerror(-err));
			return;
		}
		reply_ok(c, m->type);
		return;
	case FXS_MSG_READ:
		if (!own) {
			bad_state(c, m->type, s, own, "a session");
			return;
		}
		if (s->state != FXS_SESSION_STOPPED) {
			err = session_drain(s);
			if (err < 0) {
				reply_error(c, m->type, FXS_ERR_INTERNAL, err, 0, 0,
					    "cannot read the buffers: %s", strerror(-err));
				return;
			}
		}
		reply_ok(c, m->type);
		return;
	case FXS_MSG_DESTROY:
		if (!own) {
			bad_state(c, m->type, s, own, "a session");
			return;
		}
		log_info("session of pid %d (uid %u) destroyed", (int)c->pid, (unsigned)c->uid);
		session_clear(d);
		reply_ok(c, m->type);
		return;
	case FXS_MSG_STATUS:
		memset(&r, 0, sizeof(r));
		r.type = FXS_MSG_STATUS_REPLY;
		if (s->cap && c->uid && c->uid != s->holder_uid) {
			/* not root and not the holder: whose it is, not what it sees */
			r.status.session = s->state;
			r.status.flags = FXS_STATUS_OTHERS | (s->owner ? 0 : FXS_STATUS_CONTINUOUS);
			r.status.holder_uid = (uint32_t)s->holder_uid;
		} else if (s->cap) {
			capture_stats(s->cap, &st);
			r.status.session = s->state;
			r.status.flags = (s->owner ? 0 : FXS_STATUS_CONTINUOUS) |
					 (s->owner == c ? FXS_STATUS_YOURS : 0);
			r.status.holder_pid = (uint32_t)s->holder_pid;
			r.status.holder_uid = (uint32_t)s->holder_uid;
			r.status.nr_cpus = st.nr_cpus;
			r.status.nr_pids = s->opts.nr_pids;
			r.status.period_ns = s->opts.period_ns;
			r.status.freq_hz = s->opts.freq_hz;
			r.status.processes = st.processes;
			r.status.threads = st.threads;
			r.status.bytes = st.bytes;
			r.status.counters = st.counters;
		}
		if (queue_msg(c, &r))
			c->closing = true;
		return;
	default:
		reply_error(c, 0, FXS_ERR_BAD_MESSAGE, -EBADMSG, 0, 0,
			    "unexpected %s message from a client", protocol_type_name(m->type));
		return;
	}
}

/*
 * A session's client that reads nothing, one past max_session_length, or one
 * root pre-empts:
 * its capture is finished (the stream is complete if it ever reads it) and
 * the sampler is released for everyone else.
 */
void end_session_early(struct daemon *d, unsigned reason, const char *why)
{
	struct session *s = &d->sess;
	struct conn *c = s->owner;
	int err;

	log_info("ending the session of pid %d (uid %u): %s", (int)c->pid, (unsigned)c->uid, why);
	err = s->state == FXS_SESSION_STOPPED ? 0 : session_end(s, reason);
	if (err)
		reply_error(c, 0, FXS_ERR_INTERNAL, err, 0, 0, "fxsamplerd ended the capture: %s",
			    why);
	/* the sampler is everyone's again at once; the stream waits in c's queue */
	session_clear(d);
	if (reason == FXS_END_STALLED) {
		c->closing = true;
		c->close_by_ms = mono_ms() + CLOSE_GRACE_MS;
		conn_epoll(d, c, EPOLL_CTL_MOD);
	}
}
