# sema/: types, the standard library, the registries of tract's dialect,
# declarations, invocations, bodies
LIB_SRCS += sema/types.c sema/sema.c sema/expr.c sema/body.c sema/registry.c \
	sema/quant.c
GEN_SRCS += $(BUILD)/sema/stdlib_text.c $(BUILD)/sema/registries_text.c
REGISTRY_FILES := $(sort $(wildcard sema/tract/*.nnef))

# The standard library is NNEF source, embedded as bytes.
$(BUILD)/sema/stdlib_text.c: sema/stdlib.nnef scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh sema_stdlib $< > $@.tmp && mv $@.tmp $@

# So are the declarations of tract's registries, one file each; the list
# of files is written again when it changes (so that the table is remade).
REGISTRY_LIST := $(BUILD)/sema/registries.list
$(shell mkdir -p $(BUILD)/sema && \
	if [ "$$(cat $(REGISTRY_LIST) 2>/dev/null)" != '$(REGISTRY_FILES)' ]; then \
		printf '%s' '$(REGISTRY_FILES)' > $(REGISTRY_LIST); fi)

$(BUILD)/sema/registries_text.c: $(REGISTRY_FILES) $(REGISTRY_LIST) scripts/embed_registries.sh
	@mkdir -p $(dir $@)
	sh scripts/embed_registries.sh $(REGISTRY_FILES) > $@.tmp && mv $@.tmp $@
