/* The layout algebra of tirx.md: apply in its three forms, swizzle,
 * canonical form, storage, group, slice, tile, and the text of a layout.
 * Every result is exact; an overflow makes the operation fail. */
#include <string.h>

#include "ir.h"

/* Room for the iters of any layout an operation makes: a group adds at
 * most one iter per dimension to at most twice the user's limit. */
#define ITERS_CAP (4 * LAYOUT_MAX_ITERS)

/* acc += c * s */
static bool mac(int64_t *acc, int64_t c, int64_t s)
{
	int64_t t;
	return mul_ok(c, s, &t) && add_ok(*acc, t, acc);
}

int64_t layout_swizzle(const Layout *l, int64_t addr)
{
	if (!l->swizzled || addr < 0)
		return addr;
	int64_t low = addr & (((int64_t)1 << l->swz_m) - 1);
	int64_t x = addr >> l->swz_m;
	int64_t mask = (((int64_t)1 << l->swz_b) - 1) << l->swz_s;
	x ^= (x & mask) >> l->swz_s;
	return (x << l->swz_m) | low;
}

/* The addresses of iters v[0 .. n) (strides positive, largest first) from
 * base that are at least lo: the largest of them after the swizzle into
 * *best; false once *budget steps are spent. */
static bool reach_walk(const Layout *l, const Iter *v, int n, const int64_t *rest, int64_t base, int64_t lo,
                       int64_t *best, int64_t *budget)
{
	if (--*budget < 0)
		return false;
	if (n == 0) {
		int64_t a = layout_swizzle(l, base);
		if (a > *best)
			*best = a;
		return true;
	}
	for (int64_t d = v[0].extent - 1; d >= 0; d--) {
		int64_t a = base + d * v[0].stride;
		if (a + rest[1] < lo) /* the iters after it cannot reach lo */
			break;
		if (!reach_walk(l, v + 1, n - 1, rest + 1, a, lo, best, budget))
			return false;
	}
	return true;
}

bool layout_reach(const Layout *l, int64_t *out)
{
	if (!layout_span(l, AX_M, out))
		return false;
	if (!l->swizzled)
		return true;
	/* A swizzle moves an element only within its 2^(M+B)-element chunk:
	 * the largest address is in the chunk of the last element. Its
	 * addresses are walked, the largest strides first; where that takes
	 * too long (iters that overlap), the chunk's end. */
	int64_t chunk = (int64_t)1 << (l->swz_m + l->swz_b), lo = (*out - 1) / chunk * chunk;
	int64_t end = lo + chunk;
	Iter v[ITERS_CAP];
	int64_t rest[ITERS_CAP + 1];
	int n = 0;
	for (int i = 0; i < l->nshard + l->nrep; i++) {
		const Iter *it = i < l->nshard ? &l->shard[i] : &l->rep[i - l->nshard];
		if (it->axis != AX_M || it->extent == 1 || it->stride == 0)
			continue;
		if (it->stride < 0 || n == ITERS_CAP) {
			*out = end;
			return true;
		}
		int k = n++;
		for (; k > 0 && v[k - 1].stride < it->stride; k--)
			v[k] = v[k - 1];
		v[k] = *it;
	}
	rest[n] = 0;
	for (int k = n - 1; k >= 0; k--)
		rest[k] = rest[k + 1] + (v[k].extent - 1) * v[k].stride;
	int64_t best = -1, budget = (int64_t)1 << 16;
	if (!reach_walk(l, v, n, rest, l->off[AX_M], lo, &best, &budget))
		best = end - 1;
	*out = best + 1;
	return true;
}

bool layout_apply_iters(const Layout *l, const int64_t *coord, int64_t out[AX_COUNT])
{
	for (int a = 0; a < AX_COUNT; a++)
		out[a] = l->off[a];
	for (int i = 0; i < l->nshard; i++)
		if (!mac(&out[l->shard[i].axis], coord[i], l->shard[i].stride))
			return false;
	out[AX_M] = layout_swizzle(l, out[AX_M]);
	return true;
}

bool layout_apply(const Layout *l, int64_t flat, int64_t out[AX_COUNT])
{
	int64_t coord[ITERS_CAP];
	if (flat < 0 || l->nshard > ITERS_CAP)
		return false;
	for (int i = l->nshard - 1; i >= 0; i--) {
		int64_t e = l->shard[i].extent;
		coord[i] = i == 0 ? flat : flat % e;
		flat = i == 0 ? 0 : flat / e;
	}
	if (l->nshard == 0 && flat != 0)
		return false;
	return layout_apply_iters(l, coord, out);
}

