/*
 * stats.c - summary statistics of a stream of reals: the count of finite
 * values, of NaNs and of infinities, and the minimum, maximum, mean and
 * sum of squared deviations of the finite values (nnef-datinfo --stats,
 * nnef-run --stats and --statistics).
 */
#include "util/util.h"

#include <math.h>

void util_stats_merge(UtilStats *st, const UtilStats *b)
{
	st->nan += b->nan;
	st->inf += b->inf;
	if (b->count == 0)
		return;
	if (st->count == 0 || b->min < st->min)
		st->min = b->min;
	if (st->count == 0 || b->max > st->max)
		st->max = b->max;
	double na = (double)st->count, nb = (double)b->count, nt = na + nb;
	double delta = b->mean - st->mean;
	st->mean += delta * (nb / nt);
	st->m2 += b->m2 + delta * delta * (na / nt) * nb;
	st->count += b->count;
}

/* The two passes are compiled also for AVX-512 and AVX2, chosen by what
 * the machine has; the operations and their order are the same, so are
 * the results (util/module.mk: vectorized, without floating-point
 * traps). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define STATS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define STATS_CLONES
#endif

static double min2(double a, double b) { return b < a ? b : a; }
static double max2(double a, double b) { return b > a ? b : a; }

#define T double
#define SQUARES squares_f64
#define SUM_RANGE sum_range_f64
#define CHUNK_STATS chunk_stats_f64
#define ADD util_stats_add
#include "util/stats_items.h"
#undef T
#undef SQUARES
#undef SUM_RANGE
#undef CHUNK_STATS
#undef ADD

#define T float
#define SQUARES squares_f32
#define SUM_RANGE sum_range_f32
#define CHUNK_STATS chunk_stats_f32
#define ADD util_stats_add_f32
#include "util/stats_items.h"

double util_stats_sample_std(const UtilStats *st)
{
	return st->count > 1 ? sqrt(st->m2 / (double)(st->count - 1)) : 0.0;
}
