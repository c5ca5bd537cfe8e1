// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of outfile: the output file of record and report. A new file
 * honours the umask, a replaced one keeps its mode (and, as root, its owner),
 * a character device made with mknod() here and a FIFO are written through
 * and stay what they were, a FIFO without a reader is refused at once, and an
 * abort leaves the old file and no temporary one. Continuous mode's files: a
 * long-lived new file that replaces nothing, a leftover adopted, and the
 * temporary name told from any other.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/outfile.h"
#include "check_main.h"

#define NOBODY 65534

static char tmpdir[PATH_MAX];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/fxs_outfile.XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd)) {
		/* a leftover in $TMPDIR is no test failure */
	}
}

static char *path_of(const char *name)
{
	static char buf[4][PATH_MAX + 320];
	static unsigned next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

static void assert_text(const char *path, const char *want)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, want);
}

static void write_all(struct outfile *o, const char *text)
{
	ck_assert_int_eq(write(o->fd, text, strlen(text)), (ssize_t)strlen(text));
}

/* The names in tmpdir beside those expected: a temporary file left over shows. */
static unsigned nr_entries(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* A new file: 0666 & ~umask, written under ".NAME.XXXXXX" beside it until commit. */
START_TEST(test_new_file_umask)
{
	static const struct {
		mode_t mask, want;
	} cases[] = {{077, 0600}, {027, 0640}, {022, 0644}, {0, 0666}};
	char *path = path_of("new.fxt"), want_tmp[PATH_MAX + 64];
	mode_t old = umask(0);

	umask(old);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outfile o;

		umask(cases[i].mask);
		ck_assert_int_eq(outfile_open(&o, path, 0), 0);
		umask(old);
		ck_assert(!o.direct);
		snprintf(want_tmp, sizeof(want_tmp), "%s/.new.fxt.", tmpdir);
		ck_assert_msg(!strncmp(o.tmp, want_tmp, strlen(want_tmp)), "temp name %s", o.tmp);
		ck_assert_uint_eq(strlen(o.tmp), strlen(want_tmp) + 6);
		/* nothing under the final name until it is complete */
		ck_assert_int_ne(access(path, F_OK), 0);
		write_all(&o, "new");
		ck_assert_int_eq(outfile_commit(&o), 0);
		assert_text(path, "new");
		ck_assert_msg(mode_of(path) == cases[i].want, "umask %03o gave %03o", cases[i].mask,
			      mode_of(path));
		ck_assert_uint_eq(nr_entries(), 1);
		unlink(path);
	}
}
END_TEST

/* Replacing a file keeps its permission bits (never set-id), and as root its owner. */
START_TEST(test_replace_keeps_mode)
{
	char *path = path_of("old.fxt");
	bool root = geteuid() == 0;
	struct outfile o;
	struct stat st;

	put(path, "old", 0640);
	if (root)
		ck_assert_int_eq(chown(path, NOBODY, NOBODY), 0);
	umask(077);
	ck_assert_int_eq(outfile_open(&o, path, 0), 0);
	umask(022);
	write_all(&o, "new");
	/* the old file is whole until the rename */
	assert_text(path, "old");
	ck_assert_int_eq(outfile_commit(&o), 0);
	assert_text(path, "new");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 07777) == 0640, "replacing a 0640 file gave %03o",
		      st.st_mode & 07777);
	if (root) {
		ck_assert_uint_eq(st.st_uid, NOBODY);
		ck_assert_uint_eq(st.st_gid, NOBODY);
	}
	ck_assert_uint_eq(nr_entries(), 1);

	/* set-id bits are not carried over */
	ck_assert_int_eq(chmod(path, 04755), 0);
	ck_assert_int_eq(outfile_open(&o, path, 0), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_uint_eq(mode_of(path), 0755);
}
END_TEST

