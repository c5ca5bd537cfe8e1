# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The one build entry for fxsampler. Every artifact goes under .output/.

OUTPUT    := .output
# The CFI tables the tests' captures keep on disk (daemon/unwind/cfi_cache.h):
# this clone's own, so that no test depends on what the machine ran before.
export FXSAMPLER_CFI_CACHE ?= $(abspath $(OUTPUT))/cfi-cache
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC        ?= cc
PREFIX    ?= /usr/local
VERSION   := 0.1.0

# ARCH (x86, arm64, riscv64), HOST_ARCH, BPF_ARCH, TRIPLET.
include Makefile.arch
ifeq ($(filter vmlinux clean,$(MAKECMDGOALS)),)
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
$(error vmlinux/$(ARCH)/vmlinux.h is missing: run 'make vmlinux ARCH=$(ARCH)')
endif
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wundef \
	    -Wwrite-strings -Wformat=2 -Wdeclaration-after-statement -Wno-unused-parameter \
	    -Wno-missing-field-initializers -Werror
CFLAGS   ?= -O2 -g
ALL_CFLAGS := $(CPPFLAGS) $(CFLAGS) -std=gnu11 -D_GNU_SOURCE -DFXS_VERSION='"$(VERSION)"' $(WARNINGS) \
	      -Iinclude -Idaemon -I$(OUTPUT) -MMD -MP $(EXTRA_CFLAGS)
LIBS     := $(shell pkg-config --libs libbpf libelf zlib 2>/dev/null || echo -lbpf -lelf -lz)
# Source lines and inlined frames (libdw) and debuginfod are optional: without
# them (or with NO_LIBDW=1 / NO_DEBUGINFOD=1, e.g. for static cross builds,
# or when LIBS is given on the command line) report symbolizes with ELF
# symbol tables only.
ifneq ($(origin LIBS),command line)
NO_LIBDW ?=
else
NO_LIBDW := 1
endif
# The static cross builds link Debian's static archives: no libdw.a chain there.
ifeq ($(FXS_STATIC),1)
NO_LIBDW := 1
endif
ifneq ($(NO_LIBDW),1)
ifeq ($(shell pkg-config --exists libdw 2>/dev/null && echo yes),yes)
ALL_CFLAGS += -DHAVE_LIBDW
LIBS       += $(shell pkg-config --libs libdw)
ifneq ($(NO_DEBUGINFOD),1)
# libdebuginfod's header only: the library is loaded with dlopen() at the
# first fetch (symbols/debuginfod_fetch.c), so that a report that fetches
# nothing never maps its libcurl and TLS chain.
ifeq ($(shell pkg-config --exists libdebuginfod 2>/dev/null && echo yes),yes)
ALL_CFLAGS += -DHAVE_LIBDEBUGINFOD
LIBS       += -ldl
endif
endif
endif
endif
# fxsamplerd's HTTP endpoint (daemon/service/http.c) links libmicrohttpd, and
# only fxsamplerd does. The static builds go without (Debian has
# libmicrohttpd.a, but not the static GnuTLS chain it needs): there the
# endpoint compiles out, and http_listen is refused with a line saying so.
ifneq ($(FXS_STATIC),1)
ifeq ($(shell pkg-config --exists libmicrohttpd 2>/dev/null && echo yes),yes)
ALL_CFLAGS += -DHAVE_MICROHTTPD
HTTP_LIBS  := $(shell pkg-config --libs libmicrohttpd)
endif
endif
# C++ and Rust names are demangled with libiberty's cplus_demangle
# (libiberty-dev: /usr/include/libiberty/demangle.h and a static libiberty.a,
# found for CC's own arch). Without it, or with NO_LIBIBERTY=1 (or when LIBS
# is given on the command line), report shows names as the symbol tables
# spell them (symbols/demangle.h).
ifeq ($(origin LIBS),command line)
NO_LIBIBERTY := 1
endif
ifneq ($(NO_LIBIBERTY),1)
ifneq ($(wildcard /usr/include/libiberty/demangle.h),)
ifneq ($(shell $(CC) -print-file-name=libiberty.a 2>/dev/null),libiberty.a)
ALL_CFLAGS  += -DHAVE_LIBIBERTY
IBERTY_LIBS := -liberty
LIBS        += $(IBERTY_LIBS)
endif
endif
endif
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)

CLANG_BPF_SYS_INCLUDES = $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS = -g -O2 -Wall -Werror -mcpu=v3 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	      -Ivmlinux/$(ARCH) -Iinclude -Ibpf $(CLANG_BPF_SYS_INCLUDES)

