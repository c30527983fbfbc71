/* The partition family (gmem_smem, ldgsts): global <-> shared copies whose
 * iteration space falls to the threads of the scope as [outer, threads,
 * vec] (tirx.md, the partition algorithm): the iters ordered by the global
 * side's strides, vec elements carved from the innermost iters, then the
 * scope's threads, and the rest a serial loop of outer accesses per thread.
 * Lowered to a loop in which every thread computes both addresses from its
 * index in the scope and makes one access of the variant (copy_bytes or
 * cp.async) of vec elements. */
#include <string.h>

#include "family.h"

static bool align(Plan *p, const Variant *va, const Value *dst, const Value *src, const char **why)
{
	(void)va;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	return plan_align(p, dst, src, true, dst_global, why);
}

static const char *vectorize(Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	int64_t elements = region_elements(dst);
	if (elements % threads)
		return xprintf("the region has %lld elements, not a multiple of the %lld threads of the scope",
		               (long long)elements, (long long)threads);
	return plan_widest(p, va, NULL, dtypes[dst->buffer->dtype].bits, threads, elements,
	                   va->access == IN_CP_ASYNC ? 0 : plan_grain(dst, src));
}

/* Whether the iteration space (mixed radix, outermost first) has a
 * boundary `at` elements from its inner end: the iters inside it multiply
 * to a divisor q of `at`, and the next iter splits evenly by at / q. */
static const char *boundary(const Layout *l, int64_t at, int64_t threads)
{
	int64_t q = 1;
	for (int i = l->nshard - 1; i >= 0 && q < at; i--) {
		int64_t e = l->shard[i].extent;
		int64_t qe;
		if (!mul_ok(q, e, &qe) || qe > at) {
			if (at % q)
				return xprintf("%lld threads cannot be carved evenly: threads x vec = %lld elements is not a "
				               "multiple of the %lld elements of the inner iters", (long long)threads, (long long)at, (long long)q);
			if (e % (at / q))
				return xprintf("%lld threads cannot be carved evenly: an iter of extent %lld does not split by %lld",
				               (long long)threads, (long long)e, (long long)(at / q));
			return NULL;
		}
		q *= e;
	}
	return q >= at ? NULL : "not enough elements for the threads";
}

static const char *partition(Plan *p, const Value *dst, int64_t threads)
{
	int64_t elements = region_elements(dst), tv;
	if (!mul_ok(threads, p->vec, &tv) || tv > elements || elements % tv)
		return xprintf("%lld elements do not divide into %lld threads x %lld", (long long)elements,
		               (long long)threads, (long long)p->vec);
	const char *why = boundary(p->src, tv, threads);
	if (why)
		return why;
	p->threads = threads;
	p->outer = elements / (threads * p->vec);
	return NULL;
}

static const char *check(const Plan *p, const Value *dst) { return plan_covers(p, region_elements(dst), false); }

static const char *prove(const Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	return plan_prove_pair(p, va, dst, src, true, false, threads);
}

/* The iters of layout_group(l, shape, 3, dims), as an op before had them:
 * a kernel's ops mostly have plans of the same few layouts (offsets
 * aside), and the lowering reads only the grouping's iters (the digits):
 * its offsets and swizzle are l's, read from l. layout_group makes the
 * iters from l's iters and the shape alone: where both are as they were
 * (a copy of the iters is kept), a hit is what it would make again. A
 * failure is not kept. */
enum { GROUP_ITERS = 8, GROUPS = 4 };
static struct Grouped {
	Iter it[GROUP_ITERS];
	int n;
	int64_t shape[3];
	Layout *g;
	int dims[4];
} grouped[GROUPS];
static unsigned ngrouped;

static bool same_iters(const Iter *a, const Iter *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].extent != b[i].extent || a[i].stride != b[i].stride || a[i].axis != b[i].axis)
			return false;
	return true;
}

static const Layout *group3(const Layout *l, const int64_t *shape, int *dims, const char **why)
{
	for (int i = 0; i < GROUPS; i++) {
		struct Grouped *m = &grouped[i];
		if (m->g && m->n == l->nshard && same_iters(m->it, l->shard, l->nshard) &&
		    memcmp(m->shape, shape, sizeof m->shape) == 0) {
			memcpy(dims, m->dims, sizeof m->dims);
			return m->g;
		}
	}
	Layout *g = layout_group(l, shape, 3, dims, why);
	if (!g || l->nshard > GROUP_ITERS)
		return g;
	struct Grouped *m = &grouped[ngrouped++ % GROUPS];
	memcpy(m->it, l->shard, sizeof(Iter) * (size_t)l->nshard);
	m->n = l->nshard;
	memcpy(m->shape, shape, sizeof m->shape);
	memcpy(m->dims, dims, sizeof m->dims);
	m->g = g;
	return g;
}

/* [outer, threads, vec] over the plan's iteration space. */
static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	int64_t shape[3] = { p->outer, p->threads, p->vec };
	int dd[4], sd[4];
	const char *why;
	/* the groupings' iters; the offsets and swizzles are the plan's */
	const Layout *d = group3(p->dst, shape, dd, &why);
	const Layout *s = d ? group3(p->src, shape, sd, &why) : NULL;
	if (!s)
		return lower_fail(L, o, xprintf("the plan's outer %lld x threads %lld x vec %lld does not split its layouts: %s",
		                          (long long)p->outer, (long long)p->threads, (long long)p->vec, why));
	if (p->threads != scope_threads(L->func, o->call->es))
		return lower_fail(L, o, xprintf("the plan has %lld threads but the scope has %lld", (long long)p->threads,
		                          (long long)scope_threads(L->func, o->call->es)));
	const char *f = lower_fresh(L, "f");
	Expr *t = lower_scope_index(L, o->call->es), *fx = p->outer > 1 ? ex_name(f) : ex_int(0);
	/* lower_address(d, base, digits of f + digits of t), a digit at a time */
	Expr *da = ex_swizzle(p->dst, lower_digits_onto(lower_digits_onto(lower_start(p->dst, p->dst_base), d, dd[0], dd[1],
	                                                                  fx), d, dd[1], dd[2], t));
	Expr *sa = ex_swizzle(p->src, lower_digits_onto(lower_digits_onto(lower_start(p->src, p->src_base), s, sd[0], sd[1],
	                                                                  fx), s, sd[1], sd[2], t));
	int64_t bytes = p->vec * dtype_bytes(dst->buffer->dtype);
	if (L->verify && !lower_verify(L, o, p, false, dst, src, da, sa, f))
		return -1;
	return lower_emit_loop(L, o, va, p->outer, f, dst->buffer, da, src->buffer, sa, bytes);
}

const Family family_partition = { align, vectorize, partition, check, prove, lower };
