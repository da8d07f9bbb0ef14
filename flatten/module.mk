# flatten/: compile-time evaluation, expansion into primitives, printing
LIB_SRCS += flatten/quant_apply.c flatten/eval.c flatten/builtins.c flatten/literal.c flatten/build.c flatten/print.c \
	flatten/known.c flatten/tract_coerce.c flatten/scan.c \
	flatten/shape.c flatten/dot.c