/* A symlink to a file: the target is replaced, the link stays. */
START_TEST(test_symlink_to_file)
{
	char *target = path_of("real.fxt"), *link = path_of("link.fxt");
	struct outfile o;
	struct stat st;

	put(target, "old", 0600);
	ck_assert_int_eq(symlink("real.fxt", link), 0);
	ck_assert_int_eq(outfile_open(&o, link, 0), 0);
	write_all(&o, "new");
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
	assert_text(target, "new");
	ck_assert_uint_eq(mode_of(target), 0600);
	ck_assert_uint_eq(nr_entries(), 2);
}
END_TEST

/* A character device of our own (/dev/null's numbers), and a link to it: written through. */
START_TEST(test_char_device)
{
	char *node = path_of("null"), *link = path_of("link");
	const char *names[] = {node, link};
	struct stat st;

	ck_assert_int_eq(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(symlink("null", link), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct outfile o;

		ck_assert_int_eq(outfile_open(&o, names[i], OUTFILE_NO_TTY), 0);
		ck_assert(o.direct);
		ck_assert_str_eq(o.tmp, "");
		write_all(&o, "into the device");
		ck_assert_int_eq(outfile_commit(&o), 0);
		ck_assert_int_eq(stat(node, &st), 0);
		ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device", node);
		ck_assert_uint_eq(st.st_rdev, makedev(1, 3));
		ck_assert_int_eq(lstat(link, &st), 0);
		ck_assert(S_ISLNK(st.st_mode));
		ck_assert_uint_eq(nr_entries(), 2);
	}
	/* an abort of a device removes nothing */
	{
		struct outfile o;

		ck_assert_int_eq(outfile_open(&o, node, 0), 0);
		outfile_abort(&o);
		ck_assert_int_eq(stat(node, &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	}
}
END_TEST

/* A FIFO: refused at once without a reader, written through with one, stays a FIFO. */
START_TEST(test_fifo)
{
	char *fifo = path_of("fifo"), buf[64];
	struct outfile o;
	struct stat st;
	int in, err;
	ssize_t n;

	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	alarm(5); /* a blocking open would hang here */
	err = outfile_open(&o, fifo, 0);
	alarm(0);
	ck_assert_int_eq(err, -ENXIO);
	ck_assert_str_eq(outfile_strerror(&o, err), "a FIFO with no reader");
	ck_assert_uint_eq(nr_entries(), 1);

	in = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(in, 0);
	ck_assert_int_eq(outfile_open(&o, fifo, 0), 0);
	ck_assert(o.direct);
	write_all(&o, "piped");
	ck_assert_int_eq(outfile_commit(&o), 0);
	n = read(in, buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, 5);
	buf[n] = '\0';
	ck_assert_str_eq(buf, "piped");
	/* the writer closed: end of file */
	ck_assert_int_eq(read(in, buf, sizeof(buf)), 0);
	close(in);
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_uint_eq(nr_entries(), 1);
}
END_TEST

/* An abort leaves the old file as it was and no temporary file; twice is harmless. */
START_TEST(test_abort)
{
	char *path = path_of("keep.fxt"), *fresh = path_of("fresh.fxt");
	struct outfile o, zero = {0};

	put(path, "old", 0644);
	ck_assert_int_eq(outfile_open(&o, path, 0), 0);
	write_all(&o, "half a capture");
	ck_assert_int_eq(access(o.tmp, F_OK), 0);
	ck_assert_uint_eq(nr_entries(), 2);
	outfile_abort(&o);
	outfile_abort(&o);
	assert_text(path, "old");
	ck_assert_uint_eq(nr_entries(), 1);

	/* a new file aborted is not there at all */
	ck_assert_int_eq(outfile_open(&o, fresh, 0), 0);
	outfile_abort(&o);
	ck_assert_int_ne(access(fresh, F_OK), 0);
	ck_assert_uint_eq(nr_entries(), 1);
	/* a zeroed struct (never opened): nothing closed, fd 0 included */
	outfile_abort(&zero);
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
}
END_TEST

/* What cannot be written is refused before anything is created. */
START_TEST(test_refused)
{
	char *missing = path_of("no/such/dir/x.fxt"), *sockp = path_of("sock"), cwd[PATH_MAX];
	struct outfile o;
	int err;

	ck_assert_int_eq(outfile_open(&o, missing, 0), -ENOENT);
	ck_assert_int_eq(outfile_open(&o, tmpdir, 0), -EISDIR);
	/* a socket is no file to write a capture into */
	ck_assert_int_eq(mknod(sockp, S_IFSOCK | 0666, 0), 0);
	err = outfile_open(&o, sockp, 0);
	ck_assert_int_eq(err, -OUTFILE_ENOTREG);
	ck_assert_str_eq(outfile_strerror(&o, err),
			 "not a regular file, a character device or a FIFO");
	/* "-" is a file name unless asked for (made here, not in the test's cwd) */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpdir), 0);
	ck_assert_int_eq(outfile_open(&o, "-", 0), 0);
	ck_assert(!o.is_stdout && !o.direct);
	ck_assert_int_eq(strncmp(o.tmp, ".-.", 3), 0);
	outfile_abort(&o);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_uint_eq(nr_entries(), 1);
}
END_TEST

/* "-" with OUTFILE_DASH_STDOUT: fd 1, never closed; a terminal refused with OUTFILE_NO_TTY. */
START_TEST(test_stdout)
{
	int pipefd[2], saved = dup(STDOUT_FILENO);
	struct outfile o;
	char buf[16];

	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(dup2(pipefd[1], STDOUT_FILENO), STDOUT_FILENO);
	close(pipefd[1]);
	ck_assert_int_eq(outfile_open(&o, "-", OUTFILE_DASH_STDOUT | OUTFILE_NO_TTY), 0);
	ck_assert(o.is_stdout && o.direct);
	ck_assert_int_eq(o.fd, STDOUT_FILENO);
	write_all(&o, "out");
	ck_assert_int_eq(outfile_commit(&o), 0);
	/* still open: the commit did not close stdout */
	ck_assert_int_ne(fcntl(STDOUT_FILENO, F_GETFD), -1);
	ck_assert_int_eq(read(pipefd[0], buf, 3), 3);
	ck_assert(!memcmp(buf, "out", 3));
	ck_assert_int_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	close(pipefd[0]);
	ck_assert_int_ne(access(path_of("-"), F_OK), 0);
}
END_TEST

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The temporary name is ".NAME.XXXXXX" and names NAME back; anything else is
 * no temporary name of outfile's.
 */
START_TEST(test_temp_target)
{
	static const char *const not_temp[] = {
		"x.ABCDEF",  ".x.ABCDE", ".x.ABCDE_",	".x-ABCDEF", ".x.ABCDEFG", "..ABCDEF",
		"...ABCDEF", ".ABCDEF",	 ".a/b.ABCDEF", "",	     "fxs.fxt",	   ".x.fxt.part",
	};
	char long_name[256], buf[NAME_MAX + 1];
	struct outfile o;
	size_t i;

	ck_assert_int_eq(outfile_temp_target(".fxsampler-x.fxt.Ab3xYz", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "fxsampler-x.fxt");
	ck_assert_int_eq(outfile_temp_target(".x.ABCDEF", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "x");
	ck_assert_int_eq(outfile_temp_target("..x.ABCDEF", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, ".x");
	for (i = 0; i < sizeof(not_temp) / sizeof(not_temp[0]); i++)
		ck_assert_msg(outfile_temp_target(not_temp[i], buf, sizeof(buf)) == -EINVAL,
			      "'%s' taken for a temporary name", not_temp[i]);
	ck_assert_int_eq(outfile_temp_target(".abc.ABCDEF", buf, 3), -ENAMETOOLONG);
	ck_assert_int_eq(outfile_temp_target(".abc.ABCDEF", buf, 4), 0);
	ck_assert_str_eq(buf, "abc");

	/* outfile_open()'s temporary file is named so */
	ck_assert_int_eq(outfile_open(&o, path_of("round.fxt"), 0), 0);
	ck_assert_int_eq(outfile_temp_target(base_of(o.tmp), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "round.fxt");
	outfile_abort(&o);
	/* a long name is cut in its temporary name: its first 200 bytes come back */
	memset(long_name, 'n', 240);
	long_name[240] = '\0';
	ck_assert_int_eq(outfile_open(&o, path_of(long_name), 0), 0);
	ck_assert_int_eq(outfile_temp_target(base_of(o.tmp), buf, sizeof(buf)), 0);
	ck_assert_uint_eq(strlen(buf), 200);
	ck_assert_int_eq(strncmp(buf, long_name, 200), 0);
	outfile_abort(&o);
	/* which outfile_create() refuses: its name must come back whole */
	ck_assert_int_eq(outfile_create(&o, path_of(long_name), 0640), -ENAMETOOLONG);
	long_name[200] = '\0';
	ck_assert_int_eq(outfile_create(&o, path_of(long_name), 0640), 0);
	ck_assert_int_eq(outfile_temp_target(base_of(o.tmp), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, long_name);
	outfile_abort(&o);
	ck_assert_uint_eq(nr_entries(), 0);
}
END_TEST

/*
 * A long-lived new file (continuous mode): its exact mode whatever the
 * umask, under its temporary name while it grows and syncs, its name only at
 * commit, and then no temporary file left.
 */
START_TEST(test_create_sync_commit)
{
	char *path = path_of("fxsampler-1.fxt"), tmp[PATH_MAX], buf[NAME_MAX + 1];
	mode_t old = umask(077);
	struct outfile o;
	struct stat st;

	ck_assert_int_eq(outfile_create(&o, path, 0640), 0);
	umask(old);
	ck_assert_str_eq(o.name, path);
	ck_assert_int_eq(outfile_temp_target(base_of(o.tmp), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "fxsampler-1.fxt");
	ck_assert_int_eq(strncmp(o.tmp, tmpdir, strlen(tmpdir)), 0);
	ck_assert_uint_eq(mode_of(o.tmp), 0640);
	write_all(&o, "first ");
	ck_assert_int_eq(outfile_sync(&o), 0);
	write_all(&o, "second");
	ck_assert_int_ne(access(path, F_OK), 0);
	assert_text(o.tmp, "first second");
	snprintf(tmp, sizeof(tmp), "%s", o.tmp);
	ck_assert_int_eq(outfile_commit(&o), 0);
	assert_text(path, "first second");
	ck_assert_uint_eq(mode_of(path), 0640);
	ck_assert_int_ne(access(tmp, F_OK), 0);
	ck_assert_uint_eq(nr_entries(), 1);
	ck_assert_int_eq(outfile_sync(&o), -EBADF);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
}
END_TEST

/*
 * outfile_create() replaces nothing: a name taken already (a dangling
 * symlink too) is refused, and a name taken meanwhile fails the commit with
 * the temporary file kept, whole, for a salvage.
 */
START_TEST(test_create_noreplace)
{
	char *path = path_of("taken.fxt"), *link = path_of("link.fxt"), tmp[PATH_MAX];
	struct outfile o;

	put(path, "old", 0644);
	ck_assert_int_eq(outfile_create(&o, path, 0640), -EEXIST);
	ck_assert_int_eq(symlink("nowhere", link), 0);
	ck_assert_int_eq(outfile_create(&o, link, 0640), -EEXIST);
	ck_assert_int_eq(outfile_create(&o, path_of("no/dir/x.fxt"), 0640), -ENOENT);
	ck_assert_int_eq(outfile_create(&o, path_of(""), 0640), -EISDIR);
	ck_assert_uint_eq(nr_entries(), 2);
	assert_text(path, "old");

	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(outfile_create(&o, path, 0640), 0);
	write_all(&o, "hours of samples");
	put(path, "someone else's", 0644);
	snprintf(tmp, sizeof(tmp), "%s", o.tmp);
	ck_assert_int_eq(outfile_commit(&o), -EEXIST);
	assert_text(path, "someone else's");
	assert_text(tmp, "hours of samples");
	ck_assert_str_eq(o.tmp, tmp);
	/* closed: an abort now removes nothing */
	ck_assert_int_eq(outfile_abort(&o), 0);
	assert_text(tmp, "hours of samples");
	ck_assert_uint_eq(nr_entries(), 3);
}
END_TEST

/*
 * A temporary file a killed writer left is taken over: cut through o->fd and
 * committed without replacing, or aborted, or left for later.
 */
START_TEST(test_adopt)
{
	char tmp[PATH_MAX + 64], final[PATH_MAX + 64], other[PATH_MAX + 64], buf[8];
	struct outfile o;

	/* path_of() has 4 buffers only */
	snprintf(tmp, sizeof(tmp), "%s", path_of(".left.fxt.Ab3xYz"));
	snprintf(final, sizeof(final), "%s", path_of("left.fxt"));
	snprintf(other, sizeof(other), "%s", path_of("other.fxt"));

	put(tmp, "whole records, then a cut one", 0640);
	ck_assert_int_eq(outfile_adopt(&o, tmp, final), 0);
	ck_assert_int_eq(pread(o.fd, buf, 5, 0), 5);
	ck_assert(!memcmp(buf, "whole", 5));
	ck_assert_int_eq(ftruncate(o.fd, 13), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	assert_text(final, "whole records");
	ck_assert_int_ne(access(tmp, F_OK), 0);
	ck_assert_uint_eq(mode_of(final), 0640);

	/* never over a file that has the name */
	put(tmp, "again", 0640);
	ck_assert_int_eq(outfile_adopt(&o, tmp, final), 0);
	ck_assert_int_eq(outfile_commit(&o), -EEXIST);
	assert_text(final, "whole records");
	assert_text(tmp, "again");

	/* left as it is, or removed */
	ck_assert_int_eq(outfile_adopt(&o, tmp, other), 0);
	outfile_leave(&o);
	outfile_leave(&o);
	assert_text(tmp, "again");
	ck_assert_int_eq(outfile_adopt(&o, tmp, other), 0);
	ck_assert_int_eq(outfile_abort(&o), 0);
	ck_assert_int_ne(access(tmp, F_OK), 0);
	ck_assert_int_ne(access(other, F_OK), 0);
	/* removed by someone else meanwhile: no failure */
	put(tmp, "x", 0640);
	ck_assert_int_eq(outfile_adopt(&o, tmp, other), 0);
	ck_assert_int_eq(unlink(tmp), 0);
	ck_assert_int_eq(outfile_abort(&o), 0);

	/* only a regular file, never through a symlink */
	ck_assert_int_eq(mkfifo(path_of(".fifo.fxt.Ab3xYz"), 0600), 0);
	ck_assert_int_eq(outfile_adopt(&o, path_of(".fifo.fxt.Ab3xYz"), final), -OUTFILE_ENOTREG);
	ck_assert_int_eq(symlink(final, path_of(".link.fxt.Ab3xYz")), 0);
	ck_assert_int_eq(outfile_adopt(&o, path_of(".link.fxt.Ab3xYz"), final), -ELOOP);
	ck_assert_int_eq(outfile_adopt(&o, path_of(".gone.fxt.Ab3xYz"), final), -ENOENT);
	ck_assert_uint_eq(nr_entries(), 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_new_file_umask);
	tcase_add_test(tc, test_replace_keeps_mode);
	tcase_add_test(tc, test_symlink_to_file);
	if (geteuid() == 0)
		tcase_add_test(tc, test_char_device);
	else
		printf("SKIP: check_outfile: mknod of a character device needs root; NOT RUN\n");
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_abort);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_stdout);
	tcase_add_test(tc, test_temp_target);
	tcase_add_test(tc, test_create_sync_commit);
	tcase_add_test(tc, test_create_noreplace);
	tcase_add_test(tc, test_adopt);
	suite_add_tcase(s, tc);
	return check_run(s);
}
