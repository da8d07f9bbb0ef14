# testsuite/: Check suites per module, golden diagnostics, tool drivers
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

# The fuzz targets (make fuzz, fuzz-all, ...) and the replayers `test` runs.
include testsuite/fuzz/module.mk