bool layout_apply_coord(const Layout *l, const int64_t *shape, int ndim, const int64_t *coord,
                        int64_t out[AX_COUNT])
{
	int dims[LAYOUT_MAX_ITERS + 1];
	const char *why;
	Layout *g = NULL;
	LayoutCache *cache = layout_cache(l); /* apply is called per element: group once per shape */
	if (cache && cache->grouped && cache->gndim == ndim && !memcmp(cache->gshape, shape, sizeof(int64_t) * (size_t)ndim)) {
		g = cache->grouped;
		memcpy(dims, cache->gdims, sizeof(int) * (size_t)(ndim + 1));
	} else if (ndim <= 8) {
		g = layout_group(l, shape, ndim, dims, &why);
		if (g) {
			cache->grouped = g;
			cache->gndim = ndim;
			memcpy(cache->gshape, shape, sizeof(int64_t) * (size_t)ndim);
			memcpy(cache->gdims, dims, sizeof(int) * (size_t)(ndim + 1));
		}
	}
	if (!g) {
		/* flatten row-major, then split */
		int64_t flat = 0;
		for (int d = 0; d < ndim; d++)
			if (!mul_ok(flat, shape[d], &flat) || !add_ok(flat, coord[d], &flat))
				return false;
		return layout_apply(l, flat, out);
	}
	int64_t c[ITERS_CAP];
	if (g->nshard > ITERS_CAP)
		return false;
	for (int d = 0; d < ndim; d++) {
		int64_t x = coord[d];
		if (x < 0)
			return false;
		for (int i = dims[d + 1] - 1; i >= dims[d]; i--) {
			int64_t e = g->shard[i].extent;
			c[i] = i == dims[d] ? x : x % e;
			x = i == dims[d] ? 0 : x / e;
		}
		if (x != 0) /* a dimension with no iters takes only 0 */
			return false;
	}
	return layout_apply_iters(g, c, out);
}

int64_t layout_nreplicas(const Layout *l)
{
	int64_t n = 1;
	for (int i = 0; i < l->nrep; i++)
		if (!mul_ok(n, l->rep[i].extent, &n))
			return -1;
	return n;
}

void layout_replica(const Layout *l, int64_t r, int64_t out[AX_COUNT])
{
	for (int i = l->nrep - 1; i >= 0; i--) {
		int64_t e = l->rep[i].extent;
		mac(&out[l->rep[i].axis], r % e, l->rep[i].stride);
		r /= e;
	}
}

/* Drops extent-1 iters and fuses each iter into the one before it when
 * they continue each other on one axis. */
static void canon_iters(Layout *c, const Iter *v, int n, bool replica)
{
	Iter **dst = replica ? &c->rep : &c->shard;
	int *nd = replica ? &c->nrep : &c->nshard;
	for (int i = 0; i < n; i++) {
		Iter it = v[i];
		if (it.extent == 1)
			continue;
		Iter *prev = *nd ? &(*dst)[*nd - 1] : NULL;
		int64_t run, ext;
		if (prev && prev->axis == it.axis && mul_ok(it.extent, it.stride, &run) && run == prev->stride &&
		    mul_ok(prev->extent, it.extent, &ext)) {
			prev->extent = ext;
			prev->stride = it.stride;
			continue;
		}
		layout_push(c, replica, it.extent, it.stride, it.axis);
	}
}

Layout *layout_canonical(const Layout *l)
{
	Layout *c = layout_new();
	memcpy(c->off, l->off, sizeof c->off);
	c->swizzled = l->swizzled;
	c->swz_m = l->swz_m, c->swz_b = l->swz_b, c->swz_s = l->swz_s;
	canon_iters(c, l->shard, l->nshard, false);
	canon_iters(c, l->rep, l->nrep, true);
	return c;
}

Layout *layout_storage(const Layout *l)
{
	Layout *c = layout_new();
	c->swizzled = l->swizzled;
	c->swz_m = l->swz_m, c->swz_b = l->swz_b, c->swz_s = l->swz_s;
	for (int a = 0; a < AX_COUNT; a++)
		if (axes[a].kind != AXK_THREAD)
			c->off[a] = l->off[a];
	for (int i = 0; i < l->nshard; i++)
		if (axes[l->shard[i].axis].kind != AXK_THREAD)
			layout_push(c, false, l->shard[i].extent, l->shard[i].stride, l->shard[i].axis);
	for (int i = 0; i < l->nrep; i++)
		if (axes[l->rep[i].axis].kind != AXK_THREAD)
			layout_push(c, true, l->rep[i].extent, l->rep[i].stride, l->rep[i].axis);
	return c;
}

