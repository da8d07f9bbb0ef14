# tools/: the programs
TOOL_COMMON := $(BUILD)/tools/cli.o
PROGRAMS := $(BUILD)/bin/nnef-check $(BUILD)/bin/nnef-flatten \
	    $(BUILD)/bin/nnef-datinfo $(BUILD)/bin/nnef-run

$(BUILD)/bin/%: $(BUILD)/tools/%.o $(TOOL_COMMON) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(TOOL_COMMON) $(LIB) $(LIBS)
