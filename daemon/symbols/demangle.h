/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names a programmer reads: C++ (Itanium ABI) and Rust (legacy and v0)
 * symbols demangled by libiberty's cplus_demangle(), the demangler of
 * binutils and perf, with DMGL_PARAMS | DMGL_ANSI: the names `c++filt -i`
 * prints (std::string, not std::basic_string<char, ...>; a Rust legacy
 * name without its ::h<hash>). Pure: no libbpf, no logging.
 *
 * Built without libiberty (HAVE_LIBIBERTY undefined: NO_LIBIBERTY=1, or the
 * library missing), nothing is demangled and every name is shown as it is.
 */
#ifndef FXS_DAEMON_DEMANGLE_H
#define FXS_DAEMON_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build demangles (it was linked with libiberty). */
bool demangle_available(void);

/*
 * The demangled form of a symbol name, malloc'd; NULL when name is not a
 * mangled name the library reads (errno 0) or on ENOMEM (errno ENOMEM).
 * A symbol version ("@@GLIBCXX_3.4", "@GLIBC_2.2.5") is kept after the
 * demangled name, as c++filt keeps it.
 */
char *demangle(const char *name);

/*
 * A memo of demangle(): each distinct name is demangled once, however many
 * pcs and samples it names. The strings handed out live until the
 * demangler is freed.
 */
struct demangler;

/* NULL with errno ENOMEM. */
struct demangler *demangler__new(void);
/* NULL-safe. */
void demangler__free(struct demangler *d);
/*
 * The name to show for raw: its demangled form, or raw itself when it is
 * not mangled (the very pointer). NULL only on ENOMEM.
 */
const char *demangler_name(struct demangler *d, const char *raw);
/* Distinct names seen, and how many of them were demangled. */
size_t demangler_seen(const struct demangler *d);
size_t demangler_demangled(const struct demangler *d);

#endif /* FXS_DAEMON_DEMANGLE_H */
