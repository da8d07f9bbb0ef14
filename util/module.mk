# util/: arena, strings, source files, diagnostics
LIB_SRCS += util/arena.c util/heap.c util/strbuf.c util/source.c util/diag.c \
	util/dtype.c util/stats.c \
	util/ptrmap.c
# The statistics' passes are vectorized (see interp/module.mk: the same
# operations in the same order, without floating-point traps).
$(BUILD)/util/stats.o: CFLAGS_ALL += -ftree-vectorize -fno-trapping-math
