/*
 * stats.c - summary statistics of a stream of reals: the count of finite
 * values, of NaNs and of infinities, and the minimum, maximum, mean and
 * sum of squared deviations of the finite values (nnef-datinfo --stats,
 * nnef-run --stats and --statistics).
 */
#include "util/util.h"

#include <math.h>

/* Adds one chunk: its mean and squared deviations in two passes (the
 * chunk is still in the cache for the second), then merged with the
 * running ones (Chan, Golub and LeVeque), so that long streams keep
 * their precision. */
static void stats_chunk(UtilStats *st, const double *v, size_t n)
{
	size_t cnt = 0;
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i])) {
			st->nan++;
		} else if (isinf(v[i])) {
			st->inf++;
		} else {
			if (st->count + cnt == 0 || v[i] < st->min)
				st->min = v[i];
			if (st->count + cnt == 0 || v[i] > st->max)
				st->max = v[i];
			cnt++;
			sum += v[i];
		}
	}
	if (cnt == 0)
		return;
	double mean = sum / (double)cnt, m2 = 0.0, dev = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		double d = v[i] - mean;
		m2 += d * d;
		dev += d;
	}
	m2 -= dev * dev / (double)cnt; /* corrects the rounding of mean */
	if (m2 < 0.0)
		m2 = 0.0;
	double na = (double)st->count, nb = (double)cnt, nt = na + nb;
	double delta = mean - st->mean;
	st->mean += delta * (nb / nt);
	st->m2 += m2 + delta * delta * (na / nt) * nb;
	st->count += cnt;
}

void util_stats_add(UtilStats *st, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i += UTIL_STATS_CHUNK)
		stats_chunk(st, v + i, n - i < UTIL_STATS_CHUNK ? n - i : UTIL_STATS_CHUNK);
}

double util_stats_sample_std(const UtilStats *st)
{
	return st->count > 1 ? sqrt(st->m2 / (double)(st->count - 1)) : 0.0;
}
