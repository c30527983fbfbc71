/* txc-lower: replaces each dispatched tile op by per-thread code (doc/txir.md,
 * section 12). gmem_smem and reg become a serial loop over `outer` in which
 * every thread computes both addresses from its index in the scope and
 * copies vec elements with one T.cuda.copy_bytes; the loop is left to ptxas
 * to unroll. fallback becomes element-by-element loops run by the first
 * thread of the scope. The plan is obeyed as written: an edited vec, threads
 * or outer changes the code. A synchronous copy adds no barrier: the
 * program's own barriers order it. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct Lower {
	Diag *d;
	Func *func;
	Stmt *fstmt;
	const char *tid;   /* the name bound to T.thread_id */
	Map names;          /* every name the kernel uses */
	bool verify;        /* --verify: check every access of every copy */
	int access;         /* the builtin of one access of the op being lowered */
	int verified;
	int64_t accesses;
} Lower;

/* ---- names -------------------------------------------------------------------- */

static bool taken(Lower *L, const char *s) { return map_get(&L->names, s) != NULL; }

static void take(Lower *L, const char *s) { map_put(&L->names, s, (void *)s); }

static void collect_expr(Lower *L, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == E_NAME)
		take(L, e->str);
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
		Expr *t = s->kind == S_ASSIGN && s->ntargets == 1 ? s->targets[0] : NULL;
		if (t && t->kind == E_TUPLE && !t->paren && t->nargs == 1) /* tid, = T.thread_id([n]) */
			t = t->args[0];
		if (t && t->kind == E_NAME) {
			L->tid = t->str;
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
static int emit_loop(Lower *L, OpSite *o, int access, int64_t outer, const char *f, const Buffer *db, Expr *da,
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
		Stmt *a = new_stmt(S_ASSIGN, (Pos){0}), *b = new_stmt(S_ASSIGN, (Pos){0});
		vpush(a->targets, a->ntargets, ex_name(dn));
		a->value = dptr;
		vpush(b->targets, b->ntargets, ex_name(sn));
		b->value = sptr;
		body[n++] = a;
		body[n++] = b;
		dptr = ex_name(dn);
		sptr = ex_name(sn);
	}
	/* TVM's prefetch_size= and predicate= (tvm.def): cp.async's L2
	 * prefetch and predicate operands (false: no read, zero fill) */
	Kw *pf = access == IN_CP_ASYNC ? call_kw(o->call, "prefetch_size") : NULL;
	Kw *pred = access == IN_CP_ASYNC ? call_kw(o->call, "predicate") : NULL;
	Expr *args[] = { dptr, sptr, ex_int(bytes), ex_int(0), pf ? pf->value : ex_int(0), ex_int(-1),
	                 pred ? pred->value : NULL };
	/* TVM's cache="nc" (tvm.def): copy_bytes's ld.global.nc operand */
	Kw *nc = access == IN_COPY_BYTES ? call_kw(o->call, "cache") : NULL;
	if (nc)
		args[3] = nc->value;
	Stmt *copy = new_stmt(S_EXPR, (Pos){0});
	copy->value = ex_call(intrins[access].path, pred ? 7 : pf ? 5 : nc ? 4 : 3, args);
	body[n++] = copy;
	body[0]->pos = o->stmt->pos; /* the user's line, for the next pass */
	if (outer == 1) {
		op_replace(o, body, n);
		return 0;
	}
	Stmt *loop = new_stmt(S_FOR, o->stmt->pos);
	vpush(loop->targets, loop->ntargets, ex_name(f));
	Expr *e = ex_int(outer);
	loop->value = ex_call("range", 1, &e);
	for (int i = 0; i < n; i++)
		vpush(loop->body, loop->nbody, body[i]);
	op_replace(o, &loop, 1);
	return 0;
}


/* Whether `word` is one of the space-separated words of `list`. */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p; p += strspn(p, " ")) {
		size_t k = strcspn(p, " ");
		if (k == n && strncmp(p, word, n) == 0)
			return true;
		p += k;
	}
	return false;
}

static int fail(Lower *L, OpSite *o, const char *why)
{
	error_at(L->d, o->call->pos, "cannot lower %s: %s", expr_str(o->call->a), why);
	return -1;
}

static bool vfail(Lower *L, OpSite *o, const char *why)
{
	fail(L, o, why);
	return false;
}

/* ---- --verify: every access of a lowered copy, against the layouts ------------ */

