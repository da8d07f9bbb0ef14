/*
 * stats_items.h - the statistics of a chunk of items of type T, included
 * by stats.c once per item type (double, float) with T and the names
 * SQUARES, SUM_RANGE, CHUNK_STATS and ADD defined. Every item is taken
 * as a double before any arithmetic, so a float array and the same
 * values as doubles give the same bits.
 *
 * Four independent sums per pass, added in a fixed order at the end: the
 * additions overlap, and the result does not depend on the machine (no
 * reassociation is left to the compiler).
 */

/* The sum of squared deviations of v[0..n) from mean, corrected for the
 * rounding of mean; of every value (all finite: `all`), or of the finite
 * ones. */
static double SQUARES(const T *v, size_t n, double mean, size_t cnt,
		      bool all)
{
	double m0 = 0, m1 = 0, m2 = 0, m3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
	size_t i = 0;
	for (; all && i + 4 <= n; i += 4) {
		double a = v[i] - mean, b = v[i + 1] - mean, c = v[i + 2] - mean, d = v[i + 3] - mean;
		m0 += a * a;
		m1 += b * b;
		m2 += c * c;
		m3 += d * d;
		d0 += a;
		d1 += b;
		d2 += c;
		d3 += d;
	}
	for (; i < n; i++) {
		if (!all && !isfinite(v[i]))
			continue;
		double a = v[i] - mean;
		m0 += a * a;
		d0 += a;
	}
	double dev = (d0 + d1) + (d2 + d3), r = (m0 + m1) + (m2 + m3) - dev * dev / (double)cnt;
	return r < 0.0 ? 0.0 : r;
}

/* Sum, minimum and maximum of v[0..n) (n > 0), NaN aside in the last
 * two. */
static double SUM_RANGE(const T *v, size_t n, double *lo, double *hi)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	double l0 = v[0], l1 = v[0], l2 = v[0], l3 = v[0], h0 = v[0], h1 = v[0], h2 = v[0], h3 = v[0];
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		s0 += v[i];
		s1 += v[i + 1];
		s2 += v[i + 2];
		s3 += v[i + 3];
		l0 = min2(l0, v[i]);
		l1 = min2(l1, v[i + 1]);
		l2 = min2(l2, v[i + 2]);
		l3 = min2(l3, v[i + 3]);
		h0 = max2(h0, v[i]);
		h1 = max2(h1, v[i + 1]);
		h2 = max2(h2, v[i + 2]);
		h3 = max2(h3, v[i + 3]);
	}
	for (; i < n; i++) {
		s0 += v[i];
		l0 = min2(l0, v[i]);
		h0 = max2(h0, v[i]);
	}
	*lo = min2(min2(l0, l1), min2(l2, l3));
	*hi = max2(max2(h0, h1), max2(h2, h3));
	return (s0 + s1) + (s2 + s3);
}

/* The statistics of one chunk: its mean and squared deviations in two
 * passes (the chunk is still in the cache for the second). A chunk
 * whose sum is finite has no NaN nor infinity (either would make it so),
 * and is summed without looking at each value; only one whose sum is not
 * is counted value by value. */
static void CHUNK_STATS(UtilStats *c, const T *v, size_t n)
{
	double lo, hi, sum = SUM_RANGE(v, n, &lo, &hi);
	bool all = isfinite(sum);
	size_t cnt = n;
	if (!all) {
		cnt = 0;
		sum = 0.0;
		for (size_t i = 0; i < n; i++) {
			if (isnan(v[i])) {
				c->nan++;
			} else if (isinf(v[i])) {
				c->inf++;
			} else {
				lo = cnt == 0 || v[i] < lo ? v[i] : lo;
				hi = cnt == 0 || v[i] > hi ? v[i] : hi;
				cnt++;
				sum += v[i];
			}
		}
	}
	if (cnt == 0)
		return;
	c->count = cnt;
	c->min = lo;
	c->max = hi;
	c->mean = sum / (double)cnt;
	c->m2 = SQUARES(v, n, c->mean, cnt, all);
}

/* Each chunk's statistics merged with the running ones (Chan, Golub and
 * LeVeque), so that long streams keep their precision. */
void ADD(UtilStats *st, const T *v, size_t n)
{
	for (size_t i = 0; i < n; i += UTIL_STATS_CHUNK) {
		UtilStats c = { 0 };
		CHUNK_STATS(&c, v + i, n - i < UTIL_STATS_CHUNK ? n - i : UTIL_STATS_CHUNK);
		util_stats_merge(st, &c);
	}
}

