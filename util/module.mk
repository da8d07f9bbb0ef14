# util/: arena, strings, source files, diagnostics
LIB_SRCS += util/arena.c util/heap.c util/strbuf.c util/source.c util/diag.c \
	util/dtype.c util/stats.c \
	util/ptrmap.c