/* Values for the names of an address: the loop variable, the thread index,
 * and launch ids and loop variables of the program at sample values. */
typedef struct Env {
	const char *f, *tid;
	int64_t fval, tidval;
	Var *vars[16];
	int64_t vals[16];
	int nvars;
	bool high;
	int64_t budget;     /* nodes left to visit: definitions can nest exponentially */
} Env;

static void sample_vars(Env *env, const Expr *e)
{
	if (!e || --env->budget < 0)
		return;
	if (e->kind == E_NAME && e->var && e->var->launch != IN_THREAD_ID) {
		Var *v = e->var;
		if (v->def) {
			sample_vars(env, v->def);
		} else {
			for (int i = 0; i < env->nvars; i++)
				if (env->vars[i] == v)
					return;
			if (env->nvars < 16) {
				env->vars[env->nvars] = v;
				env->vals[env->nvars++] = v->hi > v->lo ? (env->high ? v->hi - 1 : v->lo) : 0;
			}
		}
	}
	sample_vars(env, e->a);
	sample_vars(env, e->b);
	sample_vars(env, e->c);
	for (int i = 0; i < e->nargs; i++)
		sample_vars(env, e->args[i]);
}

static bool ev(const Expr *e, Env *env, int64_t *out)
{
	int64_t a, b;
	if (--env->budget < 0)
		return false;
	if (e->kind == E_INT) {
		*out = e->ival;
		return true;
	}
	if (e->val && e->val->kind == V_INT) {
		*out = e->val->i;
		return true;
	}
	switch (e->kind) {
	case E_NAME:
		if (env->f && strcmp(e->str, env->f) == 0) {
			*out = env->fval;
			return true;
		}
		if (strcmp(e->str, env->tid) == 0 || (e->var && e->var->launch == IN_THREAD_ID)) {
			*out = env->tidval;
			return true;
		}
		if (!e->var)
			return false;
		if (thread_launch(e->var->launch)) {
			*out = launch_value(thread_launch(e->var->launch), env->tidval);
			return true;
		}
		if (e->var->def)
			return ev(e->var->def, env, out);
		for (int i = 0; i < env->nvars; i++)
			if (env->vars[i] == e->var) {
				*out = env->vals[i];
				return true;
			}
		return false;
	case E_UN:
		if (!ev(e->a, env, &a) || (e->op == OP_NEG && a == INT64_MIN))
			return false;
		*out = e->op == OP_NEG ? -a : e->op == OP_INVERT ? ~a : a;
		return true;
	case E_BIN:
		if (!ev(e->a, env, &a) || !ev(e->b, env, &b))
			return false;
		switch (e->op) {
		case OP_ADD: return add_ok(a, b, out);
		case OP_SUB: return !__builtin_sub_overflow(a, b, out);
		case OP_MUL: return mul_ok(a, b, out);
		case OP_FLOORDIV: case OP_MOD:
			if (b <= 0 || a < 0)
				return false;
			*out = e->op == OP_FLOORDIV ? a / b : a % b;
			return true;
		case OP_BITAND: *out = a & b; return true;
		case OP_BITOR: *out = a | b; return true;
		case OP_BITXOR: *out = a ^ b; return true;
		case OP_SHL:
			if (a < 0 || b < 0 || b > 62 || a > (INT64_MAX >> b))
				return false;
			*out = a << b;
			return true;
		case OP_SHR:
			if (b < 0 || b > 63)
				return false;
			*out = a >> b;
			return true;
		}
		return false;
	default:
		return false;
	}
}

/* One address or start, with a fresh budget. */
static bool evaluate(const Expr *e, Env *env, int64_t *out)
{
	env->budget = 100000;
	return ev(e, env, out);
}

typedef struct Access { int64_t thread, a, b; } Access;

/* --verify holds two lists of accesses per copy: at most this many
 * elements, so that it runs in bounded memory (2 x 96 MiB). */
#define VERIFY_MAX ((int64_t)1 << 22)

