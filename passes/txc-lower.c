/* txc-lower: replaces each dispatched tile op by per-thread code (doc/txir.md,
 * section 12). gmem_smem and reg become a serial loop over `outer` in which
 * every thread computes both addresses from its index in the scope and
 * copies vec elements with one T.cuda.copy_bytes; the loop is left to ptxas
 * to unroll. fallback becomes element-by-element loops run by the first
 * thread of the scope. The plan is obeyed as written: an edited vec, threads
 * or outer changes the code. A synchronous copy adds no barrier: the
 * program's own barriers order it. */
#include <string.h>

#include "ir.h"

typedef struct Lower {
	Diag *d;
	Func *func;
	Stmt *fstmt;
	const char *tid;   /* the name bound to T.thread_id */
	const char **names;
	int nnames;
} Lower;

/* ---- names -------------------------------------------------------------------- */

static bool taken(Lower *L, const char *s)
{
	for (int i = 0; i < L->nnames; i++)
		if (strcmp(L->names[i], s) == 0)
			return true;
	return false;
}

static void collect_expr(Lower *L, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == E_NAME && !taken(L, e->str))
		vpush(L->names, L->nnames, e->str);
	collect_expr(L, e->a);
	collect_expr(L, e->b);
	collect_expr(L, e->c);
	for (int i = 0; i < e->nargs; i++)
		collect_expr(L, e->args[i]);
	for (int i = 0; i < e->nkws; i++)
		collect_expr(L, e->kws[i].value);
}

static void collect(Lower *L, Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		Stmt *s = v[i];
		for (int k = 0; k < s->ntargets; k++)
			collect_expr(L, s->targets[k]);
		collect_expr(L, s->value);
		collect(L, s->body, s->nbody);
		collect(L, s->orelse, s->norelse);
	}
}

/* A name no statement of the kernel uses; lowered loops are siblings, so
 * the same fresh name serves every op. */
static const char *fresh(Lower *L, const char *base)
{
	const char *s = base;
	for (int k = 1; taken(L, s); k++)
		s = xprintf("%s_%d", base, k);
	return s;
}

/* The name of the thread index: the one bound to T.thread_id, else a
 * T.thread_id statement gets one, else one is declared after
 * T.device_entry(). Done before the walk, which must not see the kernel's
 * top-level statements move. */
static void bind_thread_index(Lower *L)
{
	Stmt *f = L->fstmt;
	int entry = -1;
	for (int i = 0; i < f->nbody; i++) {
		Stmt *s = f->body[i];
		Expr *call = s->value;
		if (s->kind == S_EXPR && call && call->kind == E_CALL && call->intrin == IN_DEVICE_ENTRY)
			entry = i;
		if (!call || call->kind != E_CALL || call->intrin != IN_THREAD_ID)
			continue;
		if (s->kind == S_ASSIGN && s->ntargets == 1 && s->targets[0]->kind == E_NAME) {
			L->tid = s->targets[0]->str;
			return;
		}
		if (s->kind == S_EXPR) {
			s->kind = S_ASSIGN;
			L->tid = fresh(L, "tid");
			vpush(s->targets, s->ntargets, ex_name(L->tid));
			return;
		}
	}
	L->tid = fresh(L, "tid");
	Expr *ext = new_expr(E_LIST, (Pos){0});
	vpush(ext->args, ext->nargs, ex_int(L->func->threads));
	Stmt *s = new_stmt(S_ASSIGN, (Pos){0});
	vpush(s->targets, s->ntargets, ex_name(L->tid));
	s->value = ex_call("T.thread_id", 1, &ext);
	stmt_insert(&f->body, &f->nbody, entry + 1, s);
}

static const char *thread_index(Lower *L) { return L->tid; }

/* ---- expressions ------------------------------------------------------------- */

/* The index of the thread within the op's scope. */
static Expr *scope_index(Lower *L, int es)
{
	int64_t g = scope_threads(L->func, es);
	if (g == 1)
		return ex_int(0);
	Expr *t = ex_name(thread_index(L));
	return g >= L->func->threads ? t : ex_mod(t, g);
}

