/* txc-align's step for the families that plan a pair of layouts (tirx.md,
 * the partition algorithm, steps 1 and 2): both regions as layouts over
 * one iteration space. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* ---- aligning the operands (txc-align) ----------------------------------------- */

static bool is_const(const Expr *e, int64_t *v)
{
	if (e->kind == E_INT) {
		*v = e->ival;
		return true;
	}
	if (e->val && e->val->kind == V_INT) {
		*v = e->val->i;
		return true;
	}
	return false;
}

/* Whether two shapes of n dimensions (a few) are the same. */
static bool same_shape(const int64_t *a, const int64_t *b, int n)
{
	for (int d = 0; d < n; d++)
		if (a[d] != b[d])
			return false;
	return true;
}

/* layout_slice(l, ...) for a buffer's layout l (buffer_layout's), from
 * its grouping by the shape kept in l's cache, as layout_apply_coord
 * keeps it: every op on a buffer slices it by the same shape, and
 * grouping costs more than copying. The cache holds the grouping of l's
 * iters as they were when it was made and is emptied whenever they
 * change (layout_push, set_shard); a buffer's layout does not change
 * once made. A hit is what layout_group would return now. */
static Layout *slice_grouped(const Layout *l, const int64_t *shape, int nd, const int64_t *start,
                             const int64_t *extents, const char **why)
{
	LayoutCache *cache = layout_cache(l);
	size_t bytes = sizeof(int64_t) * (size_t)nd;
	int dims[LAYOUT_MAX_ITERS + 1];
	if (nd > 8)
		return layout_slice(l, shape, nd, start, extents, why);
	if (!cache->grouped || cache->gndim != nd || !same_shape(cache->gshape, shape, nd)) {
		Layout *g = layout_group(l, shape, nd, dims, why);
		if (!g)
			return NULL;
		cache->grouped = g;
		cache->gndim = nd;
		memcpy(cache->gshape, shape, bytes);
		memcpy(cache->gdims, dims, sizeof(int) * (size_t)(nd + 1));
	}
	return layout_slice_grouped(layout_copy(cache->grouped), cache->gdims, shape, nd, start, extents, why);
}

/* The base of a region whose starts are constants: one 0 for every plan
 * (a long kernel's copies each made two). A plan's base is read
 * (vectorize, prove), printed, verified like any plan keyword (the same
 * value each time) and reaches lowered code only through ex_add and
 * lower_start, which drop a 0: nothing is written into the node. */
static Expr *zero_base(void)
{
	static Expr *zero;
	return zero ? zero : (zero = ex_int(0));
}

/* The region of one operand as a layout over its elements in row-major
 * order, and the storage offset of its first element beyond the layout's
 * own offset (an expression of launch ids and loop variables): the
 * buffer's layout sliced by the region, the region given as nd dimensions
 * (shape, starts, extents) whose product is the buffer's size. */
