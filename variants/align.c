/* txc-align's step for the families that plan a pair of layouts (tirx.md,
 * the partition algorithm, steps 1 and 2): both regions as layouts over
 * one iteration space. */
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

/* The region of one operand as a layout over its elements in row-major
 * order, and the storage offset of its first element beyond the layout's
 * own offset (an expression of launch ids and loop variables). */
static Layout *region_layout(const Value *r, Expr **base, const char **why)
{
	const Buffer *b = r->buffer;
	const Layout *l = buffer_layout(b);
	int nd = b->ndim;
	int64_t start[LAYOUT_MAX_ITERS];
	Expr *sym[LAYOUT_MAX_ITERS];
	for (int d = 0; d < nd; d++) {
		sym[d] = NULL;
		if (!is_const(r->starts[d], &start[d])) {
			start[d] = 0;
			sym[d] = r->starts[d];
		}
	}
	Layout *s = layout_slice(l, b->shape, nd, start, r->extents, why);
	if (!s)
		return NULL;
	*base = ex_int(0);
	int dims[LAYOUT_MAX_ITERS + 1];
	Layout *g = layout_group(l, b->shape, nd, dims, why);
	if (!g)
		return NULL;
	for (int d = 0; d < nd; d++) {
		if (!sym[d])
			continue;
		/* the start falls on whole inner iters: it moves the outermost */
		int64_t inner = 1;
		int first = dims[d];
		while (first < dims[d + 1] && g->shard[first].extent == 1)
			first++;
		if (first == dims[d + 1]) {
			*why = xprintf("dimension %d of '%s' has no iters", d, b->name);
			return NULL;
		}
		for (int k = first + 1; k < dims[d + 1]; k++)
			inner *= g->shard[k].extent;
		const Iter *outer = &g->shard[first];
		if (outer->axis != AX_M) {
			*why = xprintf("a symbolic start on dimension %d of '%s', which is spread over threads", d, b->name);
			return NULL;
		}
		if (inner > 1 && (!expr_divisible(sym[d], inner) || r->extents[d] % inner)) {
			*why = xprintf("the start '%s' of dimension %d of '%s' is not provably a multiple of %lld, "
			               "the inner extent of its layout", expr_str(sym[d]), d, b->name, (long long)inner);
			return NULL;
		}
		*base = ex_add(*base, ex_mul(ex_div(sym[d], inner), ex_int(outer->stride)));
	}
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
	return true;
}