static int by_access(const void *x, const void *y)
{
	const Access *p = x, *q = y;
	if (p->thread != q->thread)
		return p->thread < q->thread ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* The thread (within the scope) whose values on the thread axes the
 * register layout uses are those of an element. */
static int64_t owner(const Layout *l, const int64_t *coords, int64_t group)
{
	bool used[AX_COUNT] = { 0 };
	for (int i = 0; i < l->nshard; i++)
		used[l->shard[i].axis] = true;
	for (int a = 0; a < AX_COUNT; a++)
		used[a] = used[a] || l->off[a];
	for (int64_t t = 0; t < group; t++) {
		bool all = true;
		for (int a = 0; a < AX_COUNT && all; a++) {
			if (!used[a] || axes[a].kind != AXK_THREAD)
				continue;
			int64_t v = a == AX_LANEID ? t % 32 : a == AX_TIDINWG ? t % 128 : a == AX_WIDINWG ? t % 128 / 32 :
			            a == AX_WARPID ? t / 32 : a == AX_WGID ? t / 128 : t;
			all = coords[a] == v;
		}
		if (all)
			return t;
	}
	return -1;
}

/* Expected accesses from the layouts, generated ones from the addresses:
 * both sorted, they must be the same list (every element once), and every
 * generated address aligned to the access. */
static bool check_accesses(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src,
                           Expr *da, Expr *sa, const char *f, Env *env)
{
	int64_t group = scope_threads(L->func, o->call->es);
	int64_t n = region_elements(dst);
	if (n > VERIFY_MAX)
		return vfail(L, o, xprintf("verify: the copy has %lld elements; --verify enumerates at most %lld (%lld MiB "
		                          "of accesses); check a smaller tile of the same kernel", (long long)n,
		                          (long long)VERIFY_MAX, (long long)(2 * VERIFY_MAX * (int64_t)sizeof(Access) >> 20)));
	bool rd = dst->buffer->scope == SC_LOCAL;
	Access *want = xalloc(sizeof(Access) * (size_t)n), *got = xalloc(sizeof(Access) * (size_t)n);
	const Value *side[2] = { dst, src };
	int64_t start[2][LAYOUT_MAX_ITERS];
	for (int s = 0; s < 2; s++)
		for (int d = 0; d < side[s]->ndim; d++)
			if (!evaluate(side[s]->starts[d], env, &start[s][d]))
				return vfail(L, o, "verify: cannot evaluate a region start");
	for (int64_t e = 0; e < n; e++) {
		int64_t off[2], thread = 0;
		for (int s = 0; s < 2; s++) {
			const Value *r = side[s];
			int64_t idx[LAYOUT_MAX_ITERS], x = e;
			for (int d = r->ndim - 1; d >= 0; d--) {
				idx[d] = start[s][d] + x % r->extents[d];
				x /= r->extents[d];
			}
			int64_t c[AX_COUNT];
			if (!layout_apply_coord(buffer_layout(r->buffer), r->buffer->shape, r->ndim, idx, c))
				return vfail(L, o, "verify: an element has no address");
			off[s] = c[AX_M];
			if (reg && r->buffer->scope == SC_LOCAL && group > 1)
				thread = owner(buffer_layout(r->buffer), c, group);
		}
		/* register plans: (thread, register, memory); else (0, dst, src) */
		want[e] = reg ? (Access){ thread, off[rd ? 0 : 1], off[rd ? 1 : 0] } : (Access){ 0, off[0], off[1] };
	}
	int64_t k = 0, bad_align = 0;
	int64_t threads = reg ? group : p->threads;
	for (int64_t t = 0; t < threads; t++) {
		env->tidval = group > 1 ? t : env->tidval;
		for (int64_t fi = 0; fi < p->outer; fi++) {
			env->fval = fi;
			int64_t a, b;
			env->f = f;
			if (!evaluate(da, env, &a) || !evaluate(sa, env, &b))
				return vfail(L, o, "verify: cannot evaluate an address");
			if (a % p->vec || b % p->vec)
				bad_align++;
			for (int64_t v = 0; v < p->vec && k < n; v++, k++)
				got[k] = reg ? (Access){ t, (rd ? a : b) + v, (rd ? b : a) + v } : (Access){ 0, a + v, b + v };
		}
	}
	qsort(want, (size_t)n, sizeof(Access), by_access);
	qsort(got, (size_t)k, sizeof(Access), by_access);
	int64_t diff = k == n ? 0 : 1;
	for (int64_t i = 0; i < n && i < k; i++)
		diff += by_access(&want[i], &got[i]) != 0;
	if (diff || bad_align)
		return vfail(L, o, xprintf("verify: %lld of %lld accesses differ from the layouts, %lld misaligned",
		                          (long long)diff, (long long)n, (long long)bad_align));
	L->accesses += n;
	return true;
}

/* Runs the check with the program's names at their lowest and highest
 * values, and for a thread-scope copy for the first and the last thread. */
static bool verify(Lower *L, OpSite *o, const Plan *p, bool reg, const Value *dst, const Value *src, Expr *da,
                   Expr *sa, const char *f)
{
	for (int high = 0; high < 2; high++) {
		Env env = { .tid = L->tid, .high = high, .budget = 100000 };
		for (int s = 0; s < 2; s++) {
			const Value *r = s ? src : dst;
			for (int d = 0; d < r->ndim; d++)
				sample_vars(&env, r->starts[d]);
		}
		sample_vars(&env, p->src_base);
		sample_vars(&env, p->dst_base);
		env.tidval = high ? L->func->threads - 1 : 0;
		if (!check_accesses(L, o, p, reg, dst, src, da, sa, f, &env))
			return false;
	}
	L->verified++;
	return true;
}

/* ---- the variants ----------------------------------------------------------------- */


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
	if (L->verify && !verify(L, o, p, false, dst, src, da, sa, f))
		return -1;
	return emit_loop(L, o, L->access, p->outer, f, dst->buffer, da, src->buffer, sa, bytes);
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
	if (L->verify && !verify(L, o, p, true, dst, src, rd ? ra : ma, rd ? ma : ra, f))
		return -1;
	if (rd)
		return emit_loop(L, o, L->access, p->outer, f, dst->buffer, ra, src->buffer, ma, bytes);
	return emit_loop(L, o, L->access, p->outer, f, dst->buffer, ma, src->buffer, ra, bytes);
}