static Layout *slice_region(const Buffer *b, int nd, const int64_t *shape, Expr *const *starts,
                            const int64_t *extents, Expr **base, const char **why)
{
	const Layout *l = buffer_layout(b);
	int64_t start[LAYOUT_MAX_ITERS];
	Expr *sym[LAYOUT_MAX_ITERS];
	bool any_sym = false;
	for (int d = 0; d < nd; d++) {
		sym[d] = NULL;
		if (!is_const(starts[d], &start[d])) {
			start[d] = 0;
			sym[d] = starts[d];
			any_sym = true;
		}
	}
	Layout *s = slice_grouped(l, shape, nd, start, extents, why);
	if (!s)
		return NULL;
	*base = zero_base();
	if (!any_sym) /* the grouping below serves symbolic starts alone */
		return s;
	int dims[LAYOUT_MAX_ITERS + 1];
	Layout *g = layout_group(l, shape, nd, dims, why);
	if (!g)
		return NULL;
	for (int d = 0; d < nd; d++) {
		if (!sym[d])
			continue;
		/* The region's extent covers whole inner iters and then r of the
		 * next one, q (r dividing its extent): a start that is a multiple
		 * of the extent (of the iters below q, where q is the outermost)
		 * moves iters q and outward only, without carry, each by its
		 * digit of the start: its address is theirs added to the slice
		 * at 0's. */
		int first = dims[d];
		while (first < dims[d + 1] && g->shard[first].extent == 1)
			first++;
		if (first == dims[d + 1]) {
			*why = xprintf("dimension %d of '%s' has no iters", d, b->name);
			return NULL;
		}
		int q = dims[d + 1] - 1;
		int64_t below = 1, rem = extents[d];
		while (q > first && rem % g->shard[q].extent == 0)
			rem /= g->shard[q].extent, below *= g->shard[q].extent, q--;
		int64_t need = below; /* the start's multiple */
		if (q > first && (g->shard[q].extent % rem || !mul_ok(below, rem, &need)))
			q = -1;
		if (q == first && extents[d] % below)
			q = -1;
		if (q < 0 || (need > 1 && !expr_divisible(sym[d], need))) {
			int64_t inner = 1;
			for (int k = first + 1; k < dims[d + 1]; k++)
				inner *= g->shard[k].extent;
			if (q > first)
				*why = xprintf("the start '%s' of dimension %d of '%s' is not provably a multiple of %lld, the "
				               "extent of the region, which then stays inside one iter of the layout",
				               expr_str(sym[d]), d, b->name, (long long)need);
			else
				*why = xprintf("the start '%s' of dimension %d of '%s' is not provably a multiple of %lld, "
				               "the inner extent of its layout", expr_str(sym[d]), d, b->name,
				               (long long)(q < 0 ? inner : need));
			return NULL;
		}
		for (int k = q; k >= first; k--) {
			const Iter *it = &g->shard[k];
			if (it->extent == 1)
				continue;
			if (it->axis != AX_M) {
				*why = xprintf("a symbolic start on dimension %d of '%s', which is spread over threads", d,
				               b->name);
				return NULL;
			}
			Expr *digit = below > 1 ? ex_div(sym[d], below) : sym[d];
			if (k > first)
				digit = ex_mod(digit, it->extent);
			*base = ex_add(*base, ex_mul(digit, ex_int(it->stride)));
			if (!mul_ok(below, it->extent, &below))
				below = INT64_MAX;
		}
	}
	return s;
}

/* The region by the buffer's dimensions; where the layout does not split
 * along them (12 registers per thread over a (24, 64) view), by fewer:
 * each dimension that the region takes whole merged into the one outside
 * it, which changes no element's place in the row-major order. */
Layout *region_layout(const Value *r, Expr **base, const char **why)
{
	const Buffer *b = r->buffer;
	Layout *s = slice_region(b, b->ndim, b->shape, r->starts, r->extents, base, why);
	if (s || b->ndim < 2)
		return s;
	int64_t shape[LAYOUT_MAX_ITERS], ext[LAYOUT_MAX_ITERS], v;
	Expr *start[LAYOUT_MAX_ITERS];
	int n = 0;
	for (int d = 0; d < b->ndim; d++) {
		bool whole = is_const(r->starts[d], &v) && v == 0 && r->extents[d] == b->shape[d];
		if (n > 0 && whole) { /* dimension d joins the merged one outside it */
			shape[n - 1] *= b->shape[d];
			ext[n - 1] *= b->shape[d];
			start[n - 1] = ex_mul(start[n - 1], ex_int(b->shape[d]));
			continue;
		}
		shape[n] = b->shape[d], ext[n] = r->extents[d], start[n] = r->starts[d];
		n++;
	}
	const char *first = *why;
	if (n == b->ndim || !(s = slice_region(b, n, shape, start, ext, base, why)))
		*why = first;
	return s;
}

bool iter_fuses(const Iter *outer, const Iter *inner)
{
	int64_t run;
	return outer->axis == inner->axis && mul_ok(inner->extent, inner->stride, &run) && run == outer->stride;
}

bool plan_align(Plan *p, const Value *dst, const Value *src, bool sort, bool dst_is_global, const char **why)
{
	Expr *db, *sb;
	Layout *d = region_layout(dst, &db, why);
	Layout *s = d ? region_layout(src, &sb, why) : NULL;
	if (!s)
		return false;
	if (!layout_refine(d, s, why)) {
		/* regions shaped otherwise (6x4 and 4x6) may still refine once
		 * each side's continuing iters are fused */
		Layout *fd = layout_canonical(region_layout(dst, &db, why));
		Layout *fs = layout_canonical(region_layout(src, &sb, why));
		if (!layout_refine(fd, fs, why))
			return false;
		d = fd, s = fs;
	}
	int n = d->nshard;
	if (sort) {
		/* stable insertion sort of the iter pairs by the global stride */
		Layout *key = dst_is_global ? d : s;
		for (int i = 1; i < n; i++)
			for (int k = i; k > 0 && key->shard[k - 1].stride < key->shard[k].stride; k--) {
				Iter t = d->shard[k];
				d->shard[k] = d->shard[k - 1], d->shard[k - 1] = t;
				t = s->shard[k];
				s->shard[k] = s->shard[k - 1], s->shard[k - 1] = t;
			}
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (m > 0 && iter_fuses(&d->shard[m - 1], &d->shard[i]) && iter_fuses(&s->shard[m - 1], &s->shard[i])) {
			d->shard[m - 1].extent *= d->shard[i].extent;
			d->shard[m - 1].stride = d->shard[i].stride;
			s->shard[m - 1].extent *= s->shard[i].extent;
			s->shard[m - 1].stride = s->shard[i].stride;
			continue;
		}
		d->shard[m] = d->shard[i];
		s->shard[m] = s->shard[i];
		m++;
	}
	d->nshard = s->nshard = m;
	p->dst = d;
	p->src = s;
	p->dst_base = db;
	p->src_base = sb;
	p->aligned = (struct Aligned){ dst, src, d, s, db, sb, sort, dst_is_global };
	return true;
}

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b, b = t;
	}
	return a;
}

