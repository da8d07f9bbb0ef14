/*
 * stats_items.h - the statistics of a chunk of items of type T, included
 * by stats.c once per item type (double, float) with T and the names
 * SQUARES, SUM_RANGE, CHUNK_STATS and ADD defined. Every item is taken
 * as a double before any arithmetic, so a float array and the same
 * values as doubles give the same bits.
 *
 * Eight independent sums per pass (a vector's lanes), added in a fixed
 * order at the end: the additions overlap, and the result does not
 * depend on the machine (no reassociation is left to the compiler, and
 * no contraction into fused multiply-adds: ISO C).
 */

/* The sum of squared deviations of v[0..n) from mean, corrected for the
 * rounding of mean; of every value (all finite: `all`), or of the finite
 * ones. */
STATS_CLONES static double SQUARES(const T *v, size_t n, double mean, size_t cnt,
				  bool all)
{
	double m[8] = { 0 }, d[8] = { 0 };
	size_t i = 0;
	for (; all && i + 8 <= n; i += 8)
		for (size_t k = 0; k < 8; k++) {
			double x = v[i + k] - mean;
			m[k] += x * x;
			d[k] += x;
		}
	for (; i < n; i++) {
		if (!all && !isfinite(v[i]))
			continue;
		double x = v[i] - mean;
		m[0] += x * x;
		d[0] += x;
	}
	double dev = ((d[0] + d[1]) + (d[2] + d[3])) + ((d[4] + d[5]) + (d[6] + d[7]));
	double r = ((m[0] + m[1]) + (m[2] + m[3])) + ((m[4] + m[5]) + (m[6] + m[7])) - dev * dev / (double)cnt;
	return r < 0.0 ? 0.0 : r;
}

STATS_CLONES static double SUM_RANGE(const T *v, size_t n, double *lo, double *hi)
{
	double s[8] = { 0 }, l[8], h[8];
	for (size_t k = 0; k < 8; k++)
		l[k] = h[k] = v[0];
	size_t i = 0;
	for (; i + 8 <= n; i += 8)
		for (size_t k = 0; k < 8; k++) {
			double x = v[i + k];
			s[k] += x;
			l[k] = min2(l[k], x);
			h[k] = max2(h[k], x);
		}
	for (; i < n; i++) {
		s[0] += v[i];
		l[0] = min2(l[0], v[i]);
		h[0] = max2(h[0], v[i]);
	}
	*lo = min2(min2(min2(l[0], l[1]), min2(l[2], l[3])), min2(min2(l[4], l[5]), min2(l[6], l[7])));
	*hi = max2(max2(max2(h[0], h[1]), max2(h[2], h[3])), max2(max2(h[4], h[5]), max2(h[6], h[7])));
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
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