/* The value of thread axis `axis` for the current thread, and how many
 * values it takes. */
static Expr *axis_value(Lower *L, int axis, int64_t *count)
{
	Expr *t = ex_name(thread_index(L));
	int64_t n = L->func->threads;
	switch (axis) {
	case AX_LANEID:
		*count = n < 32 ? n : 32;
		return n <= 32 ? t : ex_mod(t, 32);
	case AX_TIDINWG:
		*count = n < 128 ? n : 128;
		return n <= 128 ? t : ex_mod(t, 128);
	case AX_WIDINWG:
		*count = n < 128 ? (n + 31) / 32 : 4;
		return ex_div(n <= 128 ? t : ex_mod(t, 128), 32);
	case AX_WARPID:
		*count = (n + 31) / 32;
		return ex_div(t, 32);
	case AX_WGID:
		*count = (n + 127) / 128;
		return ex_div(t, 128);
	default:
		*count = n;
		return t;
	}
}

/* sum over iters [lo, hi) of layout l of (x // inner) % extent * stride on
 * axis m, inner running over the iters after each one in the range. */
static Expr *digits(const Layout *l, int lo, int hi, Expr *x)
{
	Expr *sum = ex_int(0);
	int64_t inner = 1;
	for (int k = hi - 1; k >= lo; k--) {
		const Iter *it = &l->shard[k];
		if (it->extent > 1 && it->axis == AX_M) {
			Expr *c = ex_div(x, inner);
			if (k != lo)
				c = ex_mod(c, it->extent);
			sum = ex_add(sum, ex_mul(c, ex_int(it->stride)));
		}
		inner *= it->extent;
	}
	return sum;
}

static Expr *address(const Layout *l, Expr *base, Expr *sum)
{
	Expr *a = ex_add(ex_add(base ? base : ex_int(0), ex_int(l->off[AX_M])), sum);
	return ex_swizzle(l, a);
}

static const char *ptr_name(const Buffer *b)
{
	int sc = buffer_root((Buffer *)b)->scope;
	return sc == SC_GLOBAL ? "g_ptr" : sc == SC_LOCAL ? "r_ptr" : "s_ptr";
}

/* for f in range(outer): dst_ptr = ..., src_ptr = ..., copy_bytes; or the
 * body alone when outer is 1. */
static int emit_loop(Lower *L, OpSite *o, int64_t outer, const char *f, const Buffer *db, Expr *da,
                     const Buffer *sb, Expr *sa, int64_t bytes)
{
	Expr *dp[] = { ex_name(db->name), da }, *sp[] = { ex_name(sb->name), sa };
	Expr *dptr = ex_call("T.pointer_offset", 2, dp), *sptr = ex_call("T.pointer_offset", 2, sp);
	Stmt *body[3];
	int n = 0;
	if (outer > 1) {
		const char *dn = ptr_name(db), *sn = ptr_name(sb);
		if (strcmp(dn, sn) == 0)
			sn = xprintf("%s_src", sn);
		dn = fresh(L, dn), sn = fresh(L, sn);
		Stmt *a = new_stmt(S_ASSIGN, o->stmt->pos), *b = new_stmt(S_ASSIGN, o->stmt->pos);
		vpush(a->targets, a->ntargets, ex_name(dn));
		a->value = dptr;
		vpush(b->targets, b->ntargets, ex_name(sn));
		b->value = sptr;
		body[n++] = a;
		body[n++] = b;
		dptr = ex_name(dn);
		sptr = ex_name(sn);
	}
	Expr *args[] = { dptr, sptr, ex_int(bytes) };
	Stmt *copy = new_stmt(S_EXPR, o->stmt->pos);
	copy->value = ex_call("T.cuda.copy_bytes", 3, args);
	body[n++] = copy;
	if (outer == 1) {
		stmt_splice(o->body, o->nbody, o->index, body, n);
		return n;
	}
	Stmt *loop = new_stmt(S_FOR, o->stmt->pos);
	vpush(loop->targets, loop->ntargets, ex_name(f));
	Expr *e = ex_int(outer);
	loop->value = ex_call("range", 1, &e);
	for (int i = 0; i < n; i++)
		vpush(loop->body, loop->nbody, body[i]);
	stmt_splice(o->body, o->nbody, o->index, &loop, 1);
	return 1;
}