# daemon/ has a folder per concern (README's layout table). Every .c in them
# but the two mains is a library module, linked into both binaries and every
# test; daemon/static/ only into the static builds.
MAINS     := daemon/cli/fxsampler.c daemon/service/fxsamplerd.c
LIB_SRCS  := $(filter-out $(MAINS),$(sort $(wildcard daemon/*/*.c)))
LIB_SRCS  := $(filter-out daemon/static/%,$(LIB_SRCS))
LIB_OBJS  := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# Unit tests follow daemon/'s folders: tests/unit/CONCERN/check_MODULE.c.
UNIT_SRCS := $(sort $(wildcard tests/unit/*/check_*.c))
UNIT_BINS := $(patsubst %.c,$(OUTPUT)/%,$(UNIT_SRCS))
LIVE_SRCS := $(wildcard tests/live/check_*.c)
LIVE_BINS := $(patsubst tests/live/%.c,$(OUTPUT)/tests/live/%,$(LIVE_SRCS))
# Programs whose call chains are known: frame pointers kept, no inlining.
PROG_SRCS := $(wildcard tests/progs/*.c)
PROG_BINS := $(patsubst tests/progs/%.c,$(OUTPUT)/progs/%,$(PROG_SRCS)) $(OUTPUT)/progs/nofp_leaf \
	     $(OUTPUT)/progs/recurse_nofp \
	     $(patsubst tests/progs/lib/%.c,$(OUTPUT)/progs/lib%.so,$(wildcard tests/progs/lib/*.c)) \
	     $(OUTPUT)/progs/reopen $(OUTPUT)/progs/libshape_a.so $(OUTPUT)/progs/libshape_b.so \
	     $(OUTPUT)/progs/libnoid.so
PROG_CFLAGS := -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -pthread
# arm64's gcc drops the frame record of leaf functions by default (riscv64's
# gcc 14 keeps it; the flag pins that): the leaf's caller would be missing from
# every chain sampled in a leaf.
PROG_CFLAGS += $(if $(filter arm64 riscv64,$(ARCH)),-mno-omit-leaf-frame-pointer)
# progs/leafchain is built as users build, -O2 -g -fno-omit-frame-pointer
# and no more, so that its hot function is a true leaf with the frame the
# compiler gives one. On riscv64 by GCC 12, whose leaf frame saves s0 but not
# ra (include/fpframe.h; GCC 14 saves both); the build root has it.
LEAF_CFLAGS := -O2 -g -fno-omit-frame-pointer

BINS := fxsampler fxsamplerd

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all check check-asan check-valgrind check-live bench-soak check-report check-perfetto check-systemd check-deb \
	check-browser \
	fuzz test bench demo install deb \
	deps deps-if-missing vmlinux cross cross-static check-cross elf-fixtures check-vm \
	format format-check layout-check clean progs check-cfi

all: $(BINS)

$(OUTPUT) $(OUTPUT)/tests/live $(OUTPUT)/progs:
	$(Q)mkdir -p $@

# --- BPF: compile, link with bpftool (drops DWARF, keeps BTF), skeleton ---
$(OUTPUT)/%.tmp.bpf.o: bpf/%.bpf.c $(wildcard include/*.h bpf/*.bpf.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $<
$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# --- user space ---
$(OUTPUT)/daemon/%.o: daemon/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/libfxs.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

fxsampler: $(OUTPUT)/daemon/cli/fxsampler.o $(OUTPUT)/libfxs.a
fxsamplerd: $(OUTPUT)/daemon/service/fxsamplerd.o $(OUTPUT)/libfxs.a
fxsampler fxsamplerd:
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ $(LIBS) $(if $(filter fxsamplerd,$@),$(HTTP_LIBS) -lsystemd) -o $@

# --- tests ---
$(OUTPUT)/tests/unit/%: tests/unit/%.c $(OUTPUT)/libfxs.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -Itests/unit $< $(OUTPUT)/libfxs.a $(LIBS) \
		$(CHECK_LIBS) -o $@

# Live tests share tests/live/live.c (running fxsampler, reading captures)
# and tests/live/live_daemon.c (fxsamplerd, test users, clients).
$(OUTPUT)/tests/live/%: tests/live/%.c tests/live/live.c tests/live/live.h tests/live/live_daemon.c \
		tests/live/live_daemon.h $(OUTPUT)/libfxs.a \
		| $(OUTPUT)/tests/live
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -Itests/live $< tests/live/live.c \
		tests/live/live_daemon.c $(OUTPUT)/libfxs.a \
		$(LIBS) $(CHECK_LIBS) -o $@

# The browser tier's fixture: a profile of itself, every sample known.
$(OUTPUT)/tests/browser/gen_profile: tests/browser/gen_profile.c $(OUTPUT)/libfxs.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUTPUT)/libfxs.a $(LIBS) -o $@

$(OUTPUT)/progs/leafchain: PROG_CFLAGS := $(LEAF_CFLAGS)
# fakepy: _PyRuntime, Py_Version and PyCode_Type in .dynsym, as python3.11 has them
$(OUTPUT)/progs/fakepy: PROG_CFLAGS += -rdynamic
$(OUTPUT)/progs/%: tests/progs/%.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ -ldl

# The CFI walker's programs: no frame pointers at all, and none in leaves only.
NOFP_CFLAGS := -D_GNU_SOURCE -O2 -g -fno-inline -fno-optimize-sibling-calls
$(OUTPUT)/progs/nofp: tests/progs/nofp.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fomit-frame-pointer $< -o $@
# A deep stack without frame pointers (check_cfi: the default --max-frames reaches main).
$(OUTPUT)/progs/recurse_nofp: tests/progs/recurse.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fomit-frame-pointer $< -o $@
# Threads that block in their first millisecond, without frame pointers
# (check_offcpu: their off-CPU stacks walked again once the tables are there).
$(OUTPUT)/progs/earlywait: PROG_CFLAGS := $(NOFP_CFLAGS) -fomit-frame-pointer -pthread
$(OUTPUT)/progs/nofp_leaf: tests/progs/nofp.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fno-omit-frame-pointer -momit-leaf-frame-pointer $< -o $@

# The CFI walker after a dlclose (check_cfi): two libraries without frame
# pointers, one after the other at one address, and their loader.
$(OUTPUT)/progs/libshape_%.so: tests/progs/reopen/shape_%.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fomit-frame-pointer -shared -fPIC $< -o $@

$(OUTPUT)/progs/reopen: tests/progs/reopen/reopen.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ -ldl

# check_hostile's thousands of modules: copies of one library without a
# build id, each a module of its own (a build id would make them one).
$(OUTPUT)/progs/libnoid.so: tests/progs/lib/spin.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) -shared -fPIC -Wl,--build-id=none $< -o $@

$(OUTPUT)/progs/lib%.so: tests/progs/lib/%.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) -shared -fPIC $< -o $@

progs: $(PROG_BINS)

# check_safe_open also runs the fxsampler binary (FXS_BIN). The man pages
# name every option of --help and every config key (tests/man/drift.sh), and
# the bash completion offers every command and option (tests/man/completion.sh).
check: all $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; FXS_BIN=$(CURDIR)/fxsampler $$t; done
	@echo "== tests/man/drift.sh" && tests/man/drift.sh
	@echo "== tests/man/completion.sh" && tests/man/completion.sh

# The unit tests again under ASan + UBSan (clang), and under valgrind.
check-asan: $(SKELS)
	LIB_SRCS="$(LIB_SRCS)" UNIT_SRCS="$(UNIT_SRCS)" tests/sanitize.sh asan
check-valgrind: $(UNIT_BINS)
	tests/sanitize.sh valgrind $(UNIT_BINS)

# libFuzzer targets of the FXT reader, the ELF reader, the maps parser, the
# daemon's message decoder and the CFI table generator, FUZZ_SECONDS each (60
# by default, as in CI).
fuzz: $(SKELS)
	FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) LIB_SRCS="$(LIB_SRCS)" tests/fuzz/run.sh

# check_python313 runs Debian 13's python3.13 in a minimal trixie root made
# once per machine outside the clone (tests/python/root313.sh, ~3 min).
PY313_ROOT = $(FXS_CACHE)/py313-root
check-live: all $(LIVE_BINS) $(PROG_BINS)
	@if [ "$$(id -u)" != 0 ]; then \
		echo "SKIP: check-live needs root (BPF + perf_event_open); NOT RUN"; exit 0; fi; \
	sh tests/python/root313.sh $(PY313_ROOT) || \
		echo "SKIP: no python3.13 root at $(PY313_ROOT): check_python313 will say NOT RUN"; \
	set -e; for t in $(LIVE_BINS); do echo "== $$t"; \
		FXS_BIN=$(CURDIR)/fxsampler FXS_PROGS=$(CURDIR)/$(OUTPUT)/progs \
		FXS_PY313_ROOT=$(PY313_ROOT) $$t; done; \
	echo "== walkers: walk_fast gives the stacks walk_simple gives (bench/ab.sh)"; \
	$(MAKE) --no-print-directory -C bench build >/dev/null && sh bench/ab.sh; \
	$(MAKE) --no-print-directory check-cfi

# Debian's own python3.11, xz, sqlite3 and perl (no frame pointers) under the
# CFI walker and perf --call-graph dwarf, side by side (tests/cfi/debian.sh);
# then a big program: clang++ -O2 -c against perf dwarf,65528, and below its
# tables' working set (tests/cfi/clang.sh); then record -a during a make -j2
# of a C++ project of its own (tests/cfi/cxxbuild.sh, issue 37: g++'s cc1plus,
# each a new process; about 30 s).
check-cfi: all
	@FXS_BIN=$(CURDIR)/fxsampler sh tests/cfi/debian.sh
	@FXS_BIN=$(CURDIR)/fxsampler sh tests/cfi/clang.sh
	@FXS_BIN=$(CURDIR)/fxsampler sh tests/cfi/cxxbuild.sh

# Debian's own kernels booted under qemu (TCG) with an initramfs of the static
# `make cross` builds: the live capture checks on each arch and kernel, and
# the one-line error on a kernel too old (tests/vm). Kernels and busybox are
# fetched once into FXS_CACHE with a private apt configuration; KERNELS picks
# some of tests/vm/kernels (make check-vm KERNELS=arm64-6.12).
VM_ALL_KERNELS := $(shell awk '!/^\#/ && NF { print $$1 }' tests/vm/kernels)
KERNELS        ?= $(VM_ALL_KERNELS)
VM_ARCHS        = $(sort $(foreach k,$(KERNELS),$(firstword $(subst -, ,$(k)))))
check-vm:
	@if [ "$$(id -u)" != 0 ]; then \
		echo "SKIP: check-vm needs root (apt into $(FXS_CACHE), make cross); NOT RUN"; exit 0; fi
	$(Q)set -e; for k in $(KERNELS); do sh tests/vm/fetch.sh $(FXS_CACHE) $$k; done
	$(Q)set -e; for a in $(VM_ARCHS); do $(MAKE) --no-print-directory cross ARCH=$$a; done
	$(Q)bash tests/vm/run.sh $(FXS_CACHE) $(KERNELS)

# pprof-format and speedscope (npm, headless Chromium) read report's outputs.
check-browser: all $(OUTPUT)/tests/browser/gen_profile
	OUTPUT=$(OUTPUT) tests/browser/run.sh

# report on real programs: whole names of Go's compress/flate benchmark, a
# stripped binary through a local debuginfod, the SVG in headless Chromium.
check-report: all progs
	@OUTPUT=$(OUTPUT) FXS_BIN=$(CURDIR)/fxsampler FXS_PROGS=$(CURDIR)/$(OUTPUT)/progs tests/report/run.sh

# Perfetto's trace processor (../shared/perfetto beside the clone, or
# TRACE_PROCESSOR) on report --perfetto's copies of real captures, with SQL.
check-perfetto: all progs
	@FXS_BIN=$(CURDIR)/fxsampler FXS_PROGS=$(CURDIR)/$(OUTPUT)/progs tests/perfetto/run.sh

check-systemd: all
	@tests/systemd/run.sh

# The package in a booted Debian 12 (tests/deb/run.sh): version N and, to
# upgrade to, N+1 built from a copy with one more changelog entry (without
# make check: N's build ran it), lintian on both.
DEB_VERSION_N    = $(shell dpkg-parsechangelog -S Version 2>/dev/null || \
		     sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
DEB_VERSION_NEXT = $(DEB_VERSION_N)+1
check-deb: progs
	@if [ "$$(id -u)" != 0 ]; then \
		echo "SKIP: check-deb needs root (dpkg-buildpackage, systemd-nspawn); NOT RUN"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory deb >$(OUTPUT)/check-deb-build.log 2>&1 || \
		{ tail -20 $(OUTPUT)/check-deb-build.log; exit 1; }; \
	DEB_BUILD_OPTIONS=nocheck $(MAKE) --no-print-directory deb DEB_VERSION=$(DEB_VERSION_NEXT) \
		>>$(OUTPUT)/check-deb-build.log 2>&1 || { tail -20 $(OUTPUT)/check-deb-build.log; exit 1; }; \
	DEB_VERSION_N=$(DEB_VERSION_N) DEB_VERSION_NEXT=$(DEB_VERSION_NEXT) tests/deb/run.sh

# On a fresh machine `make demo` and `make test` install what they need first
# (as root); the sub-make then sees the tools.
HAVE_DEPS = $(shell command -v clang >/dev/null && command -v $(BPFTOOL) >/dev/null && \
	command -v clang-format >/dev/null && \
	pkg-config --exists libbpf libelf zlib check libsystemd libdw libdebuginfod libmicrohttpd && command -v valgrind >/dev/null && \
	test -f /usr/include/libiberty/demangle.h && command -v c++filt >/dev/null && test -x /usr/bin/rustc && \
	command -v go >/dev/null && command -v debootstrap >/dev/null && command -v g++ >/dev/null && \
	command -v systemd-nspawn >/dev/null && test -x /usr/sbin/setcap && \
	command -v debuginfod >/dev/null && command -v curl >/dev/null && \
	command -v node >/dev/null && command -v npm >/dev/null && command -v chromium >/dev/null && \
	command -v javac >/dev/null && \
	test -f /usr/share/bash-completion/bash_completion && command -v dh >/dev/null && \
	command -v lintian >/dev/null && \
	command -v file >/dev/null && command -v qemu-aarch64-static >/dev/null && \
	command -v qemu-system-x86_64 >/dev/null && command -v qemu-system-aarch64 >/dev/null && \
	command -v qemu-system-riscv64 >/dev/null && command -v cpio >/dev/null && \
	command -v offcputime >/dev/null && /sbin/ldconfig -p | grep -q 'libprotobuf\.so\.32 ' && \
	test -f /usr/aarch64-linux-gnu/lib/libc.so.6 && \
	test -f /usr/riscv64-linux-gnu/lib/libc.so.6 && echo yes)
deps-if-missing:
	@if [ "$(HAVE_DEPS)" != yes ]; then echo "== installing dependencies (make deps)"; \
		$(MAKE) --no-print-directory deps; fi

# Every tier in order, each one's wall time said after it and all of them at
# the end (docs/testing.md keeps what each costs).
TEST_TIERS := all format-check layout-check check check-asan check-valgrind check-browser \
	check-live check-report check-perfetto check-systemd check-deb check-cross check-vm fuzz
test: deps-if-missing
	@mkdir -p $(OUTPUT); : >$(OUTPUT)/tier-times
	@set -e; for t in $(TEST_TIERS); do \
		start=$$(date +%s); \
		$(MAKE) $$t; \
		echo "== make $$t: $$(($$(date +%s) - start)) s" | tee -a $(OUTPUT)/tier-times; \
	done; \
	echo "== make test: every tier passed; wall time of each:"; cat $(OUTPUT)/tier-times

demo: deps-if-missing
	$(MAKE) all progs
	./fxsampler record -F 999 -o demo.fxt -- $(OUTPUT)/progs/demo 2 2
	./fxsampler report --top 10 demo.fxt
	./fxsampler dump demo.fxt | head -20

UNITDIR     ?= /etc/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
# The bench measures fxsampler beside perf, bpftrace and libbpf-tools'
# offcputime: as root it installs the missing ones from Debian first, as
# `make deps` does for the tests; bench/run.py skips a peer that is still
# missing with one line saying which and why.
BENCH_PEERS := perf:linux-perf bpftrace:bpftrace offcputime:libbpf-tools
MANDIR      ?= $(PREFIX)/share/man
# every page of docs/man, by section (fxsampler.1 and a page per command or
# topic as perf has them: fxsampler-record.1, fxsampler-format.5, ...)
MAN_PAGES1  := $(wildcard docs/man/*.1)
MAN_PAGES5  := $(wildcard docs/man/*.5)
MAN_PAGES7  := $(wildcard docs/man/*.7)
MAN_PAGES8  := $(wildcard docs/man/*.8)
# bash-completion loads completions/NAME when NAME is first completed
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
bench: all
	@missing=; for tp in $(BENCH_PEERS); do command -v $${tp%%:*} >/dev/null || \
		missing="$$missing $${tp#*:}"; done; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
		echo "== installing the bench's peers:$$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			$$missing >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			$$missing >/dev/null; } || \
		echo "bench: could not install$$missing; the bench skips what is missing"; fi
	$(MAKE) -C bench

# The daemon's memory ceiling over a long soak (fxsamplerd(8), MEMORY):
# continuous mode, a scrape every 5 s, a user's capture every 30 s, an exec
# loop; RSS and open fds every 10 s against the ceiling. SOAK_SECONDS long
# (1800 by default); make check-live runs the same case for 60 s.
bench-soak: all progs $(OUTPUT)/tests/live/check_daemon_limits
	@if [ "$$(id -u)" != 0 ]; then \
		echo "SKIP: bench-soak needs root (BPF + perf_event_open); NOT RUN"; exit 0; fi; \
	CK_RUN_CASE=soak FXS_SOAK_SECONDS=$(or $(SOAK_SECONDS),1800) \
		FXS_BIN=$(CURDIR)/fxsampler FXS_PROGS=$(CURDIR)/$(OUTPUT)/progs \
		$(OUTPUT)/tests/live/check_daemon_limits

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)/etc/fxsampler
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	sed 's|/usr/local/bin/fxsamplerd|$(PREFIX)/bin/fxsamplerd|' systemd/fxsamplerd.service \
		> $(DESTDIR)$(UNITDIR)/fxsamplerd.service
	install -m 0644 systemd/fxsamplerd.socket $(DESTDIR)$(UNITDIR)/
	install -D -m 0644 systemd/fxsamplerd-http.conf \
		$(DESTDIR)$(PREFIX)/share/fxsampler/fxsamplerd-http.conf
	install -m 0644 systemd/fxsampler.sysusers $(DESTDIR)$(SYSUSERSDIR)/fxsampler.conf
	install -m 0644 systemd/fxsampler.tmpfiles $(DESTDIR)$(TMPFILESDIR)/fxsampler.conf
	install -m 0644 tests/data/config/fxsamplerd.conf $(DESTDIR)/etc/fxsampler/fxsamplerd.conf
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0644 $(MAN_PAGES1) $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(MAN_PAGES5) $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 $(MAN_PAGES7) $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(MAN_PAGES8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 docs/completion/fxsampler.bash $(DESTDIR)$(BASHCOMPDIR)/fxsampler
	ln -sf fxsampler $(DESTDIR)$(BASHCOMPDIR)/fxsamplerd

# The Debian package (debian/), built by dpkg-buildpackage from a clean copy
# of the tree (its tracked and new files, none that .gitignore names) in
# .output/deb/src (outside git: the tree without .output and the binaries):
# the .deb, its -dbgsym and .buildinfo land in .output/deb/.
# DEB_VERSION=0.1.0+1 builds another version (a changelog entry is added to
# the copy), as the package tier's upgrade test does.
DEB_DIR := $(OUTPUT)/deb
deb:
	$(Q)rm -rf $(DEB_DIR)/src && mkdir -p $(DEB_DIR)/src
	$(Q)if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -co --exclude-standard -z | tar --null -T - -cf -; \
	else tar --exclude=./$(OUTPUT) --exclude=./fxsampler --exclude=./fxsamplerd -cf - .; fi | \
		tar -xf - -C $(DEB_DIR)/src
	$(Q)if [ -n "$(DEB_VERSION)" ]; then cd $(DEB_DIR)/src && \
		{ printf 'fxsampler (%s) unstable; urgency=medium\n\n  * Rebuilt as %s.\n\n -- %s  %s\n\n' \
		"$(DEB_VERSION)" "$(DEB_VERSION)" "$$(sed -n 's/^ -- \(.*>\)  .*/\1/p;T;q' debian/changelog)" \
		"$$(date -R)"; cat debian/changelog; } > debian/changelog.new && \
		mv debian/changelog.new debian/changelog; fi
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b
	$(Q)echo "deb: $$(ls $(DEB_DIR)/*.deb)"

# Build dependencies, then what the test tiers use (valgrind, Go's pprof,
# debootstrap and systemd-nspawn for the service test, debhelper and lintian
# for the package tier, node, npm and chromium for the browser tier,
# libbpf-tools' offcputime for the bench's off-CPU row, strace for
# check-report's count of what a capped debuginfod fetch wrote).
BUILD_DEPS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev check pkg-config \
	      libsystemd-dev make gcc binutils libdw-dev libdebuginfod-dev clang-format \
	      libmicrohttpd-dev libiberty-dev
# make cross: file checks the results; debootstrap (in TEST_DEPS) makes the
# Debian 13 build root; python3 reads kernel images for make vmlinux ARCH=...
BUILD_DEPS += file python3
TEST_DEPS  := bash-completion debhelper lintian valgrind golang-go debootstrap systemd-container util-linux procps passwd \
	      libclang-rt-14-dev libcap2-bin debuginfod curl iproute2 chromium nodejs \
	      libbpf-tools strace g++
# check-cross runs the other arches' static binaries under qemu-user.
TEST_DEPS  += qemu-user-static
# make check compares the CFI tables of Debian's arm64 and riscv64 libc and
# ld.so (arch all packages, under /usr/TRIPLET/lib) with readelf's.
TEST_DEPS  += libc6-arm64-cross libc6-riscv64-cross
# check-report's demangle tier: Debian's rustc (legacy and v0 mangling), and
# clang++ (from clang) compiling a C++ source, named as c++filt (binutils) names them.
TEST_DEPS  += rustc
# check_kernel (check-live) compares record --kernel with perf record -g.
TEST_DEPS  += linux-perf
# check-perfetto's trace_processor_shell (Perfetto v58.2) links libprotobuf.so.32.
TEST_DEPS  += libprotobuf32
# check-vm boots Debian's kernels under qemu-system (riscv64 with OpenSBI) from
# a cpio initramfs.
TEST_DEPS  += qemu-system-x86 qemu-system-arm qemu-system-misc opensbi cpio
# check-report's jit tier names the JVM's JIT code from its perf map.
TEST_DEPS  += openjdk-17-jdk-headless
# npm (the SVG test installs playwright-core with it) only when missing: a
# nodejs from elsewhere may bring its own, which conflicts with Debian's.
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$(BUILD_DEPS) $(TEST_DEPS) >/dev/null
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends npm >/dev/null

# vmlinux/ARCH/vmlinux.h: the host's arch from the running kernel's BTF;
# another arch (or VMLINUX_FROM=debian) from the BTF inside Debian's kernel
# package for it, downloaded with a private apt into FXS_CACHE (cross/vmlinux.sh).
vmlinux:
ifeq ($(ARCH)$(VMLINUX_FROM),$(HOST_ARCH))
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h.tmp
	mv vmlinux/$(ARCH)/vmlinux.h.tmp vmlinux/$(ARCH)/vmlinux.h
else
	mkdir -p vmlinux/$(ARCH)
	BPFTOOL=$(BPFTOOL) sh cross/vmlinux.sh $(ARCH) $(FXS_CACHE) vmlinux/$(ARCH)/vmlinux.h
endif

# --- cross builds: make cross ARCH=x86|arm64|riscv64 ---
# Statically linked fxsampler, fxsamplerd and tests/progs for ARCH in
# .output/cross/ARCH/ (a VM's initramfs needs no libraries then). The BPF
# object and skeleton are built on the host by clang for ARCH's vmlinux.h. The
# host's arch is compiled and linked here; another arch in a Debian 13 build
# root with its cross toolchain (cross/root.sh), cached in FXS_CACHE outside
# the clone so a fresh clone reuses it. The static fxsamplerd links
# daemon/static/sd-daemon.c: Debian has no static libsystemd.
FXS_CACHE   ?= /var/cache/fxsampler
CROSS_ROOT  := $(FXS_CACHE)/trixie-root
CROSS_DIR   := .output/cross/$(ARCH)
CROSS_BUILD := $(CROSS_DIR)/build
CROSS_BINS  := $(CROSS_DIR)/fxsampler $(CROSS_DIR)/fxsamplerd
CROSS_PROGS := $(patsubst tests/progs/%.c,$(CROSS_DIR)/progs/%,$(PROG_SRCS)) $(CROSS_DIR)/progs/nofp_dyn \
	       $(patsubst tests/progs/lib/%.c,$(CROSS_DIR)/progs/lib%.so,$(wildcard tests/progs/lib/*.c))
# What `file` calls each arch's machine.
CROSS_MACHINE := $(word 2,$(subst :, ,$(filter $(ARCH):%,x86:x86-64 arm64:aarch64 riscv64:RISC-V)))

cross:
ifeq ($(ARCH),$(HOST_ARCH))
	$(Q)$(MAKE) --no-print-directory cross-static FXS_STATIC=1 OUTPUT=$(CROSS_BUILD)
else
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(CROSS_BUILD) $(CROSS_BUILD)/sampler.skel.h
	$(Q)sh cross/root.sh $(CROSS_ROOT)
	$(call msg,CHROOT,$(CROSS_ROOT) make cross-static ARCH=$(ARCH))
	$(Q)mkdir -p $(CROSS_ROOT)/src
	+$(Q)unshare -m sh -c 'mount --bind "$$1" "$$0/src" && shift && exec chroot "$$0" "$$@"' \
		$(CROSS_ROOT) $(CURDIR) make -C /src --no-print-directory cross-static ARCH=$(ARCH) \
		FXS_STATIC=1 OUTPUT=$(CROSS_BUILD) CC=$(TRIPLET)-gcc AR=$(TRIPLET)-ar V=$(V)
endif
	$(Q)for f in $(CROSS_BINS) $(filter-out %/dlopener %/nofp_dyn %.so,$(CROSS_PROGS)); do \
		file -L $$f | grep -q 'statically linked' && file -L $$f | grep -q '$(CROSS_MACHINE)' || \
		{ echo "cross: $$f is not a static $(CROSS_MACHINE) executable: $$(file -L $$f)" >&2; \
		  exit 1; }; done
	$(Q)echo "cross: $(ARCH) static binaries in $(CROSS_DIR)/, test programs in $(CROSS_DIR)/progs/," \
		"dlopener's loader and libc in $(CROSS_DIR)/sysroot/"

# The part of `make cross` that compiles and links (CC is ARCH's compiler).
# sysroot/ holds what the dynamic dlopener needs at run time, at the paths it
# asks for: the dynamic loader and libc.so.6 of the libc it was linked with.
CROSS_INTERP := $(word 2,$(subst :, ,$(filter $(ARCH):%,x86:/lib64/ld-linux-x86-64.so.2 \
		arm64:/lib/ld-linux-aarch64.so.1 riscv64:/lib/ld-linux-riscv64-lp64d.so.1)))
cross-static: $(CROSS_BINS) $(CROSS_PROGS)
	$(Q)rm -rf $(CROSS_DIR)/sysroot
	$(Q)for f in $(CROSS_INTERP) /lib/$(TRIPLET)/libc.so.6; do \
		mkdir -p $(CROSS_DIR)/sysroot$$(dirname $$f) && cp -L $$f $(CROSS_DIR)/sysroot$$f; done

ifeq ($(FXS_STATIC),1)
STATIC_LIBS := $(shell PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig \
		 pkg-config --static --libs libbpf libelf zlib 2>/dev/null || echo -lbpf -lelf -lz) \
		 $(IBERTY_LIBS)
ALL_CFLAGS  += -Idaemon/static
endif

# What a static link lacks from Debian's libraries (daemon/static/): an
# archive after them, so only what they leave undefined is taken from it.
STATIC_COMPAT := $(patsubst %.c,$(OUTPUT)/%.o,$(wildcard daemon/static/*.c))
$(OUTPUT)/daemon/static/%.o: daemon/static/%.c daemon/static/systemd/sd-daemon.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@
$(OUTPUT)/libstatic-compat.a: $(STATIC_COMPAT)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CROSS_DIR)/fxsampler: $(OUTPUT)/daemon/cli/fxsampler.o
$(CROSS_DIR)/fxsamplerd: $(OUTPUT)/daemon/service/fxsamplerd.o
# The main's object before the archive: ld takes from an archive only what is
# undefined by then ($^ lists this rule's prerequisites first).
$(CROSS_BINS): $(OUTPUT)/libfxs.a $(OUTPUT)/libstatic-compat.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -static $(filter %.o,$^) $(OUTPUT)/libfxs.a $(STATIC_LIBS) \
		$(OUTPUT)/libstatic-compat.a -o $@

# The cross binaries run (tests/cross.sh): natively for the host's arch, else
# under qemu-user; no BPF. For every arch: make check-cross CROSS_ARCHES=...
CROSS_ARCHES ?= x86 arm64 riscv64
check-cross: $(OUTPUT)/tests/cross/capture
	$(Q)set -e; for a in $(CROSS_ARCHES); do \
		if [ "$$a" != $(HOST_ARCH) ] && [ "$$(id -u)" != 0 ]; then \
			echo "SKIP: check-cross $$a needs root (the build root: debootstrap, chroot); NOT RUN"; \
			continue; fi; \
		$(MAKE) --no-print-directory cross ARCH=$$a; \
		sh tests/cross.sh $$a $(OUTPUT)/tests/cross/capture; done
$(OUTPUT)/tests/cross/capture: tests/cross/capture.c $(OUTPUT)/libfxs.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUTPUT)/libfxs.a $(LIBS) -o $@

# Rebuild the committed arm64/riscv64 ELF fixtures of tests/unit/symbols/check_elf_arches.c.
elf-fixtures:
	sh cross/root.sh $(CROSS_ROOT)
	$(MAKE) --no-print-directory vmlinux ARCH=arm64
	$(MAKE) --no-print-directory vmlinux ARCH=riscv64
	sh cross/elf-fixtures.sh $(CROSS_ROOT) $(FXS_CACHE)

$(CROSS_DIR)/progs/leafchain: tests/progs/leafchain.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(if $(filter riscv64,$(ARCH)),$(TRIPLET)-gcc-12,$(CC)) $(LEAF_CFLAGS) -static $< -o $@
# The CFI walker's known chains in the VM tier: nofp static and without frame
# pointers; nofp_dyn the same linked against ARCH's Debian libc (sysroot/),
# whose frames (__libc_start_call_main) are walked by its .eh_frame.
$(CROSS_DIR)/progs/nofp: tests/progs/nofp.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(NOFP_CFLAGS) -fomit-frame-pointer -static $< -o $@
$(CROSS_DIR)/progs/nofp_dyn: tests/progs/nofp.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(NOFP_CFLAGS) -fomit-frame-pointer $< -o $@
# dlopener stays dynamic, with its libspin.so: a static glibc program cannot
# dlopen reliably. In a VM it needs the target's ld.so and libc.so.6.
$(CROSS_DIR)/progs/%: tests/progs/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) $(if $(filter dlopener,$*),,-static) $< -o $@ -ldl
$(CROSS_DIR)/progs/lib%.so: tests/progs/lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PROG_CFLAGS) -shared -fPIC $< -o $@

FORMAT_SRCS = $(wildcard bpf/*.c bpf/*.h include/*.h daemon/*/*.[ch] \
		daemon/static/systemd/*.h tests/*.h tests/unit/*.h tests/unit/*/*.[ch] tests/live/*.[ch] \
		tests/progs/*.c tests/progs/lib/*.c tests/progs/reopen/*.c tests/fuzz/*.c tests/cross/*.c tests/browser/*.c)
format:
	clang-format -i $(FORMAT_SRCS)
format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRCS) && \
		echo "format-check: $(words $(FORMAT_SRCS)) files clang-formatted"
# daemon/'s shape: README's Layout table names every folder and module, no
# include cycle, folder-qualified includes, no file of over 800 lines; nor in
# bench/ (its code; the results files are data).
layout-check:
	@python3 tests/layout.py

clean:
	rm -rf $(OUTPUT) fxsampler fxsamplerd

-include $(wildcard $(OUTPUT)/daemon/*/*.d $(OUTPUT)/tests/unit/*/*.d $(OUTPUT)/tests/live/*.d \
	$(OUTPUT)/tests/browser/*.d $(OUTPUT)/tests/cross/*.d)
