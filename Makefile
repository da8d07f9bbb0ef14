# nnefkit - one non-recursive Makefile.
#
#   make                 build build/libnnef.a and the programs in build/bin/
#   make check           install missing dependencies, build, run every test
#   make demo            install missing dependencies, check the bundled examples
#   make deps            install missing Debian packages (or print the command)
#   make memcheck-tools  the tool driver with every program under valgrind
#   make bench           benchmarks (figures, not pass/fail); BASE=REV adds
#                        the figures of commit REV beside them;
#                        BENCH_ONLY=torchvision runs only nnef-run beside
#                        PyTorch on the corpus's torchvision networks
#   make pictures        docs/tiny_convnet.svg, the README's picture (dot)
#   make fuzz            libFuzzer targets (clang): testsuite/fuzz/module.mk
#   make python          the Python module nnefkit in build/python/ (PYTHON=
#                        /usr/bin/python3: python/module.mk)
#   make install PREFIX=/usr/local DESTDIR=   (make uninstall: the reverse)
#
# Variables: WERROR=1 turns warnings into errors; SANITIZE=address,undefined
# builds with sanitizers; NNEF_CORPUS is the corpus of real models the tests
# read (default ../shared/corpus).

.DEFAULT_GOAL := all
.SUFFIXES:
.SECONDARY:

BUILD    := build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
FLEX     ?= flex
BISON    ?= bison
OPT      ?= -O2 -g
WERROR   ?= 0
SANITIZE ?=
NNEF_CORPUS ?= $(abspath ../shared/corpus)

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wformat=2 -Wvla
ifeq ($(WERROR),1)
WARN += -Werror
endif
SANFLAGS :=
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

BLAS_CFLAGS  := $(shell pkg-config --cflags openblas 2>/dev/null)
BLAS_LIBS    := $(shell pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
# libzip reads and writes NumPy .npz archives (datfile/npz.c).
ZIP_CFLAGS   := $(shell pkg-config --cflags libzip 2>/dev/null)
ZIP_LIBS     := $(shell pkg-config --libs libzip 2>/dev/null || echo -lzip)
CPPFLAGS_ALL := -I. -I$(BUILD) -D_POSIX_C_SOURCE=200809L $(BLAS_CFLAGS) $(ZIP_CFLAGS) $(CPPFLAGS)
# -fPIC: the same objects make libnnef.a and libnnef.so.
CFLAGS_ALL   := $(WARN) $(OPT) $(SANFLAGS) -fPIC -fno-semantic-interposition \
		-pthread $(CFLAGS)
LDFLAGS_ALL  := $(SANFLAGS) $(LDFLAGS)
# Generated scanner and parser: the same flags minus what their skeletons
# trip over.
CFLAGS_GEN   := $(CFLAGS_ALL) -Wno-unused-function -Wno-sign-compare \
	-Wno-missing-prototypes -Wno-unused-parameter
# --as-needed: a program that runs nothing (nnef-check) does not load
# OpenBLAS, whose threads start with the library.
LIBS         := -Wl,--as-needed $(BLAS_LIBS) $(ZIP_LIBS) -ltar -lz -lm -pthread

# Everything that changes the compiled code; objects are rebuilt when it
# changes (so a sanitizer build never mixes with a plain one).
CONFIG := $(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL)
STAMP  := $(BUILD)/.config
$(shell mkdir -p $(BUILD) && \
	if [ "$$(cat $(STAMP) 2>/dev/null)" != '$(CONFIG)' ]; then \
		printf '%s' '$(CONFIG)' > $(STAMP); fi)

LIB      := $(BUILD)/libnnef.a
# The shared library: soname libnnef.so.MAJOR, exporting nnef.h only.
VERSION  := $(shell sed -n 's/^\#define NNEF_VERSION "\(.*\)"/\1/p' util/util.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))
SOLIB    := $(BUILD)/libnnef.so.$(VERSION)
LIB_SRCS :=
GEN_SRCS :=
include util/module.mk
include lexer/module.mk
include grammar/module.mk
include sema/module.mk
include shapes/module.mk
include flatten/module.mk
include datfile/module.mk
include model/module.mk
include interp/module.mk
include port/module.mk
include api/module.mk
include tools/module.mk
include python/module.mk
include testsuite/module.mk
include bench/module.mk

LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS)) \
	    $(patsubst $(BUILD)/%.c,$(BUILD)/%.o,$(GEN_SRCS)) $(LIB_XOBJS)

all: $(LIB) $(SOLIB) $(PROGRAMS)

$(LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(SOLIB): $(LIB_OBJS) api/nnef.map
	$(CC) -shared -Wl,-soname,libnnef.so.$(SOMAJOR) \
		-Wl,--version-script=api/nnef.map $(LDFLAGS_ALL) -o $@ \
		$(LIB_OBJS) $(LIBS)

$(BUILD)/%.o: %.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# Generated sources (scanner, parser) live under $(BUILD) already.
$(BUILD)/%.o: $(BUILD)/%.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_GEN) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	@sh scripts/deps.sh

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/bin/nnef-check examples/tiny_convnet examples/residual_block
	$(BUILD)/bin/nnef-check -q --shapes examples/tiny_convnet
	$(BUILD)/bin/nnef-datinfo --stats examples/tiny_convnet
	$(BUILD)/bin/nnef-flatten --annotate-shapes examples/residual_block
	$(BUILD)/bin/nnef-run examples/tiny_convnet --random uniform --seed 1 --stats

check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory test

