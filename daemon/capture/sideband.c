// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/sideband.h"

struct sb_ring {
	int fd;
	struct perf_event_mmap_page *meta;
	char *data;
	size_t size; /* of data */
};

struct sideband {
	int nr_cpus;
	size_t ring_bytes, page;
	struct sb_ring *rings;
	/*
	 * Per-task events (sideband_open_process()): each writes into its
	 * CPU's ring, whose own fd is the ring's; these are the others.
	 */
	int *task_fds;
	unsigned nr_task_fds;
	uint64_t lost;
	/* a record that wraps around the ring's end is copied here */
	uint8_t tmp[65536];
	/* the record handed on: header, struct fxs_mmap, path */
	struct {
		struct fxs_sample hdr;
		struct fxs_mmap mm;
		char path[FXS_PATH_MAX];
	} out;
};

/* PERF_RECORD_MMAP2 up to its file name (the build-id form of the union). */
struct mmap2_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		} file;
		struct {
			uint8_t size, reserved1;
			uint16_t reserved2;
			uint8_t id[20];
		} build_id;
	};
	uint32_t prot, flags;
};

/* What sample_id_all appends to every record for PERF_SAMPLE_TID | PERF_SAMPLE_TIME. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

struct sideband *sideband__new(int nr_cpus, size_t ring_bytes)
{
	struct sideband *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	sb->nr_cpus = nr_cpus;
	sb->page = (size_t)sysconf(_SC_PAGESIZE);
	sb->ring_bytes = ring_bytes < sb->page ? sb->page : ring_bytes;
	sb->rings = calloc(nr_cpus, sizeof(*sb->rings));
	if (!sb->rings) {
		free(sb);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < nr_cpus; i++)
		sb->rings[i].fd = -1;
	return sb;
}

void sideband__free(struct sideband *sb)
{
	if (!sb)
		return;
	for (unsigned i = 0; i < sb->nr_task_fds; i++)
		close(sb->task_fds[i]);
	free(sb->task_fds);
	for (int i = 0; i < sb->nr_cpus; i++) {
		if (sb->rings[i].meta)
			munmap(sb->rings[i].meta, sb->page + sb->rings[i].size);
		if (sb->rings[i].fd >= 0)
			close(sb->rings[i].fd);
	}
	free(sb->rings);
	free(sb);
}

/*
 * A dummy event for the mapping records of tid on cpu (tid -1: of every
 * process there). A task's is inherited: the threads and children it makes
 * from now on get their own, whose records the kernel writes into this one's
 * ring.
 */
static int open_event(pid_t tid, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1,
		.build_id = 1,
		/* an exec's comm record comes before its new image's mappings: they replace the old
		 */
		.comm = 1,
		.comm_exec = 1,
		.inherit = tid >= 0,
		.use_clockid = 1,
		.clockid = CLOCK_BOOTTIME,
		/* never woken: the reader drains on its timer */
		.watermark = 1,
		.wakeup_watermark = UINT32_MAX,
	};
	int fd = (int)syscall(__NR_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && (errno == EINVAL || errno == E2BIG)) {
		/* before 5.12: no build ids; they come from the files then */
		attr.build_id = 0;
		fd = (int)syscall(__NR_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* fd's records into cpu's ring: the ring is made for the first, the others write into it. */
static int attach_ring(struct sideband *sb, int cpu, int fd)
{
	struct sb_ring *r = &sb->rings[cpu];
	void *map;

	if (r->fd >= 0) {
		int *fds = realloc(sb->task_fds, (sb->nr_task_fds + 1) * sizeof(*fds));

		if (!fds)
			return -ENOMEM;
		sb->task_fds = fds;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd))
			return -errno;
		fds[sb->nr_task_fds++] = fd;
		return 0;
	}
	map = mmap(NULL, sb->page + sb->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->meta = map;
	r->data = (char *)map + sb->page;
	r->size = sb->ring_bytes;
	return 0;
}

int sideband_open_cpu(struct sideband *sb, int cpu)
{
	int fd, err;

	if (cpu < 0 || cpu >= sb->nr_cpus)
		return -EINVAL;
	if (sb->rings[cpu].fd >= 0)
		return 0;
	fd = open_event(-1, cpu);
	if (fd < 0)
		return fd;
	err = attach_ring(sb, cpu, fd);
	if (err)
		close(fd);
	return err;
}

/*
 * How many per-task events a session may hold: a fd each, so at most a
 * quarter of the soft fd limit (the daemon's clients need fds too), and
 * never more than SIDEBAND_TASK_EVENTS_MAX.
 */
static unsigned task_events_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 4 >= SIDEBAND_TASK_EVENTS_MAX)
		return SIDEBAND_TASK_EVENTS_MAX;
	return (unsigned)(rl.rlim_cur / 4);
}

