# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The one build entry for fxsampler. Every artifact goes under .output/.

OUTPUT    := .output
CLANG     ?= clang
BPFTOOL   ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC        ?= cc
PREFIX    ?= /usr/local
VERSION   := 0.1.0

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
$(error vmlinux/$(ARCH)/vmlinux.h is missing: run 'make vmlinux' on a kernel with BTF)
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
ALL_CFLAGS := $(CFLAGS) -std=gnu11 -D_GNU_SOURCE -DFXS_VERSION='"$(VERSION)"' $(WARNINGS) \
	      -Iinclude -Idaemon -I$(OUTPUT) -MMD -MP $(EXTRA_CFLAGS)
LIBS     := $(shell pkg-config --libs libbpf libelf zlib 2>/dev/null || echo -lbpf -lelf -lz)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)

CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -O2 -Wall -Werror -mcpu=v3 -target bpf -D__TARGET_ARCH_$(ARCH) \
	      -Ivmlinux/$(ARCH) -Iinclude -Ibpf $(CLANG_BPF_SYS_INCLUDES)

# Every daemon/*.c but the two mains is a library module, linked into both
# binaries and every test.
MAINS     := daemon/fxsampler.c daemon/fxsamplerd.c
LIB_SRCS  := $(filter-out $(MAINS),$(wildcard daemon/*.c))
LIB_OBJS  := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
UNIT_SRCS := $(wildcard tests/check_*.c)
UNIT_BINS := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
LIVE_SRCS := $(wildcard tests/live/check_*.c)
LIVE_BINS := $(patsubst tests/live/%.c,$(OUTPUT)/tests/live/%,$(LIVE_SRCS))
# Programs whose call chains are known: frame pointers kept, no inlining.
PROG_SRCS := $(wildcard tests/progs/*.c)
PROG_BINS := $(patsubst tests/progs/%.c,$(OUTPUT)/progs/%,$(PROG_SRCS)) \
	     $(patsubst tests/progs/lib/%.c,$(OUTPUT)/progs/lib%.so,$(wildcard tests/progs/lib/*.c))
PROG_CFLAGS := -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -pthread

BINS := fxsampler $(if $(wildcard daemon/fxsamplerd.c),fxsamplerd)

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all check check-asan check-valgrind check-live check-systemd fuzz test bench demo install \
	deps deps-if-missing vmlinux \
	format format-check clean progs

all: $(BINS)

$(OUTPUT) $(OUTPUT)/daemon $(OUTPUT)/tests $(OUTPUT)/tests/live $(OUTPUT)/progs:
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
$(OUTPUT)/daemon/%.o: daemon/%.c | $(OUTPUT)/daemon $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/libfxs.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

fxsampler fxsamplerd: %: $(OUTPUT)/daemon/%.o $(OUTPUT)/libfxs.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $^ $(LIBS) $(if $(filter fxsamplerd,$@),-lsystemd) -o $@

# --- tests ---
$(OUTPUT)/tests/%: tests/%.c $(OUTPUT)/libfxs.a | $(OUTPUT)/tests $(OUTPUT)/tests/live
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $< $(OUTPUT)/libfxs.a $(LIBS) $(CHECK_LIBS) -o $@

# Live tests share tests/live/live.c: running fxsampler, reading captures.
$(OUTPUT)/tests/live/%: tests/live/%.c tests/live/live.c tests/live/live.h tests/live/live_daemon.h \
		$(OUTPUT)/libfxs.a \
		| $(OUTPUT)/tests/live
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests/live $< tests/live/live.c $(OUTPUT)/libfxs.a \
		$(LIBS) $(CHECK_LIBS) -o $@

$(OUTPUT)/progs/%: tests/progs/%.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) $< -o $@ -ldl

$(OUTPUT)/progs/lib%.so: tests/progs/lib/%.c | $(OUTPUT)/progs
	$(call msg,CC,$@)
	$(Q)$(CC) $(PROG_CFLAGS) -shared -fPIC $< -o $@

progs: $(PROG_BINS)

check: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# The unit tests again under ASan + UBSan (clang), and under valgrind.
check-asan: $(SKELS)
	tests/sanitize.sh asan
check-valgrind: $(UNIT_BINS)
	tests/sanitize.sh valgrind $(UNIT_BINS)

# libFuzzer targets of the FXT reader, the ELF reader, the maps parser and the
# daemon's message decoder, FUZZ_SECONDS each (60 by default, as in CI).
fuzz: $(SKELS)
	FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) tests/fuzz/run.sh

check-live: all $(LIVE_BINS) $(PROG_BINS)
	@if [ "$$(id -u)" != 0 ]; then \
		echo "SKIP: check-live needs root (BPF + perf_event_open); NOT RUN"; exit 0; fi; \
	set -e; for t in $(LIVE_BINS); do echo "== $$t"; \
		FXS_BIN=$(CURDIR)/fxsampler FXS_PROGS=$(CURDIR)/$(OUTPUT)/progs $$t; done; \
	echo "== walkers: walk_fast gives the stacks walk_simple gives (bench/ab.sh)"; \
	$(MAKE) --no-print-directory -C bench build >/dev/null && sh bench/ab.sh

check-systemd: all
	@if [ -x tests/systemd/run.sh ]; then tests/systemd/run.sh; \
	else echo "SKIP: check-systemd: no systemd test yet; NOT RUN"; fi

# On a fresh machine `make demo` and `make test` install what they need first
# (as root); the sub-make then sees the tools.
HAVE_DEPS = $(shell command -v clang >/dev/null && command -v $(BPFTOOL) >/dev/null && \
	pkg-config --exists libbpf libelf zlib check libsystemd && command -v valgrind >/dev/null && \
	command -v go >/dev/null && command -v debootstrap >/dev/null && \
	command -v systemd-nspawn >/dev/null && command -v offcputime >/dev/null && echo yes)
deps-if-missing:
	@if [ "$(HAVE_DEPS)" != yes ]; then echo "== installing dependencies (make deps)"; \
		$(MAKE) --no-print-directory deps; fi

test: deps-if-missing
	$(MAKE) all
	$(MAKE) check
	$(MAKE) check-asan
	$(MAKE) check-valgrind
	$(MAKE) check-live
	$(MAKE) check-systemd
	$(MAKE) fuzz

demo: deps-if-missing
	$(MAKE) all progs
	./fxsampler record -F 999 -o demo.fxt -- $(OUTPUT)/progs/demo 2 2
	./fxsampler report --top 10 demo.fxt
	./fxsampler dump demo.fxt | head -20

UNITDIR     ?= /etc/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
bench: all
	$(MAKE) -C bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)/etc/fxsampler
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	sed 's|/usr/local/bin/fxsamplerd|$(PREFIX)/bin/fxsamplerd|' systemd/fxsamplerd.service \
		> $(DESTDIR)$(UNITDIR)/fxsamplerd.service
	install -m 0644 systemd/fxsamplerd.socket $(DESTDIR)$(UNITDIR)/
	install -m 0644 systemd/fxsampler.sysusers $(DESTDIR)$(SYSUSERSDIR)/fxsampler.conf
	install -m 0644 systemd/fxsampler.tmpfiles $(DESTDIR)$(TMPFILESDIR)/fxsampler.conf
	install -m 0644 tests/data/config/fxsamplerd.conf $(DESTDIR)/etc/fxsampler/fxsamplerd.conf

# Build dependencies, then what the test tiers use (valgrind, Go's pprof,
# debootstrap and systemd-nspawn for the service test, libbpf-tools'
# offcputime for the bench's off-CPU row).
BUILD_DEPS := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev check pkg-config \
	      libsystemd-dev make gcc binutils
TEST_DEPS  := valgrind golang-go debootstrap systemd-container util-linux procps passwd \
	      libclang-rt-14-dev libbpf-tools
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$(BUILD_DEPS) $(TEST_DEPS) >/dev/null

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h.tmp
	mv vmlinux/$(ARCH)/vmlinux.h.tmp vmlinux/$(ARCH)/vmlinux.h

FORMAT_SRCS = $(wildcard bpf/*.c bpf/*.h include/*.h daemon/*.[ch] tests/*.c tests/live/*.c \
		tests/progs/*.c tests/progs/lib/*.c tests/fuzz/*.c)
format:
	clang-format -i $(FORMAT_SRCS)
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRCS)

clean:
	rm -rf $(OUTPUT) fxsampler fxsamplerd

-include $(wildcard $(OUTPUT)/daemon/*.d $(OUTPUT)/tests/*.d $(OUTPUT)/tests/live/*.d)