/* The common refinement of the two regions' shapes (extent-1 dimensions
 * dropped), innermost first split where one extent divides the other, in
 * out (outermost first); 0 when neither divides the other somewhere. Equal
 * shapes refine to themselves. */
static int refine_shapes(const Value *a, const Value *b, int64_t *out)
{
	int64_t tmp[2 * LAYOUT_MAX_ITERS];
	int n = 0, i = a->ndim - 1, j = b->ndim - 1;
	int64_t ea = 1, eb = 1;
	for (;;) {
		while (ea == 1 && i >= 0)
			ea = a->extents[i--];
		while (eb == 1 && j >= 0)
			eb = b->extents[j--];
		if (ea == 1 || eb == 1)
			break;
		int64_t e = ea < eb ? ea : eb;
		if ((ea > eb ? ea % eb : eb % ea) != 0 || n == 2 * LAYOUT_MAX_ITERS)
			return 0;
		tmp[n++] = e;
		ea /= e, eb /= e;
	}
	for (int k = 0; k < n; k++)
		out[k] = tmp[n - 1 - k];
	return n;
}

/* One thread of the scope copies element by element, pairing the elements
 * of the two regions in the row-major order of each: the loops run over the
 * common refinement of their shapes (the extents other than 1 when the
 * shapes agree), or over one flat loop when there is none. */
static int lower_fallback(Lower *L, OpSite *o, const Value *dst, const Value *src)
{
	Expr *di[LAYOUT_MAX_ITERS], *si[LAYOUT_MAX_ITERS];
	const Value *sides[2] = { dst, src };
	Expr **idx[2] = { di, si };
	int64_t ext[2 * LAYOUT_MAX_ITERS];
	const char *var[2 * LAYOUT_MAX_ITERS];
	int nl = refine_shapes(dst, src, ext);
	bool flat = nl == 0 && region_elements(dst) > 1;
	if (flat)
		ext[nl++] = region_elements(dst);
	int64_t inner[2 * LAYOUT_MAX_ITERS]; /* elements after loop k */
	for (int k = nl - 1; k >= 0; k--)
		inner[k] = k == nl - 1 ? 1 : inner[k + 1] * ext[k + 1];
	for (int k = 0; k < nl; k++) {
		var[k] = fresh(L, xprintf("i%d", k));
		take(L, var[k]);
	}
	for (int s = 0; s < 2; s++) {
		const Value *r = sides[s];
		int64_t sigma = 1; /* elements of the region after dimension d */
		for (int d = r->ndim - 1; d >= 0; d--) {
			Expr *e = r->starts[d];
			int64_t span = sigma * r->extents[d];
			if (r->extents[d] > 1 && flat) {
				Expr *x = ex_div(ex_name(var[0]), sigma);
				e = ex_add(e, span == region_elements(r) ? x : ex_mod(x, r->extents[d]));
			} else if (r->extents[d] > 1) {
				for (int k = 0; k < nl; k++)
					if (inner[k] >= sigma && inner[k] < span)
						e = ex_add(e, ex_mul(ex_name(var[k]), ex_int(inner[k] / sigma)));
			}
			idx[s][d] = e;
			sigma = span;
		}
	}
	Stmt *st = new_stmt(S_ASSIGN, (Pos){0});
	vpush(st->targets, st->ntargets, ex_index(ex_name(dst->buffer->name), dst->ndim, di));
	st->value = ex_index(ex_name(src->buffer->name), src->ndim, si);
	for (int k = nl - 1; k >= 0; k--) {
		Stmt *loop = new_stmt(S_FOR, (Pos){0});
		vpush(loop->targets, loop->ntargets, ex_name(var[k]));
		Expr *e = ex_int(ext[k]);
		loop->value = ex_call("range", 1, &e);
		vpush(loop->body, loop->nbody, st);
		st = loop;
	}
	if (scope_threads(L->func, o->call->es) > 1) {
		Stmt *g = new_stmt(S_IF, (Pos){0});
		Expr *c = new_expr(E_CMP, (Pos){0});
		c->op = OP_EQ;
		c->a = scope_index(L, o->call->es);
		c->b = ex_int(0);
		g->value = c;
		vpush(g->body, g->nbody, st);
		st = g;
	}
	st->pos = o->stmt->pos;
	op_replace(o, &st, 1);
	return 0;
}

