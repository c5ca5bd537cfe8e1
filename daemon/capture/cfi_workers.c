// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/containers.h"
#include "capture/cfi_workers.h"

enum job_state { JOB_WAITING, JOB_RUNNING, JOB_DONE };

struct job {
	uint32_t id;
	int fd;
	enum job_state state;
	int err;
	struct fxs_cfi_row *rows;
	uint32_t n;
	uint64_t ns;
};

#define MAX_THREADS 8

struct cfi_workers {
	pthread_mutex_t lock;
	pthread_cond_t more; /* a job waits, or stop */
	struct job *jobs;    /* in the order queued; taken out when collected */
	size_t nr_jobs, cap_jobs;
	pthread_t threads[MAX_THREADS];
	unsigned nr_threads, want_threads;
	bool stop;
	cfi_make_fn make;
	void *ctx;
};

static void *worker(void *arg)
{
	struct cfi_workers *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *j = NULL;
		struct fxs_cfi_row *rows = NULL;
		uint32_t n = 0, id;
		uint64_t t0;
		int fd, err;

		for (size_t i = 0; !w->stop && i < w->nr_jobs && !j; i++)
			if (w->jobs[i].state == JOB_WAITING)
				j = &w->jobs[i];
		if (w->stop)
			break;
		if (!j) {
			pthread_cond_wait(&w->more, &w->lock);
			continue;
		}
		/* the array may move while it is made: find the job again by id */
		j->state = JOB_RUNNING;
		id = j->id;
		fd = j->fd;
		pthread_mutex_unlock(&w->lock);
		t0 = mono_ns();
		err = w->make(w->ctx, fd, &rows, &n);
		t0 = mono_ns() - t0;
		pthread_mutex_lock(&w->lock);
		for (size_t i = 0; i < w->nr_jobs; i++)
			if (w->jobs[i].id == id && w->jobs[i].state == JOB_RUNNING) {
				j = &w->jobs[i];
				j->state = JOB_DONE;
				j->err = err;
				j->rows = rows;
				j->n = n;
				j->ns = t0;
				close(j->fd);
				j->fd = -1;
				rows = NULL;
				break;
			}
		free(rows);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct cfi_workers *cfi_workers__new(unsigned nr, cfi_make_fn make, void *ctx)
{
	struct cfi_workers *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	w->want_threads = nr < 1 ? 1 : nr > MAX_THREADS ? MAX_THREADS : nr;
	w->make = make;
	w->ctx = ctx;
	return w;
}

void cfi_workers__free(struct cfi_workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->more);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->nr_threads; i++)
		pthread_join(w->threads[i], NULL);
	for (size_t i = 0; i < w->nr_jobs; i++) {
		if (w->jobs[i].fd >= 0)
			close(w->jobs[i].fd);
		free(w->jobs[i].rows);
	}
	free(w->jobs);
	pthread_cond_destroy(&w->more);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

bool cfi_workers_start(struct cfi_workers *w, uint32_t id, int fd)
{
	int dup = -1;
	bool ok = false;

	pthread_mutex_lock(&w->lock);
	/* the threads start with the first job: a capture of fp code needs none */
	while (w->nr_threads < w->want_threads &&
	       !pthread_create(&w->threads[w->nr_threads], NULL, worker, w))
		w->nr_threads++;
	if (w->nr_threads &&
	    !array_reserve((void **)&w->jobs, &w->cap_jobs, w->nr_jobs, sizeof(*w->jobs))) {
		dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup >= 0) {
			w->jobs[w->nr_jobs++] = (struct job){.id = id, .fd = dup};
			pthread_cond_signal(&w->more);
			ok = true;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return ok;
}

int cfi_workers_collect(struct cfi_workers *w, uint32_t id, struct fxs_cfi_row **ret_rows,
			uint32_t *ret_n, uint64_t *ret_ns)
{
	int err = -ESRCH;

	pthread_mutex_lock(&w->lock);
	for (size_t i = 0; i < w->nr_jobs; i++) {
		struct job *j = &w->jobs[i];

		if (j->id != id)
			continue;
		if (j->state != JOB_DONE) {
			err = -EINPROGRESS;
			break;
		}
		err = j->err;
		*ret_rows = j->rows;
		*ret_n = j->n;
		*ret_ns = j->ns;
		/* the rest keep their order: the first queued is made first */
		memmove(j, j + 1, (w->nr_jobs - i - 1) * sizeof(*j));
		w->nr_jobs--;
		break;
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}
