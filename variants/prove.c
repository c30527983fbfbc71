/* txc-lower's proof of a plan of a pair of layouts, as written (perhaps by
 * hand), against the operands: from facts about iters and divisibility,
 * no enumeration. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* ---- proving a plan (txc-lower) -------------------------------------------------- */

/* A plan's two layouts as pairs of iters, order and splits forgotten: the
 * iters of extent 1 dropped, the rest sorted (outermost first, by the first
 * side's axis and stride, then the second's) and fused where both sides
 * continue. Two pairings of the same elements reach the same form however
 * their iters were ordered, split or fused; side may be NULL (one layout). */
typedef struct Pair { Iter a, b; } Pair;

static int iter_cmp(const Iter *x, const Iter *y)
{
	if (x->axis != y->axis)
		return x->axis < y->axis ? 1 : -1;
	if (x->stride != y->stride)
		return x->stride < y->stride ? 1 : -1;
	return x->extent < y->extent ? 1 : x->extent > y->extent ? -1 : 0;
}

static int pair_cmp(const void *x, const void *y)
{
	const Pair *p = x, *q = y;
	int c = iter_cmp(&p->a, &q->a);
	return c ? c : iter_cmp(&p->b, &q->b);
}

enum { FORM_SMALL = 32 }; /* pairs a form holds on the stack */

/* The form into small (FORM_SMALL pairs), or into a new array where a
 * has more iters. */