static int open_task(struct sideband *sb, pid_t tid, const bool *cpus)
{
	unsigned max = task_events_max();

	for (int cpu = 0; cpu < sb->nr_cpus; cpu++) {
		int fd, err;

		if (!cpus[cpu])
			continue;
		if (sb->nr_task_fds + (unsigned)sb->nr_cpus >= max)
			return -E2BIG;
		fd = open_event(tid, cpu);
		if (fd < 0)
			return fd;
		err = attach_ring(sb, cpu, fd);
		if (err) {
			close(fd);
			return err;
		}
	}
	return 0;
}

static bool have_tid(const pid_t *tids, unsigned n, pid_t tid)
{
	for (unsigned i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

int sideband_open_process(struct sideband *sb, pid_t pid, const bool *cpus)
{
	pid_t tids[SIDEBAND_TASK_EVENTS_MAX];
	unsigned nr = 0;
	char dir[64];
	bool more = true;
	int err = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	/*
	 * Each thread's own event (an event follows one thread): the threads
	 * made after it inherit theirs, but one made by a thread not yet
	 * opened would not, so the list is read again until it has no new one.
	 */
	while (!err && more) {
		DIR *d = opendir(dir);
		struct dirent *de;

		if (!d)
			return errno == ENOENT ? -ESRCH : -errno;
		more = false;
		while (!err && (de = readdir(d))) {
			pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);

			if (tid <= 0 || have_tid(tids, nr, tid))
				continue;
			if (nr == SIDEBAND_TASK_EVENTS_MAX) {
				err = -E2BIG;
				break;
			}
			tids[nr++] = tid;
			more = true;
			err = open_task(sb, tid, cpus);
			/* a thread that exited since the list was read */
			if (err == -ESRCH)
				err = 0;
		}
		closedir(d);
	}
	return err;
}

/* One MMAP2 record (whole, in rec) as an FXS_KIND_MMAP record to fn. */
static int hand_mmap2(struct sideband *sb, int cpu, const uint8_t *rec, size_t size, sideband_fn fn,
		      void *ctx)
{
	const struct mmap2_head *m = (const void *)rec;
	const struct sample_id *id;
	const char *name = (const char *)(m + 1);
	size_t name_max, len;

	if (size < sizeof(*m) + sizeof(*id))
		return 0;
	id = (const void *)(rec + size - sizeof(*id));
	name_max = size - sizeof(*m) - sizeof(*id);
	len = strnlen(name, name_max);
	if (len == name_max || len >= FXS_PATH_MAX)
		return 0;
	memset(&sb->out.hdr, 0, sizeof(sb->out.hdr) + sizeof(sb->out.mm));
	sb->out.hdr.time_ns = id->time;
	sb->out.hdr.pid = m->pid;
	sb->out.hdr.tid = m->tid;
	sb->out.hdr.cpu = (uint16_t)cpu;
	sb->out.hdr.kind = FXS_KIND_MMAP;
	sb->out.mm.start = m->addr;
	sb->out.mm.len = m->len;
	sb->out.mm.pgoff = m->pgoff;
	sb->out.mm.prot = m->prot;
	sb->out.mm.flags = m->flags;
	if (m->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		if (m->build_id.size <= FXS_BUILD_ID_MAX) {
			sb->out.mm.build_id_size = m->build_id.size;
			memcpy(sb->out.mm.build_id, m->build_id.id, m->build_id.size);
		}
	} else {
		sb->out.mm.maj = m->file.maj;
		sb->out.mm.min = m->file.min;
		sb->out.mm.ino = m->file.ino;
	}
	memcpy(sb->out.path, name, len + 1);
	sb->out.mm.path_len = (uint16_t)(len + 1);
	return fn(ctx, &sb->out.hdr, sizeof(sb->out.hdr) + sizeof(sb->out.mm) + len + 1);
}

/*
 * A COMM record that an exec made (the kernel sets its name in
 * begin_new_exec(), after the old memory went and before the new image is
 * mapped) as an FXS_KIND_EXEC record; a rename (prctl) is no news here.
 */
static int hand_comm(struct sideband *sb, int cpu, const uint8_t *rec, size_t size, sideband_fn fn,
		     void *ctx)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint32_t *ids = (const void *)(h + 1);
	const struct sample_id *id;

	if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || size < sizeof(*h) + 8 + sizeof(*id))
		return 0;
	id = (const void *)(rec + size - sizeof(*id));
	memset(&sb->out.hdr, 0, sizeof(sb->out.hdr));
	sb->out.hdr.time_ns = id->time;
	sb->out.hdr.pid = ids[0];
	sb->out.hdr.tid = ids[1];
	sb->out.hdr.cpu = (uint16_t)cpu;
	sb->out.hdr.kind = FXS_KIND_EXEC;
	return fn(ctx, &sb->out.hdr, sizeof(sb->out.hdr));
}

