/*
 * k_tract_quant.c - kernels of tract's operations: quantized matrix products and convolutions (k_tract_quant.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"