/* l's shard made v[n - 1] .. v[0] (innermost first in v) in one new
 * array, as that many layout_push calls on an empty shard would. */
static void set_shard_reversed(Layout *l, const Iter *v, int n)
{
	if (l->cache)
		l->cache->grouped = NULL;
	l->shard = xalloc(sizeof(Iter) * (size_t)(n + 1));
	for (int k = 0; k < n; k++)
		l->shard[k] = v[n - 1 - k];
	l->nshard = n;
}

static Layout *same_but_shard(const Layout *l)
{
	Layout *c = layout_new();
	memcpy(c->off, l->off, sizeof c->off);
	c->swizzled = l->swizzled;
	c->swz_m = l->swz_m, c->swz_b = l->swz_b, c->swz_s = l->swz_s;
	if (l->nrep) {
		c->rep = xalloc(sizeof(Iter) * (size_t)l->nrep);
		memcpy(c->rep, l->rep, sizeof(Iter) * (size_t)l->nrep);
		c->nrep = l->nrep;
	}
	return c;
}

Layout *layout_group(const Layout *l, const int64_t *shape, int ndim, int *dims, const char **why)
{
	int64_t size, n = 1;
	for (int d = 0; d < ndim; d++)
		if (shape[d] <= 0 || !mul_ok(n, shape[d], &n)) {
			*why = "the shape has a non-positive or too large extent";
			return NULL;
		}
	if (!layout_size(l, &size) || size != n) {
		*why = xprintf("the layout has %lld elements but the shape has %lld", (long long)size, (long long)n);
		return NULL;
	}
	if (ndim > LAYOUT_MAX_ITERS || l->nshard + ndim > ITERS_CAP) {
		*why = "too many dimensions";
		return NULL;
	}
	/* Walk the iters from the innermost, giving each dimension (from the
	 * last) whole iters, splitting one where a dimension ends inside it. */
	Iter rev[ITERS_CAP];
	int nrev = 0, end[LAYOUT_MAX_ITERS + 1];
	int i = l->nshard - 1;
	int64_t e = i >= 0 ? l->shard[i].extent : 1, s = i >= 0 ? l->shard[i].stride : 0;
	for (int d = ndim - 1; d >= 1; d--) {
		int64_t need = shape[d];
		while (need > 1) {
			if (i < 0) {
				*why = "the layout has fewer elements than the shape";
				return NULL;
			}
			if (e == 1) {
				rev[nrev++] = (Iter){ 1, s, l->shard[i].axis };
				i--;
				e = i >= 0 ? l->shard[i].extent : 1, s = i >= 0 ? l->shard[i].stride : 0;
				continue;
			}
			if (need % e == 0) {
				rev[nrev++] = (Iter){ e, s, l->shard[i].axis };
				need /= e;
				i--;
				e = i >= 0 ? l->shard[i].extent : 1, s = i >= 0 ? l->shard[i].stride : 0;
			} else if (e % need == 0) {
				rev[nrev++] = (Iter){ need, s, l->shard[i].axis };
				e /= need;
				if (!mul_ok(s, need, &s)) {
					*why = "a stride overflows";
					return NULL;
				}
				need = 1;
			} else {
				*why = xprintf("an iter of extent %lld cannot be split evenly for dimension %d of extent %lld",
				               (long long)e, d, (long long)shape[d]);
				return NULL;
			}
		}
		end[d] = nrev;
	}
	/* dimension 0 takes what is left, the partly used iter first */
	if (i >= 0) {
		rev[nrev++] = (Iter){ e, s, l->shard[i].axis };
		i--;
	}
	for (; i >= 0; i--)
		rev[nrev++] = l->shard[i];
	end[0] = nrev;
	Layout *g = same_but_shard(l);
	set_shard_reversed(g, rev, nrev);
	/* end[d] counts iters from the inner end up to dimension d's first */
	dims[0] = 0;
	for (int d = 1; d < ndim; d++)
		dims[d] = nrev - end[d];
	dims[ndim] = nrev;
	return g;
}

