# grammar/: the bison parser (spec 3.2, Appendix A), its token feed, the
# reader of plain statements of a streamed body, the AST, syntax checks
LIB_SRCS += grammar/ast.c grammar/plain_statements.c grammar/token_feed.c grammar/parse.c grammar/vendor.c
GEN_SRCS += $(BUILD)/grammar/grammar.c

$(BUILD)/grammar/grammar.c: grammar/grammar.y
	@mkdir -p $(dir $@)
	$(BISON) -Wall -Werror -o $@ $<
