/*
 * kernels.c - the kernel table: interp/kernels.def indexed by the op enum
 * of shapes/primitives.def, for each precision.
 */
#include "interp/interp_internal.h"

static const Kernel table_f32[SHAPE_OP_COUNT] = {
#define KERNEL(op, fn) [SHAPE_OP_##op] = fn##_f32,
#define KERNEL_ANY(op, fn) [SHAPE_OP_##op] = fn,
#include "interp/kernels.def"
#undef KERNEL
#undef KERNEL_ANY
};

static const Kernel table_f64[SHAPE_OP_COUNT] = {
#define KERNEL(op, fn) [SHAPE_OP_##op] = fn##_f64,
#define KERNEL_ANY(op, fn) [SHAPE_OP_##op] = fn,
#include "interp/kernels.def"
#undef KERNEL
#undef KERNEL_ANY
};

Kernel interp_kernel(ShapeOp op, InterpPrecision p)
{
	if ((unsigned)op >= SHAPE_OP_COUNT)
		return NULL;
	return p == INTERP_DOUBLE ? table_f64[op] : table_f32[op];
}

bool interp_has_kernel(ShapeOp op, InterpPrecision p)
{
	return interp_kernel(op, p) != NULL;
}
