# interp/: the reference interpreter. Kernels that compute with reals are
# compiled twice, for float (_f32) and double (_f64); see interp/real.h.
LIB_SRCS += interp/executor.c interp/fusion.c interp/k_tensor.c \
	interp/broadcast_window.c interp/tensor_io.c interp/kernels.c \
	interp/nested.c interp/dynamic.c interp/pool.c interp/gemm.c \
	interp/k_layout.c interp/winograd.c
INTERP_REAL_SRCS := interp/k_elementwise.c interp/k_conv.c \
	interp/k_window.c interp/k_reduce.c interp/k_tract_io.c \
	interp/k_tract_nn.c interp/k_tract_index.c interp/k_tract_math.c \
	interp/k_tract_signal.c interp/k_tract_quant.c interp/k_tract_misc.c \
	interp/state.c
# The kernels' loops are vectorized with the cost model GCC uses when
# asked (at -O2 alone it keeps to loops that need no run-time checks of
# overlap, which leaves out every loop over two arrays), and without
# floating-point traps, which nothing here enables (so that a select
# of floats may be computed on both sides); the float operations and
# their order are the same, so are the results.
KERNEL_CFLAGS := -ftree-vectorize -fno-trapping-math
$(BUILD)/interp/gemm.o $(BUILD)/interp/winograd.o: CFLAGS_ALL += $(KERNEL_CFLAGS)
# Winograd's transforms copy rows of 7 to 30 items, which GCC would make
# calls to memcpy and memset (a call costs more than the copy).
$(BUILD)/interp/winograd.o: CFLAGS_ALL += -fno-tree-loop-distribute-patterns
LIB_XOBJS := $(patsubst %.c,$(BUILD)/%_f32.o,$(INTERP_REAL_SRCS)) \
	$(patsubst %.c,$(BUILD)/%_f64.o,$(INTERP_REAL_SRCS))

$(BUILD)/interp/%_f32.o: interp/%.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -DINTERP_REAL=32 $(CFLAGS_ALL) $(KERNEL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/interp/%_f64.o: interp/%.c $(STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) -DINTERP_REAL=64 $(CFLAGS_ALL) $(KERNEL_CFLAGS) -MMD -MP -c $< -o $@
