# bench/: the generator of model directories used by bench/bench.sh (its
# data section). bench.sh finds it at WORKDIR/gen_model, WORKDIR being
# $(BUILD)/bench as `make bench` passes it.
GEN_MODEL := $(BUILD)/bench/gen_model

$(GEN_MODEL): bench/gen_model.c $(LIB) $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(LIB) $(LIBS)

bench: $(GEN_MODEL)