Layout *layout_slice(const Layout *l, const int64_t *shape, int ndim, const int64_t *start,
                     const int64_t *extent, const char **why)
{
	int dims[LAYOUT_MAX_ITERS + 1];
	Layout *g = layout_group(l, shape, ndim, dims, why);
	return g ? layout_slice_grouped(g, dims, shape, ndim, start, extent, why) : NULL;
}

Layout *layout_slice_grouped(Layout *g, const int *dims, const int64_t *shape, int ndim, const int64_t *start,
                             const int64_t *extent, const char **why)
{
	for (int d = 0; d < ndim; d++) {
		int64_t st = start[d], ex = extent[d];
		if (st < 0 || ex < 1 || st > shape[d] - ex) {
			*why = xprintf("region %lld:%lld of dimension %d is outside its extent %lld", (long long)st,
			               (long long)(st + ex), d, (long long)shape[d]);
			return NULL;
		}
		for (int k = dims[d + 1] - 1; k >= dims[d]; k--) {
			Iter *it = &g->shard[k];
			int64_t e = it->extent;
			int64_t *off = &g->off[it->axis];
			if (k == dims[d]) { /* outermost of the dimension: not reduced */
				if (!mac(off, st, it->stride))
					goto overflow;
				it->extent = ex;
				st = 0, ex = 1;
			} else if (ex == 1) {
				if (!mac(off, st % e, it->stride))
					goto overflow;
				it->extent = 1;
				st /= e;
			} else if (ex % e == 0 && st % e == 0) {
				st /= e, ex /= e;
			} else if (st % e + ex <= e) {
				if (!mac(off, st % e, it->stride))
					goto overflow;
				it->extent = ex;
				st /= e, ex = 1;
			} else {
				*why = xprintf("region %lld:%lld of dimension %d does not fall on whole iters of the layout",
				               (long long)start[d], (long long)(start[d] + extent[d]), d);
				return NULL;
			}
		}
		if (dims[d] == dims[d + 1] && (st != 0 || ex != 1)) {
			*why = "a region of a dimension with no iters";
			return NULL;
		}
	}
	return g;
overflow:
	*why = "an offset overflows";
	return NULL;
}

Layout *layout_tile(const Layout *outer, const int64_t *oshape, const Layout *inner, const int64_t *ishape,
                    int ndim, const char **why)
{
	if (outer->swizzled || inner->swizzled) {
		*why = "tiling swizzled layouts is not supported";
		return NULL;
	}
	int od[LAYOUT_MAX_ITERS + 1], id[LAYOUT_MAX_ITERS + 1];
	Layout *go = layout_group(outer, oshape, ndim, od, why);
	Layout *gi = go ? layout_group(inner, ishape, ndim, id, why) : NULL;
	if (!gi)
		return NULL;
	int64_t span[AX_COUNT];
	for (int a = 0; a < AX_COUNT; a++)
		if (!layout_span(gi, a, &span[a]))
			goto overflow;
	Layout *t = layout_new();
	for (int d = 0; d < ndim; d++) {
		for (int k = od[d]; k < od[d + 1]; k++) {
			int64_t s;
			if (!mul_ok(go->shard[k].stride, span[go->shard[k].axis], &s))
				goto overflow;
			layout_push(t, false, go->shard[k].extent, s, go->shard[k].axis);
		}
		for (int k = id[d]; k < id[d + 1]; k++)
			layout_push(t, false, gi->shard[k].extent, gi->shard[k].stride, gi->shard[k].axis);
	}
	for (int k = 0; k < go->nrep; k++) {
		int64_t s;
		if (!mul_ok(go->rep[k].stride, span[go->rep[k].axis], &s))
			goto overflow;
		layout_push(t, true, go->rep[k].extent, s, go->rep[k].axis);
	}
	for (int k = 0; k < gi->nrep; k++)
		layout_push(t, true, gi->rep[k].extent, gi->rep[k].stride, gi->rep[k].axis);
	for (int a = 0; a < AX_COUNT; a++) {
		t->off[a] = gi->off[a];
		if (!mac(&t->off[a], go->off[a], span[a]))
			goto overflow;
	}
	return t;
overflow:
	*why = "a stride or offset overflows";
	return NULL;
}

static void stride_str(Buf *b, const Iter *it)
{
	if (it->axis == AX_M)
		bprintf(b, "%lld", (long long)it->stride);
	else
		bprintf(b, "%lld @ %s", (long long)it->stride, axes[it->axis].name);
}

