// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Opening what a process maps: the mapped file, the vdso's image (modules.c's I/O). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/elf_file.h"
#include "symbols/elf_symbols.h"
#include "capture/mapped_file.h"
#include "capture/proc_maps.h"

/* The vdso's image in buf: its symbols, and with ret_fd a memfd holding it. */
static struct elf_symbols *vdso_image(const void *buf, size_t len, int *ret_fd)
{
	struct elf_symbols *es = elf_symbols__open_mem(buf, len, "[vdso]", NULL);

	if (es && ret_fd) {
		*ret_fd = memfd_create("fxs-vdso", MFD_CLOEXEC);
		if (*ret_fd >= 0 && write(*ret_fd, buf, len) != (ssize_t)len) {
			close(*ret_fd);
			*ret_fd = -1;
		}
	}
	return es;
}

/*
 * Ours, when a process maps a vdso of len bytes: every 64-bit process maps
 * the kernel's one 64-bit vdso, and so do we. Another length is another
 * image (a 32-bit process's): NULL, and nothing read past ours.
 */
static struct elf_symbols *own_vdso(size_t len, int *ret_fd)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct proc_map *maps = NULL;
	const struct proc_map *m;
	struct elf_symbols *es = NULL;
	size_t n = 0;

	if (!base || proc_maps_read("/proc/self/maps", &maps, &n))
		return NULL;
	m = proc_maps_find(maps, n, base);
	if (m && m->perms[0] == 'r' && m->start == base && m->end - m->start == len)
		es = vdso_image((const void *)base, len, ret_fd);
	proc_maps_free(maps, n);
	return es;
}

/*
 * Read the vdso out of the process: it has no file to open later. With
 * ret_fd, also a memfd holding the image, for the listener to read (the
 * CFI walker's table).
 */
struct elf_symbols *mapped_vdso_open(const char *dir, const struct proc_map *map, int *ret_fd)
{
	size_t len = map->end - map->start;
	struct elf_symbols *es = NULL;
	char path[128];
	void *buf;
	int fd;

	if (len > (1 << 20))
		return NULL;
	if (dir) {
		snprintf(path, sizeof(path), "%s/mem", dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		buf = fd >= 0 ? malloc(len) : NULL;
		if (buf && pread(fd, buf, len, map->start) == (ssize_t)len)
			es = vdso_image(buf, len, ret_fd);
		free(buf);
		if (fd >= 0)
			close(fd);
	}
	/*
	 * A mapping event has no process to read. A read fails when the
	 * process exec'd since its maps were read: its vdso is elsewhere in
	 * the new image, and the vdso's one entry per capture failed for every
	 * process after it (record's `chroot ROOT python3.13`, which execs
	 * again within milliseconds: no vdso table in 2 of 5 runs of
	 * check_python313, and every stack from the vdso cut in its caller,
	 * 47 % of them). The kernel's vdso is ours too.
	 */
	return es ? es : own_vdso(len, ret_fd);
}

/*
 * The path a maps line names belongs to the target's owner, who may have put
 * another file there since (a file only root may read, a FIFO whose open()
 * would block us forever), and in another mount namespace it names another
 * file anyway. Open it without side effects (O_PATH), and read it only if it
 * is still the mapped inode, through the fd, so that it cannot change again.
 * A mapping event that carries the build id carries no inode (perf's MMAP2
 * has one or the other): then only a file anyone may read is read, and the
 * caller keeps it only if its build id is the mapped file's. Returns an fd
 * open for reading on it, or -1.
 */
static int open_mapped_path(const struct proc_map *map, bool by_build_id)
{
	char fd_path[64];
	struct stat st;
	int fd, ret = -1;

	if (map->deleted || map->path[0] != '/')
		return -1;
	fd = open(map->path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (by_build_id ? (st.st_mode & S_IROTH) != 0
			 : st.st_ino == map->inode && major(st.st_dev) == map->dev_major &&
				   minor(st.st_dev) == map->dev_minor)) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
		ret = open(fd_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(fd);
	return ret;
}

/*
 * An fd open for reading on the file mapped, or -1. map_files reaches the
 * very file mapped, even deleted or in another mount namespace; it needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE, which the service lacks.
 */
int mapped_file_reopen(const struct proc_map *map, const uint8_t *build_id, size_t build_id_len)
{
	bool by_build_id = build_id_len && !map->inode && !map->dev_major;
	int fd = open_mapped_path(map, by_build_id);
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_file f = {.fd = -1};
	GElf_Ehdr ehdr;
	char path[64];
	size_t len = 0;
	bool same;

	if (fd < 0 || !by_build_id)
		return fd;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	same = !elf_file_open(path, &f, &ehdr) && elf_find_build_id(f.elf, id, &len) == 1 &&
	       len == build_id_len && !memcmp(id, build_id, len);
	elf_file_close(&f);
	if (!same) {
		close(fd);
		return -1;
	}
	return fd;
}

int mapped_file_open(const char *dir, const struct proc_map *map, bool by_build_id)
{
	char path[160];
	struct stat st;
	int fd = -1;

	if (dir) {
		snprintf(path, sizeof(path), "%s/map_files/%llx-%llx", dir,
			 (unsigned long long)map->start, (unsigned long long)map->end);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
		}
	}
	return fd >= 0 ? fd : open_mapped_path(map, by_build_id);
}
