/* The register family (reg): copies between a register buffer and shared
 * or global memory, partitioned by the register layout itself: its thread
 * iters name the threads, and each thread loops over its own elements,
 * outer accesses of vec elements. Lowered to a loop in which every thread
 * computes its memory-side start from its thread axes. */
#include "family.h"

/* Only the thread axes of the op's scope, without replicas. */
const char *pred_register_layout(const Try *t)
{
	const Buffer *r = t->dst->buffer->scope == SC_LOCAL ? t->dst->buffer : t->src->buffer;
	static const int allowed[ES_COUNT][AX_COUNT] = {
		[ES_WARP] = { [AX_LANEID] = 1 },
		[ES_WARPGROUP] = { [AX_TIDINWG] = 1, [AX_WIDINWG] = 1, [AX_LANEID] = 1 },
		[ES_CTA] = { [AX_TX] = 1, [AX_WARPID] = 1, [AX_LANEID] = 1, [AX_WGID] = 1, [AX_TIDINWG] = 1,
		             [AX_WIDINWG] = 1 },
	};
	const Layout *l = r->layout;
	if (!l)
		return t->call->es == ES_THREAD ? NULL :
		       xprintf("register buffer '%s' has no thread axes: a %s copy needs its layout to say which thread "
		               "holds which element", r->name, exec_scope_names[t->call->es]);
	if (l->nrep)
		return xprintf("register layout of '%s' has replicas (R[...]); the register copy does not replicate", r->name);
	for (int i = 0; i < l->nshard; i++) {
		int a = l->shard[i].axis;
		if (axes[a].kind == AXK_THREAD && l->shard[i].extent > 1 && !allowed[t->call->es][a])
			return xprintf("register layout of '%s' uses thread axis %s, which a %s copy does not have", r->name,
			               axes[a].name, exec_scope_names[t->call->es]);
	}
	return NULL;
}

static bool align(Plan *p, const Variant *va, const Value *dst, const Value *src, const char **why)
{
	(void)va;
	bool dst_global = scopes[dst->buffer->scope].flags & SCF_GLOBAL;
	return plan_align(p, dst, src, false, dst_global, why);
}

static const char *vectorize(Plan *p, const Variant *va, const Value *dst, int64_t threads)
{
	return plan_widest(p, va, plan_registers(p, dst), dtypes[dst->buffer->dtype].bits, threads,
	                   region_elements(dst));
}

static const char *partition(Plan *p, const Value *dst, int64_t threads)
{
	const Layout *reg = plan_registers(p, dst);
	int64_t per = 1, spread = 1;
	for (int i = 0; i < reg->nshard; i++) {
		if (axes[reg->shard[i].axis].kind == AXK_THREAD)
			spread *= reg->shard[i].extent;
		else
			per *= reg->shard[i].extent;
	}
	if (spread > threads)
		return xprintf("the register layout spreads over %lld threads, more than the %lld of the scope",
		               (long long)spread, (long long)threads);
	p->threads = threads;
	p->outer = per / p->vec;
	return NULL;
}

/* Complete, and outer x vec is exactly a thread's elements (the register
 * layout's iters that are not thread axes). */
static const char *check(const Plan *p, const Value *dst)
{
	const char *why = plan_covers(p, region_elements(dst), true);
	if (why)
		return why;
	const Layout *reg = plan_registers(p, dst);
	int64_t per = 1;
	for (int i = 0; i < reg->nshard; i++)
		if (axes[reg->shard[i].axis].kind != AXK_THREAD)
			per *= reg->shard[i].extent;
	if (p->outer * p->vec != per)
		return xprintf("the plan's outer %lld x vec %lld is not the %lld elements of a thread", (long long)p->outer,
		               (long long)p->vec, (long long)per);
	return NULL;
}

static const char *prove(const Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	return plan_prove_pair(p, va, dst, src, false, true, threads);
}

/* Each thread's own elements, from the register layout's thread iters. */
static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	bool rd = dst->buffer->scope == SC_LOCAL;
	const Layout *reg = rd ? p->dst : p->src, *mem = rd ? p->src : p->dst;
	Expr *mbase = rd ? p->src_base : p->dst_base;
	/* the thread iters give the memory side's start for this thread */
	Expr *mthread = ex_int(0);
	Layout *rper = layout_new(), *mper = layout_new();
	for (int k = 0; k < reg->nshard; k++) {
		const Iter *r = &reg->shard[k], *m = &mem->shard[k];
		if (axes[r->axis].kind == AXK_THREAD) {
			int64_t count;
			Expr *c = ex_div(lower_axis_value(L, r->axis, &count), r->stride);
			if ((count + r->stride - 1) / r->stride > r->extent)
				c = ex_mod(c, r->extent);
			mthread = ex_add(mthread, ex_mul(c, ex_int(m->stride)));
		} else {
			layout_push(rper, false, r->extent, r->stride, r->axis);
			layout_push(mper, false, m->extent, m->stride, m->axis);
		}
	}
	int64_t per = 1;
	for (int k = 0; k < rper->nshard; k++)
		per *= rper->shard[k].extent;
	if (p->outer * p->vec != per)
		return lower_fail(L, o, xprintf("the plan's outer %lld x vec %lld is not the %lld elements of a thread",
		                          (long long)p->outer, (long long)p->vec, (long long)per));
	int64_t shape[2] = { p->outer, p->vec };
	int rdim[3], mdim[3];
	const char *why;
	Layout *rg = layout_group(rper, shape, 2, rdim, &why);
	Layout *mg = rg ? layout_group(mper, shape, 2, mdim, &why) : NULL;
	if (!mg)
		return lower_fail(L, o, xprintf("outer %lld x vec %lld does not split a thread's elements: %s",
		                          (long long)p->outer, (long long)p->vec, why));
	rg->off[AX_M] = reg->off[AX_M];
	mg->off[AX_M] = mem->off[AX_M];
	mg->swizzled = mem->swizzled, mg->swz_m = mem->swz_m, mg->swz_b = mem->swz_b, mg->swz_s = mem->swz_s;
	const char *f = lower_fresh(L, "f");
	Expr *fx = p->outer > 1 ? ex_name(f) : ex_int(0);
	Expr *ra = lower_address(rg, NULL, lower_digits(rg, rdim[0], rdim[1], fx));
	Expr *ma = lower_address(mg, mbase, ex_add(mthread, lower_digits(mg, mdim[0], mdim[1], fx)));
	int64_t bytes = p->vec * dtype_bytes(dst->buffer->dtype);
	if (L->verify && !lower_verify(L, o, p, true, dst, src, rd ? ra : ma, rd ? ma : ra, f))
		return -1;
	if (rd)
		return lower_emit_loop(L, o, va, p->outer, f, dst->buffer, ra, src->buffer, ma, bytes);
	return lower_emit_loop(L, o, va, p->outer, f, dst->buffer, ma, src->buffer, ra, bytes);
}

const Family family_register = { align, vectorize, partition, check, prove, lower };