static void iters_str(Buf *b, const char *name, const Iter *v, int n)
{
	bprintf(b, "%s[", name);
	if (n == 1 && v[0].axis == AX_M && v[0].stride == 1 && name[0] == 'S') {
		bprintf(b, "%lld", (long long)v[0].extent);
	} else if (n == 1) {
		bprintf(b, "%lld : ", (long long)v[0].extent);
		stride_str(b, &v[0]);
	} else {
		bputc(b, '(');
		for (int i = 0; i < n; i++)
			bprintf(b, "%s%lld", i ? ", " : "", (long long)v[i].extent);
		bputs(b, ") : (");
		for (int i = 0; i < n; i++) {
			if (i)
				bputs(b, ", ");
			stride_str(b, &v[i]);
		}
		bputc(b, ')');
	}
	bputc(b, ']');
}

char *layout_str(const Layout *l)
{
	Buf b = {0};
	if (l->swizzled)
		bprintf(&b, "ComposeLayout(%d, %d, %d, ", l->swz_m, l->swz_b, l->swz_s);
	if (l->nshard)
		iters_str(&b, "S", l->shard, l->nshard);
	else
		bputs(&b, "S[1]");
	if (l->nrep) {
		bputs(&b, " + ");
		iters_str(&b, "R", l->rep, l->nrep);
	}
	for (int a = 0; a < AX_COUNT; a++)
		if (l->off[a] && a != AX_M)
			bprintf(&b, " + %lld @ %s", (long long)l->off[a], axes[a].name);
	if (l->off[AX_M])
		bprintf(&b, " + %lld", (long long)l->off[AX_M]);
	if (l->swizzled)
		bputc(&b, ')');
	return b.s;
}

/* Whether layout_refine would give a and b their own iters back: as many
 * iters, each of extent above 1 and that of the other side's iter at its
 * place, no stride overflowing when its iter is walked. */
static bool refined_already(const Layout *a, const Layout *b)
{
	if (a->nshard != b->nshard || a->nshard > ITERS_CAP)
		return false;
	for (int k = 0; k < a->nshard; k++) {
		int64_t e = a->shard[k].extent, t;
		if (e <= 1 || b->shard[k].extent != e || !mul_ok(a->shard[k].stride, e, &t) ||
		    !mul_ok(b->shard[k].stride, e, &t))
			return false;
	}
	return true;
}

/* Splits iters of a and b (shards of equal size) until both have the same
 * extents, innermost first; drops extent-1 iters. False when an extent of
 * one side does not divide the other's where they meet. */
bool layout_refine(Layout *a, Layout *b, const char **why)
{
	if (refined_already(a, b)) /* the walk would make the same iters again */
		return true;
	Iter ra[ITERS_CAP], rb[ITERS_CAP];
	int na = 0, nb = 0;
	int i = a->nshard - 1, j = b->nshard - 1;
	int64_t ea = 0, sa = 0, eb = 0, sb = 0;
	for (;;) {
		while (ea <= 1 && i >= 0)
			ea = a->shard[i].extent, sa = a->shard[i].stride, i--;
		while (eb <= 1 && j >= 0)
			eb = b->shard[j].extent, sb = b->shard[j].stride, j--;
		if (ea <= 1 || eb <= 1)
			break;
		if (na >= ITERS_CAP || nb >= ITERS_CAP) {
			*why = "too many iters";
			return false;
		}
		int xa = a->shard[i + 1].axis, xb = b->shard[j + 1].axis;
		int64_t e = ea < eb ? ea : eb;
		if ((ea > eb ? ea % eb : eb % ea) != 0) {
			*why = xprintf("an iter of extent %lld meets one of extent %lld; neither divides the other",
			               (long long)ea, (long long)eb);
			return false;
		}
		ra[na++] = (Iter){ e, sa, xa };
		rb[nb++] = (Iter){ e, sb, xb };
		if (!mul_ok(sa, e, &sa) || !mul_ok(sb, e, &sb)) {
			*why = "a stride overflows";
			return false;
		}
		ea /= e, eb /= e;
	}
	if (ea > 1 || eb > 1 || i >= 0 || j >= 0) {
		for (; i >= 0; i--)
			ea *= a->shard[i].extent;
		for (; j >= 0; j--)
			eb *= b->shard[j].extent;
		if (ea > 1 || eb > 1) {
			*why = "the two sides have different sizes";
			return false;
		}
	}
	set_shard_reversed(a, ra, na);
	set_shard_reversed(b, rb, nb);
	return true;
}
