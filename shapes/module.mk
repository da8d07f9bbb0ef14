# shapes/: the table of primitives, argument validity and shape functions
# (spec chapter 4)
LIB_SRCS += shapes/shapes.c shapes/window.c shapes/layout.c shapes/misc.c
