// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * capture/cfi_workers: tables made on threads, collected by id once made
 * (-EINPROGRESS before), each job's result its own, jobs dropped at free.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture/cfi_workers.h"
#include "check_main.h"

/* rows: as many as the fd's file has bytes (a pipe: -EBADMSG) */
static int fake_make(void *ctx, int fd, struct fxs_cfi_row **ret_rows, uint32_t *ret_n)
{
	struct stat st;

	(void)ctx;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -EBADMSG;
	usleep(20000);
	*ret_rows = calloc(st.st_size + 1, sizeof(**ret_rows));
	*ret_n = (uint32_t)st.st_size;
	return 0;
}

static int file_of(size_t bytes)
{
	char path[] = "/tmp/fxs-cfi-workers.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, (off_t)bytes), 0);
	return fd;
}

static int wait_collect(struct cfi_workers *w, uint32_t id, struct fxs_cfi_row **rows, uint32_t *n)
{
	uint64_t ns;
	int err;

	for (int i = 0; i < 500; i++) {
		err = cfi_workers_collect(w, id, rows, n, &ns);
		if (err != -EINPROGRESS)
			return err;
		usleep(10000);
	}
	return err;
}

START_TEST(test_jobs_by_id)
{
	struct cfi_workers *w = cfi_workers__new(2, fake_make, NULL);
	int a = file_of(10), b = file_of(30), p[2];
	struct fxs_cfi_row *rows = NULL;
	uint32_t n = 0;
	uint64_t ns;

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert(cfi_workers_start(w, 7, a));
	ck_assert(cfi_workers_start(w, 9, b));
	ck_assert(cfi_workers_start(w, 11, p[0]));
	/* the fds were dup'ed: the caller's may go at once */
	close(a);
	close(b);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(cfi_workers_collect(w, 5, &rows, &n, &ns), -ESRCH);
	ck_assert_int_eq(wait_collect(w, 9, &rows, &n), 0);
	ck_assert_uint_eq(n, 30);
	free(rows);
	ck_assert_int_eq(wait_collect(w, 11, &rows, &n), -EBADMSG);
	ck_assert_int_eq(wait_collect(w, 7, &rows, &n), 0);
	ck_assert_uint_eq(n, 10);
	free(rows);
	/* collected once */
	ck_assert_int_eq(cfi_workers_collect(w, 7, &rows, &n, &ns), -ESRCH);
	cfi_workers__free(w);
}
END_TEST

/* Jobs still queued or being made when the capture ends: waited for, dropped. */
START_TEST(test_free_with_jobs)
{
	struct cfi_workers *w = cfi_workers__new(1, fake_make, NULL);
	int a = file_of(5);

	for (uint32_t id = 0; id < 20; id++)
		ck_assert(cfi_workers_start(w, id, a));
	close(a);
	cfi_workers__free(w);
	cfi_workers__free(NULL);
}
END_TEST

static Suite *cfi_workers_suite(void)
{
	Suite *s = suite_create("cfi_workers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_jobs_by_id);
	tcase_add_test(tc, test_free_with_jobs);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cfi_workers_suite)
