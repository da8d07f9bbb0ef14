# sema/: types, the standard library, declarations, invocations, bodies
LIB_SRCS += sema/types.c sema/sema.c sema/expr.c sema/body.c
GEN_SRCS += $(BUILD)/sema/stdlib_text.c

# The standard library is NNEF source, embedded as bytes.
$(BUILD)/sema/stdlib_text.c: sema/stdlib.nnef scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh sema_stdlib $< > $@.tmp && mv $@.tmp $@