/* ---- the variants ----------------------------------------------------------------- */

static int fail(Lower *L, OpSite *o, const char *why)
{
	error_at(L->d, o->call->pos, "cannot lower %s: %s", expr_str(o->call->a), why);
	return -1;
}

/* [outer, threads, vec] over the plan's iteration space. */
static int lower_gs(Lower *L, OpSite *o, const Plan *p, const Value *dst, const Value *src)
{
	int64_t shape[3] = { p->outer, p->threads, p->vec };
	int dd[4], sd[4];
	const char *why;
	Layout *d = layout_group(p->dst, shape, 3, dd, &why);
	Layout *s = d ? layout_group(p->src, shape, 3, sd, &why) : NULL;
	if (!s)
		return fail(L, o, xprintf("the plan's outer %lld x threads %lld x vec %lld does not split its layouts: %s",
		                          (long long)p->outer, (long long)p->threads, (long long)p->vec, why));
	if (p->threads != scope_threads(L->func, o->call->es))
		return fail(L, o, xprintf("the plan has %lld threads but the scope has %lld", (long long)p->threads,
		                          (long long)scope_threads(L->func, o->call->es)));
	const char *f = fresh(L, "f");
	Expr *t = scope_index(L, o->call->es), *fx = p->outer > 1 ? ex_name(f) : ex_int(0);
	Expr *da = address(d, p->dst_base, ex_add(digits(d, dd[0], dd[1], fx), digits(d, dd[1], dd[2], t)));
	Expr *sa = address(s, p->src_base, ex_add(digits(s, sd[0], sd[1], fx), digits(s, sd[1], sd[2], t)));
	int64_t bytes = p->vec * dtype_bytes(dst->buffer->dtype);
	return emit_loop(L, o, p->outer, f, dst->buffer, da, src->buffer, sa, bytes);
}

/* Each thread's own elements, from the register layout's thread iters. */
static int lower_reg(Lower *L, OpSite *o, const Plan *p, const Value *dst, const Value *src)
{
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
			Expr *c = ex_div(axis_value(L, r->axis, &count), r->stride);
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
		return fail(L, o, xprintf("the plan's outer %lld x vec %lld is not the %lld elements of a thread",
		                          (long long)p->outer, (long long)p->vec, (long long)per));
	int64_t shape[2] = { p->outer, p->vec };
	int rdim[3], mdim[3];
	const char *why;
	Layout *rg = layout_group(rper, shape, 2, rdim, &why);
	Layout *mg = rg ? layout_group(mper, shape, 2, mdim, &why) : NULL;
	if (!mg)
		return fail(L, o, xprintf("outer %lld x vec %lld does not split a thread's elements: %s",
		                          (long long)p->outer, (long long)p->vec, why));
	rg->off[AX_M] = reg->off[AX_M];
	mg->off[AX_M] = mem->off[AX_M];
	mg->swizzled = mem->swizzled, mg->swz_m = mem->swz_m, mg->swz_b = mem->swz_b, mg->swz_s = mem->swz_s;
	const char *f = fresh(L, "f");
	Expr *fx = p->outer > 1 ? ex_name(f) : ex_int(0);
	Expr *ra = address(rg, NULL, digits(rg, rdim[0], rdim[1], fx));
	Expr *ma = address(mg, mbase, ex_add(mthread, digits(mg, mdim[0], mdim[1], fx)));
	int64_t bytes = p->vec * dtype_bytes(dst->buffer->dtype);
	if (rd)
		return emit_loop(L, o, p->outer, f, dst->buffer, ra, src->buffer, ma, bytes);
	return emit_loop(L, o, p->outer, f, dst->buffer, ma, src->buffer, ra, bytes);
}

