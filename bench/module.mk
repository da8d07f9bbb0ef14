# bench/: the generator of model directories used by bench/bench.sh (its
# data section), timeit, which measures a command's wall and CPU time,
# and gemm_rate, the GEMM throughput of a model's convolutions beside a
# plain GEMM of the same shapes (its nnef-run section). bench.sh finds
# them at WORKDIR/gen_model, WORKDIR/timeit and WORKDIR/gemm_rate,
# WORKDIR being $(BUILD)/bench as `make bench` passes it. bench.sh also
# runs bench/torch_time.py (nothing to build), PyTorch's time of the
# torchvision networks, beside nnef-run's.
GEN_MODEL := $(BUILD)/bench/gen_model
TIMEIT    := $(BUILD)/bench/timeit
GEMM_RATE := $(BUILD)/bench/gemm_rate

$(TIMEIT): bench/timeit.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $<

$(GEN_MODEL): bench/gen_model.c $(LIB) $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIB) $(LIBS)

$(GEMM_RATE): bench/gemm_rate.c $(LIB) $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIB) $(LIBS)

bench: $(GEN_MODEL) $(TIMEIT) $(GEMM_RATE)
