# lexer/: the flex scanner (spec 3.1) and the hand scanner of common
# tokens beside it
LIB_SRCS += lexer/quick_scan.c
GEN_SRCS += $(BUILD)/lexer/lexer.c

$(BUILD)/lexer/lexer.c: lexer/lexer.l
	@mkdir -p $(dir $@)
	$(FLEX) -o $@ $<
