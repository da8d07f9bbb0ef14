/*
 * k_tract_math.c - kernels of tract's operations: element-wise math, einsum, resize, signal processing and recurrent helpers (k_tract_math.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"