/* One thread of the scope copies element by element. */
static int lower_fallback(Lower *L, OpSite *o, const Value *dst, const Value *src)
{
	Expr *di[LAYOUT_MAX_ITERS], *si[LAYOUT_MAX_ITERS];
	const Value *sides[2] = { dst, src };
	Expr **idx[2] = { di, si };
	/* the loops run over the extents other than 1, in order */
	int64_t ext[LAYOUT_MAX_ITERS];
	const char *var[LAYOUT_MAX_ITERS];
	int nl = 0;
	for (int d = 0; d < dst->ndim; d++)
		if (dst->extents[d] > 1) {
			ext[nl] = dst->extents[d];
			var[nl] = fresh(L, xprintf("i%d", nl));
			vpush(L->names, L->nnames, var[nl]);
			nl++;
		}
	for (int s = 0; s < 2; s++) {
		int k = 0;
		for (int d = 0; d < sides[s]->ndim; d++)
			idx[s][d] = sides[s]->extents[d] > 1 ? ex_add(sides[s]->starts[d], ex_name(var[k++])) :
			                                         sides[s]->starts[d];
	}
	Stmt *st = new_stmt(S_ASSIGN, o->stmt->pos);
	vpush(st->targets, st->ntargets, ex_index(ex_name(dst->buffer->name), dst->ndim, di));
	st->value = ex_index(ex_name(src->buffer->name), src->ndim, si);
	for (int k = nl - 1; k >= 0; k--) {
		Stmt *loop = new_stmt(S_FOR, o->stmt->pos);
		vpush(loop->targets, loop->ntargets, ex_name(var[k]));
		Expr *e = ex_int(ext[k]);
		loop->value = ex_call("range", 1, &e);
		vpush(loop->body, loop->nbody, st);
		st = loop;
	}
	if (scope_threads(L->func, o->call->es) > 1) {
		Stmt *g = new_stmt(S_IF, o->stmt->pos);
		Expr *c = new_expr(E_CMP, (Pos){0});
		c->op = OP_EQ;
		c->a = scope_index(L, o->call->es);
		c->b = ex_int(0);
		g->value = c;
		vpush(g->body, g->nbody, st);
		st = g;
	}
	stmt_splice(o->body, o->nbody, o->index, &st, 1);
	return 1;
}

static int lower_op(OpSite *o, void *ctx)
{
	Lower *L = ctx;
	if (L->func != o->func)
		die("txc-lower: a kernel was not prepared");
	Kw *k = call_kw(o->call, "dispatch");
	int va = k ? variant_lookup(o->call->intrin, k->value->str) : -1;
	if (va < 0)
		return fail(L, o, k ? "its variant is unknown" : "it has no dispatch= (run txc-dispatch first)");
	Plan *plans;
	int n = read_plans(o->call, &plans);
	Plan *p = find_plan(plans, n, variants[va].name);
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	if (variants[va].plan != PLAN_NONE && (!p || p->why || !p->vec || !p->threads || !p->outer))
		return fail(L, o, xprintf("its %s plan is missing or incomplete", variants[va].name));
	switch (variants[va].plan) {
	case PLAN_GS: return lower_gs(L, o, p, dst, src);
	case PLAN_REG: return lower_reg(L, o, p, dst, src);
	default: return lower_fallback(L, o, dst, src);
	}
}

static Lower lower;

static int count_op(OpSite *o, void *ctx)
{
	(void)o;
	++*(int *)ctx;
	return 1;
}

/* Kernel by kernel: name the thread index, then lower the tile ops. */
static bool pass(Module *m, Diag *d)
{
	lower.d = d;
	bool ok = true;
	for (int i = 0; i < m->nbody; i++) {
		Stmt *f = m->body[i];
		if (f->kind != S_FUNC || !f->func)
			continue;
		Module one = *m;
		one.body = &m->body[i];
		one.nbody = 1;
		int ops = 0;
		walk_tile_ops(&one, count_op, &ops);
		if (!ops)
			continue;
		lower.func = f->func;
		lower.fstmt = f;
		lower.nnames = 0;
		collect(&lower, f->body, f->nbody);
		bind_thread_index(&lower);
		ok = walk_tile_ops(&one, lower_op, &lower) && ok;
	}
	return ok;
}

int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-lower",
	          .summary = "Replaces every dispatched tile op by per-thread code: loops, T.pointer_offset, T.cuda.copy_bytes." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, pass);
}
