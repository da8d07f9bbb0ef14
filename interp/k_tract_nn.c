/*
 * k_tract_nn.c - kernels of tract's operations: transformer and activation kernels (k_tract_nn.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"