static int read_ring(struct sideband *sb, int cpu, sideband_fn fn, void *ctx)
{
	struct sb_ring *r = &sb->rings[cpu];
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;
	int err = 0;

	while (!err && tail < head) {
		struct perf_event_header h;
		size_t off = tail % r->size, first;
		const uint8_t *rec;

		/* a header never straddles the end: records are 8-byte multiples */
		memcpy(&h, r->data + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		rec = (const uint8_t *)r->data + off;
		if (off + h.size > r->size) {
			first = r->size - off;
			memcpy(sb->tmp, r->data + off, first);
			memcpy(sb->tmp + first, r->data, h.size - first);
			rec = sb->tmp;
		}
		if (h.type == PERF_RECORD_MMAP2)
			err = hand_mmap2(sb, cpu, rec, h.size, fn, ctx);
		else if (h.type == PERF_RECORD_COMM)
			err = hand_comm(sb, cpu, rec, h.size, fn, ctx);
		else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16)
			sb->lost += ((const uint64_t *)(rec + sizeof(h)))[1];
		tail += h.size;
	}
	/* the kernel may reuse what we read */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}

int sideband_read(struct sideband *sb, sideband_fn fn, void *ctx)
{
	int err = 0;

	for (int cpu = 0; !err && cpu < sb->nr_cpus; cpu++)
		if (sb->rings[cpu].meta)
			err = read_ring(sb, cpu, fn, ctx);
	return err;
}

uint64_t sideband_lost(const struct sideband *sb)
{
	return sb->lost;
}

/*
 * Each CPU's side-band ring: 512 KiB (a few thousand mapping records, for
 * the reader's 100 ms), less with many CPUs, so that all of them take at
 * most half of the 8 MiB memlock limit a daemon without CAP_IPC_LOCK has;
 * never more than the BPF rings.
 */
#define SIDEBAND_RING_MAX (512 * 1024)
#define SIDEBAND_RING_MIN (16 * 1024)
#define SIDEBAND_ALL_MAX  (4 * 1024 * 1024)

size_t sideband_ring_bytes(size_t buffer_size, int nr_cpus)
{
	size_t size = SIDEBAND_RING_MAX;

	while (size > SIDEBAND_RING_MIN && size * (size_t)nr_cpus > SIDEBAND_ALL_MAX)
		size /= 2;
	return buffer_size < size ? buffer_size : size;
}