static int lower_op(OpSite *o, void *ctx)
{
	Lower *L = ctx;
	if (L->func != o->func)
		die("txc-lower: a kernel was not prepared");
	Kw *k = call_kw(o->call, "dispatch");
	int va = k ? variant_lookup(o->call->intrin, k->value->str) : -1;
	if (va < 0 && k) {
		Buf names = {0};
		for (int v = 0; v < VA_COUNT; v++)
			if (variants[v].op == o->call->intrin)
				bprintf(&names, "%s%s", names.n ? ", " : "", variants[v].name);
		return fail(L, o, xprintf("dispatch=\"%s\" is not a variant of %s (its variants: %s)", k->value->str,
		                          intrins[o->call->intrin].path + 2, names.n ? names.s : "none"));
	}
	if (va < 0)
		return fail(L, o, "it has no dispatch= (run txc-dispatch first)");
	Plan *plans;
	int n = read_plans(o->call, &plans);
	Plan *p = find_plan(plans, n, variants[va].name);
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	/* dispatch= and the plan are claims (a user may have written them):
	 * the variant's predicates hold again, then the plan is proven */
	const char *why = variant_verdict(o, &variants[va], p);
	if (why)
		return fail(L, o, xprintf("it is dispatched to %s, but %s", variants[va].name, why));
	if (variants[va].plan != PLAN_NONE &&
	    (why = plan_prove(p, &variants[va], dst, src, scope_threads(L->func, o->call->es))))
		return fail(L, o, xprintf("its %s plan: %s", variants[va].name, why));
	L->access = variants[va].access;
	for (int i = 0; i < o->call->nkws; i++) {
		const char *kv = tile_kw_variant(o->call->kws[i].name);
		if (kv && !word_in(kv, variants[va].name))
			return fail(L, o, xprintf("its keyword %s= is honoured by %s, and it is dispatched to %s",
			                          o->call->kws[i].name, kv, variants[va].name));
	}
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
		lower.names = (Map){ 0 };
		collect(&lower, f->body, f->nbody);
		for (int i = 0; i < f->nparams; i++) /* a scalar parameter the body does not use */
			take(&lower, f->params[i].name);
		bind_thread_index(&lower);
		ok = walk_tile_ops(&one, lower_op, &lower) && ok;
	}
	return ok;
}

int main(int argc, char **argv)
{
	Opt opts[] = {
		{ "--verify", NULL, "check by enumeration that every lowered copy reaches each element once, at the address "
		                    "its layout gives, aligned to its access (report on stderr)", NULL, &lower.verify },
		{ 0 },
	};
	Cli c = { .prog = "txc-lower", .opts = opts,
	          .summary = "Replaces every dispatched tile op by per-thread code: loops, T.pointer_offset, T.cuda.copy_bytes." };
	cli_parse(&c, argc, argv);
	int rc = run_pass(&c, TG_ANY, pass);
	if (rc == 0 && lower.verify)
		fprintf(stderr, "txc-lower: verified %d copies, %lld element accesses\n", lower.verified,
		        (long long)lower.accesses);
	return rc;
}