static int normal_form(const Layout *a, const Layout *b, Pair *small, Pair **out)
{
	Pair *v = a->nshard <= FORM_SMALL ? small : xalloc(sizeof(Pair) * (size_t)(a->nshard + 1));
	int n = 0;
	for (int k = 0; k < a->nshard; k++)
		if (a->shard[k].extent != 1)
			v[n++] = (Pair){ a->shard[k], b ? b->shard[k] : (Iter){ a->shard[k].extent, 0, AX_M } };
	/* insertion sort (a few pairs): pairs that compare equal are equal
	 * in every field, so any sort gives this order */
	for (int i = 1; i < n; i++) {
		Pair t = v[i];
		int k = i;
		for (; k > 0 && pair_cmp(&v[k - 1], &t) > 0; k--)
			v[k] = v[k - 1];
		v[k] = t;
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (m > 0 && iter_fuses(&v[m - 1].a, &v[i].a) && (!b || iter_fuses(&v[m - 1].b, &v[i].b))) {
			v[m - 1].a.extent *= v[i].a.extent;
			v[m - 1].a.stride = v[i].a.stride;
			v[m - 1].b.extent *= v[i].b.extent;
			v[m - 1].b.stride = v[i].b.stride;
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return m;
}

/* Whether the two pairings have the same iters, in the same order: then
 * their forms are one (normal_form reads nothing else). */
static bool same_iters(const Layout *a, const Layout *b, const Layout *ca, const Layout *cb)
{
	if (a->nshard != ca->nshard || !b != !cb || (b && (b->nshard != cb->nshard || b->nshard < a->nshard)))
		return false;
	for (int k = 0; k < a->nshard; k++)
		if (iter_cmp(&a->shard[k], &ca->shard[k]) != 0 || (b && iter_cmp(&b->shard[k], &cb->shard[k]) != 0))
			return false;
	return true;
}

static bool same_form(const Layout *a, const Layout *b, const Layout *ca, const Layout *cb)
{
	if (same_iters(a, b, ca, cb))
		return true;
	Pair xs[FORM_SMALL], ys[FORM_SMALL], *x, *y;
	int n = normal_form(a, b, xs, &x), m = normal_form(ca, cb, ys, &y);
	if (n != m)
		return false;
	for (int i = 0; i < n; i++)
		if (pair_cmp(&x[i], &y[i]) != 0)
			return false;
	return true;
}

/* A storage start base + off as the constant ex_add folds it to. */
static bool const_start(const Expr *base, int64_t off, int64_t *v)
{
	if (!base) {
		*v = off;
		return true;
	}
	return base->kind == E_INT && add_ok(base->ival, off, v);
}

/* One side of a plan against the truth: its offsets on every axis (the
 * storage one with the symbolic base), its replicas and its swizzle. */
static const char *side_why(const char *side, const Layout *l, Expr *base, const Layout *t, Expr *tbase)
{
	if (memcmp(l->off, t->off, sizeof l->off) != 0) /* most sides agree on every axis */
		for (int a = 0; a < AX_COUNT; a++)
			if (a != AX_M && l->off[a] != t->off[a])
				return xprintf("its %s layout's offset on %s is %lld, not %lld", side, axes[a].name,
				               (long long)l->off[a], (long long)t->off[a]);
	int64_t diff, s, ts;
	/* both starts constant and equal (what expr_const_diff would find of
	 * the two, unless negating one overflows), else as expressions */
	if (!const_start(base, l->off[AX_M], &s) || !const_start(tbase, t->off[AX_M], &ts) || s != ts ||
	    s == INT64_MIN) {
		Expr *start = ex_add(base ? base : ex_int(0), ex_int(l->off[AX_M]));
		Expr *tstart = ex_add(tbase ? tbase : ex_int(0), ex_int(t->off[AX_M]));
		if (!expr_const_diff(start, tstart, &diff) || diff != 0)
			return xprintf("its %s region starts at storage offset %s, not %s", side, expr_str(start),
			               expr_str(tstart));
	}
	if (l->swizzled != t->swizzled ||
	    (l->swizzled && (l->swz_m != t->swz_m || l->swz_b != t->swz_b || l->swz_s != t->swz_s)))
		return xprintf("its %s layout is %s, but the buffer's is %s", side,
		               l->swizzled ? xprintf("swizzled (%d, %d, %d)", l->swz_m, l->swz_b, l->swz_s) : "not swizzled",
		               t->swizzled ? xprintf("swizzled (%d, %d, %d)", t->swz_m, t->swz_b, t->swz_s) : "not");
	bool reps = l->nrep == t->nrep;
	for (int i = 0; reps && i < l->nrep; i++)
		reps = iter_cmp(&l->rep[i], &t->rep[i]) == 0;
	if (!reps)
		return xprintf("its %s layout's replicas are not the buffer's", side);
	return NULL;
}

/* The access widths of a variant include this many bits (one element when
 * its narrowest width is 8 bits, as txc-vectorize allows). */
static bool width_ok(const Variant *va, int64_t bits, int64_t elem_bits, int64_t vec)
{
	return variant_width(va, bits) || (vec == 1 && (va->widths & W_8) && elem_bits <= 64);
}

/* A region as the user would write it: A[r * 128:r * 128 + 128, 0:64]. */
static const char *region_str(const Value *r)
{
	Buf b = {0};
	bprintf(&b, "%s[", r->buffer->name);
	for (int d = 0; d < r->ndim; d++) {
		const char *lo = expr_str(r->starts[d]);
		int64_t v;
		bool num = r->starts[d]->kind == E_INT || (r->starts[d]->val && r->starts[d]->val->kind == V_INT);
		v = !num ? 0 : r->starts[d]->kind == E_INT ? r->starts[d]->ival : r->starts[d]->val->i;
		bprintf(&b, "%s%s:%s", d ? ", " : "", lo,
		        num ? xprintf("%lld", (long long)(v + r->extents[d])) : xprintf("%s + %lld", lo, (long long)r->extents[d]));
	}
	bputc(&b, ']');
	return b.s;
}

/* Whether a plan's two layouts pair every iter. */
static bool aligned(const Plan *p)
{
	return p->dst->nshard == p->src->nshard && plan_paired(p) == p->dst->nshard;
}

/* Iters lo .. hi - 1 of l, alone. */
static Layout *iters(const Layout *l, int lo, int hi)
{
	Layout *c = layout_new();
	for (int k = lo; k < hi; k++)
		layout_push(c, false, l->shard[k].extent, l->shard[k].stride, l->shard[k].axis);
	return c;
}

/* The same iters in the same order once each is fused and stripped of
 * extent-1 iters: the same function of the place in row-major order. */
static bool same_order(const Layout *a, const Layout *b)
{
	Layout *x = layout_canonical(a), *y = layout_canonical(b);
	if (x->nshard != y->nshard)
		return false;
	for (int k = 0; k < x->nshard; k++)
		if (iter_cmp(&x->shard[k], &y->shard[k]) != 0)
			return false;
	return true;
}

static const char *reach_why(const char *side, const Layout *l, const Value *r, const Layout *t)
{
	return xprintf("its %s layout %s is not the layout of %s, %s (a plan may order, split and fuse iters, "
	               "not change what they reach)", side, layout_str(l), region_str(r), layout_str(t));
}

/* Plan p against the truth t, both aligned: each side reaches what its
 * region does, and the two pair the same elements. */
static const char *prove_aligned(const Plan *p, const Plan *t, const Value *dst, const Value *src)
{
	const char *why;
	for (int k = 0; k < p->dst->nshard; k++)
		if (p->dst->shard[k].extent != p->src->shard[k].extent)
			return xprintf("iter %d has extent %lld in its dst layout but %lld in its src layout", k,
			               (long long)p->dst->shard[k].extent, (long long)p->src->shard[k].extent);
	if ((why = side_why("dst", p->dst, p->dst_base, t->dst, t->dst_base)) ||
	    (why = side_why("src", p->src, p->src_base, t->src, t->src_base)))
		return why;
	/* both sides' iters the truth's, in its order (each side has as many
	 * iters as the other here): then each side's form and the pairing's
	 * are the truth's (same_iters compares every iter of both) */
	if (same_iters(p->dst, p->src, t->dst, t->src))
		return NULL;
	if (!same_form(p->dst, NULL, t->dst, NULL))
		return reach_why("dst", p->dst, dst, t->dst);
	if (!same_form(p->src, NULL, t->src, NULL))
		return reach_why("src", p->src, src, t->src);
	if (!same_form(p->dst, p->src, t->dst, t->src))
		return xprintf("its layouts do not pair the elements of %s with those of %s", region_str(dst),
		               region_str(src));
	return NULL;
}

/* A register plan whose layouts pair only their inner iters
 * (plan_align_inner), or a truth that does: the paired iters as in an
 * aligned plan (order, splits and fusions free), the others of each side
 * the truth's in the same order, since they are read from the element's
 * place in row-major order. */
static const char *prove_inner(const Plan *p, const Plan *t, const Value *dst, const Value *src)
{
	const char *why;
	if ((why = side_why("dst", p->dst, p->dst_base, t->dst, t->dst_base)) ||
	    (why = side_why("src", p->src, p->src_base, t->src, t->src_base)))
		return why;
	int pk = plan_paired(p), tk = plan_paired(t);
	const Layout *pd = p->dst, *ps = p->src, *td = t->dst, *ts = t->src;
	if (!same_order(iters(pd, 0, pd->nshard - pk), iters(td, 0, td->nshard - tk)))
		return reach_why("dst", pd, dst, td);
	if (!same_order(iters(ps, 0, ps->nshard - pk), iters(ts, 0, ts->nshard - tk)))
		return reach_why("src", ps, src, ts);
	Layout *pdi = iters(pd, pd->nshard - pk, pd->nshard), *psi = iters(ps, ps->nshard - pk, ps->nshard);
	Layout *tdi = iters(td, td->nshard - tk, td->nshard), *tsi = iters(ts, ts->nshard - tk, ts->nshard);
	if (!same_form(pdi, NULL, tdi, NULL))
		return reach_why("dst", pd, dst, td);
	if (!same_form(psi, NULL, tsi, NULL))
		return reach_why("src", ps, src, ts);
	if (!same_form(pdi, psi, tdi, tsi))
		return xprintf("its layouts do not pair the elements of %s with those of %s", region_str(dst),
		               region_str(src));
	return NULL;
}

/* The truth t that plan_align would make now, where p holds the very
 * layouts and bases plan_align made of the same operands with the same
 * arguments (a plan the chain's txc-align made in this process and kept
 * by its call, read back as it was kept): plan_align's answer depends on
 * the operands' regions (a Value is never changed once made), their
 * buffers' layouts (fixed once made) and the arguments alone, and no
 * pass writes into a plan's layouts (vectorize and partition set vec,
 * threads and outer; a family that changes a side makes a new layout,
 * as plan_align_inner does), so the layouts it made are what it would
 * make again. A plan written as text and read back, or edited, holds
 * other layouts: it is aligned anew. This saves a long kernel's
 * txc-lower the second alignment of every copy (8 allocations, 700
 * bytes, and 1450 instructions each). */
static bool aligned_before(const Plan *p, Plan *t, const Value *dst, const Value *src, bool sort, bool dst_global)
{
	const struct Aligned *a = &p->aligned;
	if (!a->d || a->dst != dst || a->src != src || a->sort != sort || a->dst_global != dst_global ||
	    p->dst != a->d || p->src != a->s || p->dst_base != a->db || p->src_base != a->sb)
		return false;
	t->dst = (Layout *)a->d;
	t->src = (Layout *)a->s;
	t->dst_base = a->db;
	t->src_base = a->sb;
	return true;
}

const char *plan_prove_pair(const Plan *p, const Variant *va, const Value *dst, const Value *src, bool sort,
                            bool registers, int64_t threads)
{
	Plan t = { .variant = p->variant };
	const char *why = NULL;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	if (!aligned_before(p, &t, dst, src, sort, dst_global) && !plan_align(&t, dst, src, sort, dst_global, &why)) {
		const char *first = why;
		if (!registers || !plan_align_inner(&t, dst, src, &why))
			return xprintf("its operands cannot be aligned to check it against: %s", first);
	}
	if (registers && (!aligned(p) || !aligned(&t)))
		why = prove_inner(p, &t, dst, src);
	else if (p->dst->nshard != p->src->nshard)
		return xprintf("its dst layout has %d iters and its src layout %d; they must run over one iteration space",
		               p->dst->nshard, p->src->nshard);
	else
		why = prove_aligned(p, &t, dst, src);
	if (why || !va->widths) /* a variant of whole boxes (tma) has no vector to prove */
		return why;
	int bits = dtypes[dst->buffer->dtype].bits;
	int64_t access;
	if (!mul_ok(p->vec, bits, &access) || !width_ok(va, access, bits, p->vec))
		return xprintf("its vec %lld (%lld bits) is not an access width of %s (%s bits)", (long long)p->vec,
		               (long long)(p->vec * (int64_t)bits), va->name, variant_widths(va));
	const Layout *reg = registers ? plan_registers(p, dst) : NULL;
	if ((why = plan_vec_why(p, reg, p->vec, threads, region_elements(dst),
	                        va->access == IN_CP_ASYNC ? 0 : plan_grain(dst, src))))
		return xprintf("its vec %lld is not legal: %s", (long long)p->vec, why);
	return NULL;
}


const Layout *plan_registers(const Plan *p, const Value *dst)
{
	return dst->buffer->scope == SC_LOCAL ? p->dst : p->src;
}
