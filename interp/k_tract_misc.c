/*
 * k_tract_misc.c - kernels of tract's operations: mixture of experts, non-max suppression, lookups and the other operations of tract_onnx (k_tract_misc.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"
