/* The dsmem family: one thread copies a region of its CTA's shared memory
 * into the shared memory of another CTA of the cluster (distributed shared
 * memory), remote_cta_id= its rank, with cp.async.bulk.shared::cluster
 * .shared::cta.mbarrier::complete_tx::bytes: the bytes complete on the
 * mbarrier of mbar=, at the same place in the remote CTA, which arms it
 * (arrive.expect_tx) and waits there. The destination and the mbarrier are
 * named by their places in the issuing CTA; the lowered builtin maps them
 * into the remote CTA's window (mapa.shared::cluster).
 *
 * The two regions are aligned as one iteration space (plan_align); the
 * innermost iter, where it is contiguous (stride 1) on both sides, is one
 * bulk copy (a chunk), the other iters a loop of chunks. A chunk must be a
 * positive multiple of 16 bytes, every chunk's start 16-byte aligned on
 * both sides; a swizzled layout must be the other's too, and the chunks
 * whole periods of the swizzle at the same places of both (the bytes of
 * a period are the same elements in both). Completion is the caller's. */
#include "family.h"

typedef struct Dsm {
	Layout *d, *s;      /* plan_align's layouts; iters [0, n - 1) the chunks', n - 1 the chunk */
	Expr *db, *sb;      /* run-time storage starts (NULL or 0: none) */
	int64_t chunk;      /* elements of a chunk */
	int64_t count;      /* chunks */
} Dsm;

/* Whether every value of base is a multiple of m elements. */
static bool base_multiple(const Expr *base, int64_t m)
{
	return !base || expr_divisible(base, m);
}

static const char *plan(Dsm *x, const Value *dst, const Value *src)
{
	Plan p = { 0 };
	const char *why = NULL;
	if (!plan_align(&p, dst, src, false, false, &why))
		return why;
	x->d = p.dst, x->s = p.src, x->db = p.dst_base, x->sb = p.src_base;
	const Layout *d = x->d, *s = x->s;
	/* a swizzle permutes elements within each period of storage: the same
	 * swizzle on both sides, and chunks of whole periods at the same
	 * places of them, move every element where the layouts say */
	bool same_swz = d->swizzled == s->swizzled && (!d->swizzled || (d->swz_m == s->swz_m && d->swz_b == s->swz_b &&
	                                                                 d->swz_s == s->swz_s));
	if (!same_swz)
		return xprintf("not supported yet: '%s' is swizzled and '%s' %s: a bulk copy moves bytes in storage order",
		               d->swizzled ? dst->buffer->name : src->buffer->name,
		               d->swizzled ? src->buffer->name : dst->buffer->name,
		               d->swizzled && s->swizzled ? "otherwise" : "not");
	int64_t es = dtype_bytes(dst->buffer->dtype);
	if (dtype_bytes(src->buffer->dtype) != es || src->buffer->dtype != dst->buffer->dtype)
		return xprintf("the copy is %s -> %s: a bulk copy moves bytes of one dtype",
		               dtypes[src->buffer->dtype].name, dtypes[dst->buffer->dtype].name);
	int n = d->nshard;
	const Iter *di = n ? &d->shard[n - 1] : NULL, *si = n ? &s->shard[n - 1] : NULL;
	x->chunk = di && di->axis == AX_M && si->axis == AX_M && di->stride == 1 && si->stride == 1 ? di->extent : 1;
	x->count = 1;
	for (int i = 0; i < n - (x->chunk > 1); i++)
		x->count *= d->shard[i].extent;
	int64_t bytes = x->chunk * es;
	if (bytes % 16)
		return xprintf("the regions' longest run contiguous on both sides is %lld element%s (%lld bytes): "
		               "cp.async.bulk moves a positive multiple of 16 bytes", (long long)x->chunk,
		               x->chunk == 1 ? "" : "s", (long long)bytes);
	/* every chunk's start: 16 bytes, on both sides */
	int64_t m = 16 / es;
	for (int i = 0; i < n - 1; i++)
		if ((d->shard[i].stride % m) || (s->shard[i].stride % m))
			return xprintf("a chunk of %lld bytes starts every %lld elements of '%s' and every %lld of '%s': not all "
			               "16-byte aligned", (long long)bytes, (long long)d->shard[i].stride, dst->buffer->name,
			               (long long)s->shard[i].stride, src->buffer->name);
	if (d->off[AX_M] % m || s->off[AX_M] % m || !base_multiple(x->db, m) || !base_multiple(x->sb, m))
		return xprintf("the regions do not provably start at 16-byte aligned places of '%s' and '%s'",
		               dst->buffer->name, src->buffer->name);
	if (d->swizzled) {
		int64_t period = (int64_t)1 << (d->swz_m + d->swz_b + d->swz_s);
		bool whole = x->chunk % period == 0 && d->off[AX_M] % period == 0 && s->off[AX_M] % period == 0 &&
		             base_multiple(x->db, period) && base_multiple(x->sb, period);
		for (int i = 0; i < n - 1 && whole; i++)
			whole = d->shard[i].stride % period == 0 && s->shard[i].stride % period == 0;
		if (!whole)
			return xprintf("the swizzle of '%s' and '%s' permutes each %lld elements of storage: a bulk copy of a "
			               "swizzled tile moves whole such periods at the same places of both, and chunks of %lld "
			               "elements do not", dst->buffer->name, src->buffer->name, (long long)period,
			               (long long)x->chunk);
	}
	return NULL;
}

const char *pred_dsmem(const Try *t)
{
	Kw *rk = call_kw(t->call, "remote_cta_id");
	if (!rk)
		return "a copy into another CTA's shared memory: name its rank in the cluster with remote_cta_id=";
	const Func *f = t->site->func;
	int64_t r, n = f->cluster[0] * f->cluster[1] * f->cluster[2];
	int64_t lo, hi;
	if ((expr_int(rk->value, &r) && (r < 0 || r >= n)) ||
	    (expr_range(rk->value, &lo, &hi) && (hi < 0 || lo >= n)))
		return xprintf("remote_cta_id=%s is no CTA of the cluster of %lld%s", expr_str(rk->value), (long long)n,
		               f->has_cluster ? "" : " (the kernel is not launched in clusters: T.cta_id_in_cluster)");
	Dsm x;
	return plan(&x, t->dst, t->src);
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	Dsm x;
	const char *why = plan(&x, dst, src);
	if (why)
		return lower_fail(L, o, why);
	const char *f = lower_fresh(L, "f");
	Expr *fx = x.count > 1 ? ex_name(f) : ex_int(0);
	int outer = x.d->nshard - (x.chunk > 1);
	Expr *da = lower_address(x.d, x.db, lower_digits(x.d, 0, outer, fx));
	Expr *sa = lower_address(x.s, x.sb, lower_digits(x.s, 0, outer, fx));
	Expr *dp[] = { ex_name(dst->buffer->name), da }, *sp[] = { ex_name(src->buffer->name), sa };
	Expr *args[] = {
		ex_call("T.pointer_offset", 2, dp), ex_call("T.pointer_offset", 2, sp),
		ex_int(x.chunk * dtype_bytes(dst->buffer->dtype)),
		expr_copy(call_kw(o->call, "mbar")->value), expr_copy(call_kw(o->call, "remote_cta_id")->value),
	};
	Stmt *c = new_stmt(S_EXPR, o->stmt->pos);
	c->value = ex_call("T.ptx.cp_async.bulk.s2c", 5, args);
	if (x.count > 1) {
		c = lower_loop(f, x.count, c);
	}
	op_replace(o, &c, 1);
	return 0;
}

const Family family_dsmem = { NULL, NULL, NULL, NULL, NULL, lower };