/* The iters of l from the outermost up to iter i, then (e, s) for the
 * part of iter i + 1 left, then the paired iters v[n - 1] .. v[0]. */
static Layout *rebuild(const Layout *l, int i, int64_t e, int64_t s, int axis, const Iter *v, int n)
{
	Layout *c = layout_copy(l);
	c->nshard = 0;
	for (int k = 0; k <= i; k++)
		layout_push(c, false, l->shard[k].extent, l->shard[k].stride, l->shard[k].axis);
	if (e > 1)
		layout_push(c, false, e, s, axis);
	for (int k = n - 1; k >= 0; k--)
		layout_push(c, false, v[k].extent, v[k].stride, v[k].axis);
	return c;
}

bool plan_align_inner(Plan *p, const Value *dst, const Value *src, const char **why)
{
	Expr *db, *sb;
	Layout *d = region_layout(dst, &db, why);
	Layout *s = d ? region_layout(src, &sb, why) : NULL;
	if (!s)
		return false;
	d = layout_canonical(d), s = layout_canonical(s);
	int64_t nd, ns;
	if (!layout_size(d, &nd) || !layout_size(s, &ns) || nd != ns) {
		*why = "the two sides have different sizes";
		return false;
	}
	/* innermost first: split both iters at the extent both divide, as
	 * layout_refine does, until two extents are coprime */
	Iter rd[(4 * LAYOUT_MAX_ITERS)], rs[(4 * LAYOUT_MAX_ITERS)];
	int n = 0, i = d->nshard - 1, j = s->nshard - 1;
	int64_t ed = 1, sd = 0, es = 1, ss = 0;
	int ad = AX_M, as = AX_M;
	for (;;) {
		if (ed == 1 && i >= 0)
			ed = d->shard[i].extent, sd = d->shard[i].stride, ad = d->shard[i].axis, i--;
		if (es == 1 && j >= 0)
			es = s->shard[j].extent, ss = s->shard[j].stride, as = s->shard[j].axis, j--;
		int64_t e = gcd(ed, es);
		if (e == 1)
			break;
		if (n >= (4 * LAYOUT_MAX_ITERS)) {
			*why = "too many iters";
			return false;
		}
		rd[n] = (Iter){ e, sd, ad };
		rs[n++] = (Iter){ e, ss, as };
		if (!mul_ok(sd, e, &sd) || !mul_ok(ss, e, &ss)) {
			*why = "a stride overflows";
			return false;
		}
		ed /= e, es /= e;
	}
	/* paired iters that continue each other on both sides fused */
	int m = 0;
	for (int k = 0; k < n; k++) {
		if (m > 0 && iter_fuses(&rd[k], &rd[m - 1]) && iter_fuses(&rs[k], &rs[m - 1])) {
			rd[m - 1].extent *= rd[k].extent;
			rs[m - 1].extent *= rs[k].extent;
			continue;
		}
		rd[m] = rd[k], rs[m++] = rs[k];
	}
	p->dst = rebuild(d, i, ed, sd, ad, rd, m);
	p->src = rebuild(s, j, es, ss, as, rs, m);
	p->dst_base = db;
	p->src_base = sb;
	return true;
}

int plan_paired(const Plan *p)
{
	const Layout *d = p->dst, *s = p->src;
	int k = 0;
	while (k < d->nshard && k < s->nshard && d->shard[d->nshard - 1 - k].extent == s->shard[s->nshard - 1 - k].extent)
		k++;
	return k;
}