# Installed: the programs, libnnef.a, libnnef.so.VERSION with its links,
# nnef.h, nnef.pc and the manual pages (and the Python module:
# python/module.mk); uninstall removes exactly those,
# and the directories left empty.
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib
INCDIR := $(PREFIX)/include
PCDIR  := $(LIBDIR)/pkgconfig
MANDIR := $(PREFIX)/share/man
MANPAGES := $(wildcard man/man*/*.[1-9])
INSTALLED := $(patsubst $(BUILD)/bin/%,$(BINDIR)/%,$(PROGRAMS)) \
	$(LIBDIR)/libnnef.a $(LIBDIR)/libnnef.so.$(VERSION) \
	$(LIBDIR)/libnnef.so.$(SOMAJOR) $(LIBDIR)/libnnef.so \
	$(INCDIR)/nnef.h $(PCDIR)/nnef.pc \
	$(patsubst man/%,$(MANDIR)/%,$(MANPAGES))

install: all install-python
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) \
		$(DESTDIR)$(PCDIR) $(addprefix $(DESTDIR)$(MANDIR)/,$(sort $(dir $(MANPAGES:man/%=%))))
	install -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SOLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libnnef.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libnnef.so.$(SOMAJOR)
	ln -sf libnnef.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libnnef.so
	install -m 644 api/nnef.h $(DESTDIR)$(INCDIR)/nnef.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		-e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCDIR@|$(INCDIR)|' \
		-e 's|@PRIVATE_LIBS@|$(strip $(LIBS))|' api/nnef.pc.in \
		>$(DESTDIR)$(PCDIR)/nnef.pc
	for f in $(MANPAGES); do \
		install -m 644 $$f $(DESTDIR)$(MANDIR)/$${f#man/} || exit 1; \
	done

# Then the directories install made, deepest first, each only when empty
# (another package's files keep theirs; PREFIX itself stays).
INSTALL_DIRS := $(patsubst %/,%,$(addprefix $(MANDIR)/,$(sort $(dir $(MANPAGES:man/%=%))))) \
	$(MANDIR) $(PREFIX)/share $(PCDIR) $(LIBDIR) $(INCDIR) $(BINDIR)
uninstall: uninstall-python
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	for d in $(addprefix $(DESTDIR),$(INSTALL_DIRS)); do \
		if [ -d "$$d" ] && [ -z "$$(ls -A "$$d")" ]; then rmdir "$$d" || exit 1; fi; \
	done

clean:
	rm -rf $(BUILD)

.PHONY: all deps demo check test test-python install uninstall clean bench memcheck memcheck-tools pictures

# The picture of a bundled example in the README (Graphviz's dot).
pictures: $(BUILD)/bin/nnef-flatten
	@mkdir -p docs
	$(BUILD)/bin/nnef-flatten --format=dot examples/tiny_convnet | dot -Tsvg -o docs/tiny_convnet.svg

# make bench BASE=REV also builds commit REV (in a temporary directory,
# from git) and shows its figures beside today's.
BENCH_BASE_DIR := $(or $(TMPDIR),/tmp)/nnefkit-bench-base
bench: all
ifneq ($(BASE),)
	rm -rf $(BENCH_BASE_DIR) && mkdir -p $(BENCH_BASE_DIR)
	git archive --format=tar $(BASE) | tar -x -C $(BENCH_BASE_DIR)
	$(MAKE) --no-print-directory -C $(BENCH_BASE_DIR) BUILD=build all
	sh bench/bench.sh $(BUILD)/bin $(BUILD)/bench $(BENCH_BASE_DIR)/build/bin
else
	sh bench/bench.sh $(BUILD)/bin $(BUILD)/bench
endif

# Unit tests under valgrind (no fork, so leaks of each test are seen;
# NNEF_TEST_LIGHT skips the 100,000-deep recursion, minutes under valgrind).
memcheck: $(UNIT_BIN)
	CK_FORK=no CK_DEFAULT_TIMEOUT=600 NNEF_TEST_LIGHT=1 \
		NNEF_CORPUS='$(NNEF_CORPUS)' NNEF_SRCDIR='$(CURDIR)' \
		valgrind -q --leak-check=full \
		--errors-for-leak-kinds=definite,indirect \
		--error-exitcode=9 $(UNIT_BIN)

# The tool driver with every program under valgrind (wrappers in
# $(BUILD)/vgbin; exit 99 on any error or definite leak). The corpus runs
# are left out: they would take long under valgrind.
VG_PROGS := nnef-check nnef-flatten nnef-run nnef-datinfo
memcheck-tools: $(PROGRAMS)
	@mkdir -p $(BUILD)/vgbin
	@for p in $(VG_PROGS); do \
		printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "%s/%s" "$$@"\n' "$(abspath $(BUILD))/bin" "$$p" >$(BUILD)/vgbin/$$p; \
		chmod +x $(BUILD)/vgbin/$$p; \
	done
	NNEF_CORPUS= NNEF_REQUIRE_CORPUS= sh testsuite/tools/driver.sh $(BUILD)/vgbin

# Deterministic weights for the bundled examples (committed; rerun after
# changing an example's variables).
MKWEIGHTS := $(BUILD)/scripts/mkweights
$(MKWEIGHTS): scripts/mkweights.c $(LIB) $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LIBS)

example-weights: $(MKWEIGHTS)
	$(MKWEIGHTS) examples/tiny_convnet 1
	$(MKWEIGHTS) examples/residual_block 2

.PHONY: example-weights
