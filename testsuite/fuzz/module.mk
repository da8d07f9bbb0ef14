# testsuite/fuzz/: the libFuzzer targets and their regression replayers
# (included from testsuite/module.mk; the variables of the top Makefile
# are set by then).
#
# Coverage-guided fuzzing with libFuzzer (needs clang), each target for
# FUZZ_SECONDS (default 60) under ASan and UBSan; not part of `make check`:
#   make fuzz          any bytes through the whole checking pipeline
#   make fuzz-run      the interpreter on every input that checks as a
#                      small valid model
#   make fuzz-dat      tensor files: header, items, nnef_tensor_read
#   make fuzz-archive  containers (tar, tgz, anything) through model_check
#   make fuzz-quant    graph.quant of a fixed small model, dequantized
#   make fuzz-oom      documents through nnef.h with one allocation made
#                      to fail (the first byte picks which)
#   make fuzz-npy      NumPy .npy files and .npz bundles: headers, items,
#                      zip directories and members (libzip), nnef.h's
#                      readers
#   make fuzz-all      each of them in turn
# Corpora grow in $(BUILD)/fuzz/corpus (parse and run) and
# $(BUILD)/fuzz/corpus-TARGET, seeded from the test data, the examples and
# testsuite/fuzz/regressions/TARGET (read, never written); crashes, leaks,
# timeouts and OOMs land in $(BUILD)/fuzz/artifacts/TARGET/. Minimize one
# with `$(BUILD)/fuzz/fuzz_TARGET -minimize_crash=1 -runs=100000 FILE` and
# keep it under testsuite/fuzz/regressions/TARGET/: `make check` replays
# those folders with $(BUILD)/tests/replay_TARGET (replay.c, no libFuzzer).
FUZZ_SECONDS ?= 60
# More libFuzzer flags, e.g. to go on after a crash:
# FUZZ_ARGS='-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1'
FUZZ_ARGS ?=
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := parse run dat archive quant oom npy
FUZZ_CC  := clang -O1 -g -I. -D_POSIX_C_SOURCE=200809L $(BLAS_CFLAGS) \
	-fsanitize=fuzzer,address,undefined -pthread
FUZZ_REG := testsuite/fuzz/regressions
FUZZ_FLAGS_parse   := -max_len=4096 -timeout=5
FUZZ_FLAGS_run     := -max_len=4096 -timeout=10 -rss_limit_mb=4096
FUZZ_FLAGS_dat     := -max_len=65536 -timeout=5
FUZZ_FLAGS_archive := -max_len=131072 -timeout=10 -rss_limit_mb=4096
FUZZ_FLAGS_quant   := -max_len=4096 -timeout=10
FUZZ_FLAGS_oom     := -max_len=4096 -timeout=5
FUZZ_FLAGS_npy     := -max_len=65536 -timeout=10 -rss_limit_mb=2048
# A long folder name for the archive seeds that need GNU long names and
# pax path records.
FUZZ_LONG := model_with_a_folder_name_longer_than_the_one_hundred_bytes_a_ustar_header_holds_so_that_long_names_are_needed

