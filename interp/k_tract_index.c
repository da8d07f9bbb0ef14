/*
 * k_tract_index.c - kernels of tract's operations: gathers, scatters, selections and reductions (k_tract_index.c).
 * What each computes is what tract computes (sema/tract/TRACT-NOTES.md).
 */
#include "interp/interp_internal.h"
#include "interp/real.h"
