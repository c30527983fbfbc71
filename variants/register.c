/* The register family (reg): copies between a register buffer and shared
 * or global memory, partitioned by the register layout itself: its thread
 * iters name the threads, and each thread loops over its own elements,
 * outer accesses of vec elements (one element, when a thread holds one).
 * Lowered to a loop in which every thread computes its memory-side start
 * from its thread axes, under a condition when only some threads hold the
 * region. Layouts that do not refine are paired from the innermost as far
 * as they do (plan_align_inner); the rest of an address comes from the
 * element's place in row-major order. */
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
	const char *first;
	if (plan_align(p, dst, src, false, dst_global, why))
		return true;
	/* layouts that do not refine: paired as far as they do */
	first = *why;
	if (plan_align_inner(p, dst, src, why))
		return true;
	*why = first;
	return false;
}

static const char *vectorize(Plan *p, const Variant *va, const Value *dst, const Value *src, int64_t threads)
{
	return plan_widest(p, va, plan_registers(p, dst), dtypes[dst->buffer->dtype].bits, threads,
	                   region_elements(dst), plan_grain(dst, src));
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

/* Which threads hold the region, axis by axis. On a thread axis that the
 * register side uses (an iter or an offset), the region's values are off
 * + the sum of digit x stride over the axis's iters. When they are every
 * value the axis takes, each once (a whole view), every thread takes part
 * and its digit of an iter is (value // stride) % extent, as it always
 * was; else (some rows of a view, a layout that leaves lanes out) the
 * digits come from the value less off, and the condition that the value
 * is one of the region's joins *guard: the other threads make no access
 * (they would copy elements that are not theirs, or race). */
typedef struct ThreadAxis {
	Expr *w;        /* the thread's value less the offset (modulo a period) */
	int64_t count;  /* the values the axis takes in the kernel */
	int64_t max;    /* the largest value w takes */
	Iter it[LAYOUT_MAX_ITERS * 4]; /* its iters, by stride, smallest first */
	int n;
	bool chain;     /* each iter's stride is the span of those before */
} ThreadAxis;

/* The thread's digit of thread iter r: w // stride, less what the iters
 * above it hold (modulo the next stride; for a chain, modulo its extent). */
static Expr *thread_digit(const ThreadAxis *t, const Iter *r)
{
	int k = 0;
	while (k < t->n - 1 && t->it[k].stride != r->stride)
		k++;
	Expr *c;
	if (t->chain || k == t->n - 1) {
		c = ex_div(t->w, r->stride);
		if (t->max / r->stride >= r->extent)
			c = ex_mod(c, r->extent);
		return c;
	}
	int64_t next = t->it[k + 1].stride;
	c = ex_div(ex_mod(t->w, next), r->stride);
	if (next / r->stride > r->extent) /* a gap: keep a thread that takes no part inside */
		c = ex_mod(c, r->extent);
	return c;
}

static Expr *all_of(Expr *a, Expr *b)
{
	if (!a)
		return b;
	Expr *e = new_expr(E_AND, (Pos){0});
	e->a = a, e->b = b;
	return e;
}

static Expr *cmp(int op, Expr *a, Expr *b)
{
	Expr *e = new_expr(E_CMP, (Pos){0});
	e->op = op, e->a = a, e->b = b;
	return e;
}

static void thread_axes(Lower *L, const Layout *reg, const Layout *whole, ThreadAxis *ta, Expr **guard)
{
	*guard = NULL;
	for (int a = 0; a < AX_COUNT; a++) {
		if (axes[a].kind != AXK_THREAD)
			continue;
		Iter *it = ta[a].it;
		int n = 0;
		for (int k = 0; k < reg->nshard; k++)
			if (reg->shard[k].axis == a && reg->shard[k].extent > 1 && n < LAYOUT_MAX_ITERS * 4)
				it[n++] = reg->shard[k];
		ta[a].n = n;
		int64_t off = reg->off[a];
		/* an axis of the buffer's layout that the region narrows to one
		 * value has no iter left: that value's threads alone take part */
		bool used = whole->off[a] != 0;
		for (int k = 0; k < whole->nshard; k++)
			used = used || (whole->shard[k].axis == a && whole->shard[k].extent > 1);
		if (!n && !off && !used)
			continue;
		for (int i = 1; i < n; i++) /* by stride, smallest first */
			for (int k = i; k > 0 && it[k - 1].stride > it[k].stride; k--) {
				Iter t = it[k];
				it[k] = it[k - 1], it[k - 1] = t;
			}
		/* the values: off + multiples of the first stride up to span,
		 * when each iter continues the one before (a chain) */
		bool chain = true;
		int64_t span = n ? it[0].stride : 1, reach = 1;
		for (int i = 0; i < n; i++) {
			chain = chain && it[i].stride == span;
			span = it[i].stride * it[i].extent;
			reach += (it[i].extent - 1) * it[i].stride;
		}
		ta[a].chain = chain;
		Expr *v = lower_axis_value(L, a, &ta[a].count);
		int64_t count = ta[a].count;
		ta[a].w = v, ta[a].max = count - 1;
		if (off == 0 && chain && (!n || it[0].stride == 1) && span >= count)
			continue;
		/* the value less the offset, never negative, so that the threads
		 * that do not take part compute addresses inside the buffer too
		 * (txc-cuda proves them): plus a multiple of the span for a
		 * chain, whose digits are taken modulo their extents; else
		 * modulo the values of the axis */
		if (off && chain) {
			int64_t lift = (off + span - 1) / span * span - off;
			ta[a].w = ex_add(v, ex_int(lift));
			ta[a].max = count - 1 + lift;
		} else if (off) {
			ta[a].w = ex_mod(ex_add(v, ex_int(count - off % count)), count);
		}
		if (!n) { /* one value */
			*guard = all_of(*guard, cmp(OP_EQ, v, ex_int(off)));
			continue;
		}
		if (off > 0)
			*guard = all_of(*guard, cmp(OP_GE, v, ex_int(off)));
		int64_t hi = off + (chain ? span : reach);
		if (hi < ta[a].count)
			*guard = all_of(*guard, cmp(OP_LT, v, ex_int(hi)));
		if (chain && n && it[0].stride > 1) {
			*guard = all_of(*guard, cmp(OP_EQ, ex_mod(ta[a].w, it[0].stride), ex_int(0)));
		} else if (!chain) {
			Expr *back = ex_int(0);
			for (int i = 0; i < n; i++)
				back = ex_add(back, ex_mul(thread_digit(&ta[a], &it[i]), ex_int(it[i].stride)));
			*guard = all_of(*guard, cmp(OP_EQ, back, ta[a].w));
		}
	}
}

/* A copy out of registers whose layout leaves digits of the thread free
 * (no thread axis of the scope names them: a warp's copy of S[4]): every
 * such thread holds the elements, and the copy takes them from the first
 * (the emulator's "read from the first"); the others store nothing,
 * which would race. The condition that those digits of the thread are 0,
 * or NULL when the layout names every thread of the scope. */
static Expr *first_holders(Lower *L, const OpSite *o, const Layout *reg, const Layout *whole)
{
	int es = o->call->es;
	if (es != ES_WARP && es != ES_WARPGROUP && es != ES_CTA)
		return NULL;
	int64_t group = level_threads(es, L->func->threads);
	/* the digits [div, div * mod) of the thread index that each axis used names */
	int64_t lo[AX_COUNT], hi[AX_COUNT];
	int n = 0;
	for (int a = 0; a < AX_COUNT; a++) {
		if (!axis_of_thread(a))
			continue;
		bool used = reg->off[a] != 0 || whole->off[a] != 0;
		for (int k = 0; k < reg->nshard; k++)
			used = used || (reg->shard[k].axis == a && reg->shard[k].extent > 1);
		for (int k = 0; k < whole->nshard; k++)
			used = used || (whole->shard[k].axis == a && whole->shard[k].extent > 1);
		if (!used)
			continue;
		int64_t mod = axis_mod(a);
		lo[n] = axis_div(a);
		hi[n++] = mod ? mod : group;
	}
	/* the free digits: the runs of [1, group) no axis covers */
	Expr *g = NULL, *t = ex_name(L->tid);
	for (int64_t at = 1; at < group;) {
		int64_t next = group; /* where the next covered run starts, or the group ends */
		bool covered = false;
		for (int i = 0; i < n; i++) {
			if (lo[i] <= at && at < hi[i]) {
				covered = true;
				at = hi[i];
				break;
			}
			if (lo[i] > at && lo[i] < next)
				next = lo[i];
		}
		if (covered)
			continue;
		/* (t // at) % (next // at) == 0; digits run in the hierarchy's radix */
		Expr *d = at > 1 ? ex_div(t, at) : t;
		if (next % at == 0 && next / at > 1)
			g = all_of(g, cmp(OP_EQ, ex_mod(d, next / at), ex_int(0)));
		at = next;
	}
	return g;
}

/* Each thread's own elements, from the register layout's thread iters.
 * The iters the two sides pair give the memory side's address iter by
 * iter; those they do not (plan_align_inner) through the element's place
 * in the row-major order of the unpaired part: its digits on the register
 * side give the place, its digits on the memory side the address. */
static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	bool rd = dst->buffer->scope == SC_LOCAL;
	const Layout *reg = rd ? p->dst : p->src, *mem = rd ? p->src : p->dst;
	Expr *mbase = rd ? p->src_base : p->dst_base, *rbase = rd ? p->dst_base : p->src_base;
	int paired = plan_paired(p), rfree = reg->nshard - paired, mfree = mem->nshard - paired;
	ThreadAxis ta[AX_COUNT];
	Expr *guard;
	thread_axes(L, reg, buffer_layout(rd ? dst->buffer : src->buffer), ta, &guard);
	if (!rd) {
		Expr *first = first_holders(L, o, reg, buffer_layout(src->buffer));
		if (first)
			guard = all_of(guard, first);
	}
	/* the thread iters give the memory side's start for this thread */
	Expr *mthread = ex_int(0);
	Layout *rper = layout_new(), *mper = layout_new();
	/* the place in the unpaired part: a sum of digits times what is inside
	 * them; a thread's own digits come from its loop (outer x vec) */
	Expr *place = ex_int(0);
	int own[LAYOUT_MAX_ITERS * 4];
	int64_t own_inner[LAYOUT_MAX_ITERS * 4];
	int nown = 0;
	int64_t inner = 1;
	for (int k = rfree - 1; k >= 0; k--)
		inner *= reg->shard[k].extent;
	for (int k = 0; k < reg->nshard; k++) {
		const Iter *r = &reg->shard[k], *m = k < rfree ? NULL : &mem->shard[k - rfree + mfree];
		if (k < rfree)
			inner /= r->extent;
		if (axes[r->axis].kind == AXK_THREAD) {
			Expr *c = r->extent > 1 ? thread_digit(&ta[r->axis], r) : ex_int(0);
			if (m)
				mthread = ex_add(mthread, ex_mul(c, ex_int(m->stride)));
			else
				place = ex_add(place, ex_mul(c, ex_int(inner)));
		} else {
			if (!m && nown < LAYOUT_MAX_ITERS * 4) {
				own[nown] = rper->nshard;
				own_inner[nown++] = inner;
			}
			layout_push(rper, false, r->extent, r->stride, r->axis);
			layout_push(mper, false, r->extent, m ? m->stride : 0, m ? m->axis : AX_M);
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
	/* a run-time start of the register region moves its storage offset */
	Expr *ra = lower_address(rg, rbase, lower_digits(rg, rdim[0], rdim[1], fx));
	for (int j = 0; j < nown; j++) {
		/* the digit of a thread's own unpaired iter at its element f * vec */
		int64_t in = 1;
		for (int k = own[j] + 1; k < rper->nshard; k++)
			in *= rper->shard[k].extent;
		if (in % p->vec)
			return lower_fail(L, o, xprintf("vec %lld splits a register iter the two sides do not pair",
			                          (long long)p->vec));
		Expr *c = ex_div(fx, in / p->vec);
		if (own[j] > 0)
			c = ex_mod(c, rper->shard[own[j]].extent);
		place = ex_add(place, ex_mul(c, ex_int(own_inner[j])));
	}
	Expr *mfree_sum = lower_digits(mem, 0, mfree, place);
	Expr *ma = lower_address(mg, mbase, ex_add(ex_add(mthread, lower_digits(mg, mdim[0], mdim[1], fx)), mfree_sum));
	int64_t bytes = p->vec * dtype_bytes(dst->buffer->dtype);
	if (L->verify && !lower_verify_when(L, o, p, true, dst, src, rd ? ra : ma, rd ? ma : ra, f, guard))
		return -1;
	if ((rd ? lower_emit_loop(L, o, va, p->outer, f, dst->buffer, ra, src->buffer, ma, bytes) :
	          lower_emit_loop(L, o, va, p->outer, f, dst->buffer, ma, src->buffer, ra, bytes)) < 0)
		return -1;
	if (guard) { /* only the threads that hold the region */
		Stmt *g = new_stmt(S_IF, o->stmt->pos);
		g->value = guard;
		for (int i = 0; i < o->nrepl; i++)
			vpush(g->body, g->nbody, o->repl[i]);
		op_replace(o, &g, 1);
	}
	return 0;
}

const Family family_register = { align, vectorize, partition, check, prove, lower };
