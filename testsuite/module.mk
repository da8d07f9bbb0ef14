# testsuite/: Check suites per module, golden diagnostics, tool drivers,
# the Python module's tests
comma := ,
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS   = $(shell pkg-config --libs check)
UNIT_SRCS := $(wildcard testsuite/unit/*.c)
UNIT_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(UNIT_SRCS))
UNIT_BIN  := $(BUILD)/tests/unit

$(BUILD)/testsuite/unit/%.o: testsuite/unit/%.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CHECK_CFLAGS) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(UNIT_BIN): $(UNIT_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $(UNIT_OBJS) $(LIB) $(CHECK_LIBS) $(LIBS)

test: all $(UNIT_BIN)
	NNEF_CORPUS='$(NNEF_CORPUS)' NNEF_SRCDIR='$(CURDIR)' $(UNIT_BIN)
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/driver.sh $(BUILD)/bin
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/datinfo.sh $(BUILD)/bin
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/run.sh $(BUILD)/bin
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/npy.sh $(BUILD)/bin
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/tract.sh $(BUILD)/bin
	NNEF_CORPUS='$(NNEF_CORPUS)' sh testsuite/tools/port.sh $(BUILD)/bin
	for t in $(FUZZ_TARGETS); do $(BUILD)/tests/replay_$$t testsuite/fuzz/regressions/$$t/* || exit 1; done
	sh testsuite/tools/diagdoc.sh $(BUILD)/bin
	sh testsuite/tools/manpages.sh $(BUILD)/bin $(SANFLAGS)
	sh testsuite/tools/install.sh $(BUILD) $(SANFLAGS)
	sh testsuite/tools/layers.sh $(BUILD)
	@$(MAKE) --no-print-directory test-python

# The tests of the Python module (testsuite/python, pytest) with Debian's
# interpreter, over the module and the programs of $(BUILD). Under
# SANITIZE the module is instrumented and the interpreter is not: the
# sanitizer's runtime is preloaded (leak checking off: the interpreter
# keeps memory to its exit by design).
PYTHON ?= /usr/bin/python3
PYTEST_ENV := PYTHONPATH='$(abspath $(BUILD))/python' NNEF_BIN='$(abspath $(BUILD))/bin' \
	NNEF_CORPUS='$(NNEF_CORPUS)' PYTHONDONTWRITEBYTECODE=1
ifneq ($(filter address,$(subst $(comma), ,$(SANITIZE))),)
PYTEST_ENV += LD_PRELOAD='$(shell $(CC) -print-file-name=libasan.so)' \
	ASAN_OPTIONS=detect_leaks=0$(if $(ASAN_OPTIONS),:$(ASAN_OPTIONS))
endif
test-python: python $(PROGRAMS)
	$(PYTEST_ENV) $(PYTHON) -m pytest -q -rsx -p no:cacheprovider testsuite/python

# The fuzz targets (make fuzz, fuzz-all, ...) and the replayers `test` runs.
include testsuite/fuzz/module.mk