fuzz-lib:
	@mkdir -p $(FUZZ_DIR)/corpus
	$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR)/obj CC=clang \
		OPT='-O1 -g -fsanitize=fuzzer-no-link' \
		SANITIZE=address,undefined $(FUZZ_DIR)/obj/libnnef.a
	for f in testsuite/golden/*/*.nnef; do cp "$$f" "$(FUZZ_DIR)/corpus/$$(basename $$(dirname $$f))_$$(basename $$f)"; done
	cp examples/tiny_convnet/graph.nnef $(FUZZ_DIR)/corpus/tiny_convnet.nnef
	cp examples/residual_block/graph.nnef $(FUZZ_DIR)/corpus/residual_block.nnef
	for f in testsuite/vendor/*.nnef testsuite/vendor/declarations/*.nnef; do cp "$$f" "$(FUZZ_DIR)/corpus/vendor_$$(basename $$f)"; done
	for f in $$(find '$(NNEF_CORPUS)/tract-harness' -name graph.nnef 2>/dev/null); do \
		cp "$$f" "$(FUZZ_DIR)/corpus/tract_$$(echo "$${f#$(NNEF_CORPUS)/tract-harness/}" | tr / _)" || exit 1; done

# Seeds of fuzz-dat: the examples' tensor files and the small ones of the
# conformance cases.
fuzz-seeds-dat:
	@mkdir -p $(FUZZ_DIR)/corpus-dat
	for f in $$(find examples -name '*.dat'; \
		    find '$(NNEF_CORPUS)/openvx-cts-nnef' -name '*.dat' -size -64k 2>/dev/null); do \
		cp "$$f" "$(FUZZ_DIR)/corpus-dat/$$(echo "$${f#$(NNEF_CORPUS)/}" | tr / _)" || exit 1; \
	done

# Seeds of fuzz-archive: the examples as tar (one top folder) and tgz
# (members at the root, "./" prefixes), a small conformance case, and a
# model in a folder too long for a ustar header (GNU and pax forms).
fuzz-seeds-archive:
	@mkdir -p $(FUZZ_DIR)/corpus-archive $(FUZZ_DIR)/seedwork
	tar -C examples -cf $(FUZZ_DIR)/corpus-archive/tiny_convnet.tar tiny_convnet
	tar -C examples/residual_block -czf $(FUZZ_DIR)/corpus-archive/residual_block.tgz .
	rm -rf $(FUZZ_DIR)/seedwork/$(FUZZ_LONG)
	mkdir -p $(FUZZ_DIR)/seedwork/$(FUZZ_LONG)/fc
	cp examples/tiny_convnet/fc/bias.dat $(FUZZ_DIR)/seedwork/$(FUZZ_LONG)/fc/bias.dat
	printf 'version 1.0;\ngraph g( x ) -> ( y )\n{\n    x = external<scalar>(shape = [1, 10]);\n    b = variable<scalar>(shape = [1, 10], label = '"'"'fc/bias'"'"');\n    y = add(x, b);\n}\n' \
		>$(FUZZ_DIR)/seedwork/$(FUZZ_LONG)/graph.nnef
	printf '"b": linear_quantize(min = -1.0, max = 1.0, bits = 8);\n' \
		>$(FUZZ_DIR)/seedwork/$(FUZZ_LONG)/graph.quant
	tar -C $(FUZZ_DIR)/seedwork --format=gnu -cf $(FUZZ_DIR)/corpus-archive/long_gnu.tar $(FUZZ_LONG)
	tar -C $(FUZZ_DIR)/seedwork --format=pax -czf $(FUZZ_DIR)/corpus-archive/long_pax.tgz $(FUZZ_LONG)
	if [ -d '$(NNEF_CORPUS)/openvx-cts-nnef/add_2d' ]; then \
		tar -C '$(NNEF_CORPUS)/openvx-cts-nnef' -cf $(FUZZ_DIR)/corpus-archive/add_2d.tar add_2d; fi

# Seeds of fuzz-npy: the small io.npz bundles of tract's test cases and
# their arrays as .npy files (testsuite/fuzz/regressions/npy holds more).
fuzz-seeds-npy:
	@mkdir -p $(FUZZ_DIR)/corpus-npy
	for f in $$(find '$(NNEF_CORPUS)/tract-harness' -name '*.npz' -size -64k 2>/dev/null); do \
		n=$$(echo "$${f#$(NNEF_CORPUS)/}" | tr / _); \
		cp "$$f" "$(FUZZ_DIR)/corpus-npy/$$n" || exit 1; \
		for m in $$(unzip -Z1 "$$f" 2>/dev/null); do \
			unzip -p "$$f" "$$m" >"$(FUZZ_DIR)/corpus-npy/$${n}_$$m" || exit 1; \
		done; \
	done

# Seeds of fuzz-quant: testsuite/fuzz/regressions/quant holds one
# graph.quant per quantization operation.
fuzz-seeds-quant:
	@mkdir -p $(FUZZ_DIR)/corpus-quant

# $(call fuzz_go,TARGET,CORPUS): builds $(FUZZ_DIR)/fuzz_TARGET and runs it.
define fuzz_go
	@mkdir -p $(FUZZ_DIR)/artifacts/$(1)
	$(FUZZ_CC) testsuite/fuzz/fuzz_$(1).c $(FUZZ_DIR)/obj/libnnef.a $(LIBS) \
		-o $(FUZZ_DIR)/fuzz_$(1)
	$(FUZZ_DIR)/fuzz_$(1) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS_$(1)) \
		-dict=testsuite/fuzz/nnef.dict -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)/ $(FUZZ_ARGS) \
		$(2) $(wildcard $(FUZZ_REG)/$(1))
endef

fuzz: fuzz-lib
	$(call fuzz_go,parse,$(FUZZ_DIR)/corpus)

fuzz-run: fuzz-lib
	$(call fuzz_go,run,$(FUZZ_DIR)/corpus)

fuzz-dat: fuzz-lib fuzz-seeds-dat
	$(call fuzz_go,dat,$(FUZZ_DIR)/corpus-dat)

fuzz-archive: fuzz-lib fuzz-seeds-archive
	$(call fuzz_go,archive,$(FUZZ_DIR)/corpus-archive)

fuzz-quant: fuzz-lib fuzz-seeds-quant
	$(call fuzz_go,quant,$(FUZZ_DIR)/corpus-quant)

fuzz-oom: fuzz-lib
	$(call fuzz_go,oom,$(FUZZ_DIR)/corpus)

fuzz-npy: fuzz-lib fuzz-seeds-npy
	$(call fuzz_go,npy,$(FUZZ_DIR)/corpus-npy)

# One target after the other (two at once would share the cores); the
# status is that of the worst.
fuzz-all:
	@st=0; for t in fuzz fuzz-run fuzz-dat fuzz-archive fuzz-quant fuzz-oom fuzz-npy; do \
		$(MAKE) --no-print-directory $$t || st=1; done; exit $$st

# The regression replayers: each target's object linked with replay.c,
# with the normal compiler and flags (sanitizers under SANITIZE=).
FUZZ_REPLAY := $(patsubst %,$(BUILD)/tests/replay_%,$(FUZZ_TARGETS))
$(BUILD)/tests/replay_%: $(BUILD)/testsuite/fuzz/fuzz_%.o \
		$(BUILD)/testsuite/fuzz/replay.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

test: $(FUZZ_REPLAY)

.PHONY: fuzz fuzz-lib fuzz-run fuzz-dat fuzz-archive fuzz-quant fuzz-oom fuzz-npy \
	fuzz-all fuzz-seeds-dat fuzz-seeds-archive fuzz-seeds-quant fuzz-seeds-npy

