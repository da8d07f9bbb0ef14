# lexer/: the flex scanner (spec 3.1)
GEN_SRCS += $(BUILD)/lexer/lexer.c

$(BUILD)/lexer/lexer.c: lexer/lexer.l
	@mkdir -p $(dir $@)
	$(FLEX) -o $@ $<
