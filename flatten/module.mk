# flatten/: compile-time evaluation, expansion into primitives, printing
LIB_SRCS += flatten/value.c flatten/eval.c flatten/literal.c flatten/graph.c flatten/print.c \
	flatten/known.c flatten/tract.c flatten/scan.c \
	flatten/shape.c flatten/dot.c
