# bench/: the generator of model directories used by bench/bench.sh (its
# data section) and timeit, which measures a command's wall and CPU time.
# bench.sh finds them at WORKDIR/gen_model and WORKDIR/timeit, WORKDIR
# being $(BUILD)/bench as `make bench` passes it.
GEN_MODEL := $(BUILD)/bench/gen_model
TIMEIT    := $(BUILD)/bench/timeit

$(TIMEIT): bench/timeit.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $<

$(GEN_MODEL): bench/gen_model.c $(LIB) $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIB) $(LIBS)

bench: $(GEN_MODEL) $(TIMEIT)
