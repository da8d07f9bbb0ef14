# shapes/: the table of primitives, argument validity and shape functions
# (spec chapter 4)
LIB_SRCS += shapes/shapes.c shapes/window.c shapes/layout.c shapes/roi_matmul_update.c shapes/dim.c shapes/value.c \
	shapes/tract_io.c shapes/tract_core.c shapes/tract_nn.c shapes/tract_transformers.c \
	shapes/tract_onnx.c shapes/tract_misc.c
