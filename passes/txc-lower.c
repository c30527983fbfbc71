/* txc-lower: replaces each dispatched tile op by per-thread code (doc/txir.md,
 * section 12), through its variant's family (variants/): the partition and
 * register families make a serial loop over `outer` in which every thread
 * computes both addresses and makes one access (T.cuda.copy_bytes or
 * T.ptx.cp_async) of vec elements; the loop is left to ptxas to unroll.
 * fallback becomes element-by-element loops run by the first thread of the
 * scope. The plan is obeyed as written: an edited vec, threads
 * or outer changes the code. A synchronous copy adds no barrier: the
 * program's own barriers order it. */
#include <stdint.h>
#include <string.h>

#include "family.h"
#include "chain.h"

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

/* tile_kw_variant(name): a lookup in a fixed table (ir/tvm.c), asked for
 * the same few keywords (dispatch, plans) of every op. The answer is kept
 * by the name's address with a copy of its text, and given back only
 * while the text is the same: then the lookup would answer the same. */
static const char *kw_variant(const char *name)
{
	static struct { const char *key, *text, *variant; } memo[16];
	unsigned h = (unsigned)(((uintptr_t)name >> 3) % (sizeof memo / sizeof memo[0]));
	if (memo[h].key == name && strcmp(memo[h].text, name) == 0)
		return memo[h].variant;
	memo[h].key = name;
	memo[h].text = xstrdup(name);
	memo[h].variant = tile_kw_variant(name);
	return memo[h].variant;
}

static bool is_cast(const Expr *e)
{
	return e->kind == E_CALL && (e->intrin == IN_CAST || (e->a && e->a->kind == E_ATTR && !strcmp(e->a->str, "cast")));
}

enum { TY_WEAK, TY_32, TY_WIDE }; /* a literal; int32; another integer dtype (int64) */

/* The lowered code adds the threads' int32 offsets to a region's start,
 * which may be an int64 expression (a loop variable of range(n) with n:
 * T.int64, such a scalar parameter): where an operator meets int32 and
 * a wider operand, the wider one, whose range provably fits, is read as
 * T.cast(x, "int32") (the same value), so that the arithmetic has one
 * dtype. The guards txc-lower computes in 64 bits are int64 throughout
 * and stay. In place: a node shared by two statements is seen twice,
 * the second time finding its operands of one dtype. Returns e's TY_. */
static int narrow_expr(Expr **slot)
{
	Expr *e = *slot;
	if (!e)
		return TY_WEAK;
	switch (e->kind) {
	case E_INT:
		return TY_WEAK;
	case E_NAME:
		return e->var && e->var->dtype != DT_INT32 && e->var->dtype < DT_COUNT &&
		       (dtypes[e->var->dtype].kind == DK_INT || dtypes[e->var->dtype].kind == DK_UINT) ? TY_WIDE : TY_32;
	case E_CALL:
		if (is_cast(e) && e->nargs == 2 && e->args[1]->kind == E_STR) {
			narrow_expr(&e->args[0]);
			return !strcmp(e->args[1]->str, "int32") ? TY_32 : TY_WIDE;
		}
		break;
	case E_BIN: case E_CMP: {
		int ta = narrow_expr(&e->a), tb = narrow_expr(&e->b);
		int64_t lo, hi;
		if (ta != TY_WEAK && tb != TY_WEAK && ta != tb) {
			Expr **w = ta == TY_WIDE ? &e->a : &e->b;
			if (expr_range(*w, &lo, &hi) && lo >= INT32_MIN && hi <= INT32_MAX) {
				Expr *args[] = { *w, ex_str("int32") };
				*w = ex_call("T.cast", 2, args);
				ta = tb = TY_32;
			}
		}
		return e->kind == E_CMP ? TY_32 : ta == TY_WIDE || tb == TY_WIDE ? TY_WIDE : ta == TY_WEAK ? tb : ta;
	}
	default:
		break;
	}
	narrow_expr(&e->a);
	narrow_expr(&e->b);
	narrow_expr(&e->c);
	for (int i = 0; i < e->nargs; i++)
		narrow_expr(&e->args[i]);
	for (int i = 0; i < e->nkws; i++)
		narrow_expr(&e->kws[i].value);
	return TY_32;
}

/* Whether e names an integer wider than int32, or casts to one. */
static bool wide_in(const Expr *e)
{
	if (!e)
		return false;
	if (e->kind == E_NAME)
		return e->var && e->var->dtype != DT_INT32 && e->var->dtype < DT_COUNT &&
		       (dtypes[e->var->dtype].kind == DK_INT || dtypes[e->var->dtype].kind == DK_UINT);
	if (e->kind == E_CALL && is_cast(e) && e->nargs == 2 && e->args[1]->kind == E_STR && strcmp(e->args[1]->str, "int32"))
		return true;
	if ((e->kind != E_CALL && wide_in(e->a)) || wide_in(e->b) || wide_in(e->c)) /* (a call's callee: names of builtins) */
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (wide_in(e->args[i]))
			return true;
	for (int i = 0; i < e->nkws; i++) /* (the passes' plans= and dispatch= hold layouts and a name) */
		if (strcmp(e->kws[i].name, "plans") && strcmp(e->kws[i].name, "dispatch") && wide_in(e->kws[i].value))
			return true;
	return false;
}

/* Whether the code an op lowers to can meet an integer wider than
 * int32: its operands and keywords name or cast to one (a region's start
 * over a T.int64 loop variable), or an operand's buffer has a symbolic
 * extent (the guards against it). Else narrow_stmts would find nothing
 * to narrow, after walking every statement the op became. */
static bool op_meets_wide(const Expr *call)
{
	for (int i = 0; i < call->nargs; i++) {
		const Value *v = call->args[i]->val;
		if (v && (v->kind == V_REGION || v->kind == V_BUFFER) && v->buffer && buffer_root(v->buffer)->dyn)
			return true;
	}
	return wide_in(call);
}

static void narrow_stmts(Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		narrow_expr(&v[i]->value);
		for (int t = 0; t < v[i]->ntargets && v[i]->kind != S_FOR; t++) /* a store's indices, not a name bound */
			if (v[i]->targets[t]->kind == E_INDEX)
				for (int k = 0; k < v[i]->targets[t]->nargs; k++)
					narrow_expr(&v[i]->targets[t]->args[k]);
		narrow_stmts(v[i]->body, v[i]->nbody);
		narrow_stmts(v[i]->orelse, v[i]->norelse);
	}
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
		return lower_fail(L, o, xprintf("dispatch=\"%s\" is not a variant of %s (its variants: %s)", k->value->str,
		                          intrins[o->call->intrin].path + 2, names.n ? names.s : "none"));
	}
	if (va < 0)
		return lower_fail(L, o, "it has no dispatch= (run txc-dispatch first)");
	Plan room[VA_COUNT + 1], *plans; /* the family's lower keeps no plan */
	int n = read_plans_in(o->call, room, VA_COUNT + 1, &plans);
	Plan *p = find_plan(plans, n, variants[va].name);
	const Value *dst = o->call->args[0]->val, *src = o->call->args[1]->val;
	/* dispatch= and the plan are claims (a user may have written them):
	 * the variant's predicates hold again, then the plan is proven */
	const char *why = variant_verdict(o, &variants[va], p);
	if (why)
		return lower_fail(L, o, xprintf("it is dispatched to %s, but %s", variants[va].name, why));
	const Family *fam = families[variants[va].family];
	if (fam->prove && (why = fam->prove(p, &variants[va], dst, src, scope_threads(L->func, o->call->es))))
		return lower_fail(L, o, xprintf("its %s plan: %s", variants[va].name, why));
	for (int i = 0; i < o->call->nkws; i++) {
		const char *kv = kw_variant(o->call->kws[i].name);
		if (kv && !word_in(kv, variants[va].name))
			return lower_fail(L, o, xprintf("its keyword %s= is honoured by %s, and it is dispatched to %s",
			                          o->call->kws[i].name, kv, variants[va].name));
	}
	bool wide = op_meets_wide(o->call);
	int r = fam->lower(L, o, &variants[va], p);
	if (r >= 0 && o->nrepl > 0 && wide)
		narrow_stmts(o->repl, o->nrepl);
	if (r >= 0 && o->nrepl >= 0) /* the op is gone, its plans with it */
		plans_forget(o->call);
	return r;
}

static Lower lower;

static int lower_prefetch(OpSite *o, void *ctx) { return tma_lower_prefetch(ctx, o); }

/* Whether a block has a statement that walk_tile_ops or walk_calls
 * (IN_PREFETCH) would visit, in it or in the ifs and loops it holds: the
 * first found is enough. */
static bool has_ops(Stmt **v, int n)
{
	for (int i = 0; i < n; i++) {
		Stmt *s = v[i];
		if (s->kind == S_EXPR && s->value->kind == E_CALL &&
		    (s->value->intrin == IN_COPY || s->value->intrin == IN_COPY_ASYNC ||
		     s->value->intrin == IN_GEMM_ASYNC || s->value->intrin == IN_PREFETCH))
			return true;
		if ((s->kind == S_IF && (has_ops(s->body, s->nbody) || has_ops(s->orelse, s->norelse))) ||
		    ((s->kind == S_FOR || s->kind == S_WHILE) && has_ops(s->body, s->nbody)))
			return true;
	}
	return false;
}

/* Kernel by kernel: name the thread index, then lower the tile ops. */
bool txc_lower(Module *m, Diag *d)
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
		if (!has_ops(f->body, f->nbody))
			continue;
		lower_begin(&lower, f);
		ok = walk_tile_ops(&one, lower_op, &lower) && ok;
		ok = walk_calls(&one, IN_PREFETCH, lower_prefetch, &lower) && ok;
		/* the tensor maps the lowered ops use, declared with the
		 * parameters */
		int at = 0;
		while (at < f->nbody && !(f->body[at]->kind == S_EXPR && f->body[at]->value->kind == E_CALL &&
		                          f->body[at]->value->intrin == IN_DEVICE_ENTRY))
			at++;
		for (int k = 0; k < lower.npre; k++)
			stmt_insert(&f->body, &f->nbody, at++, lower.pre[k]);
		lower.pre = NULL;
		lower.npre = 0;
	}
	return ok;
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	const char *target = NULL;
	Opt opts[] = {
		{ "--target", "ARCH", "choose variants for ARCH (sm_80, sm_90, sm_90a, sm_100a): one whose instruction ARCH lacks declines (default: any)", &target, NULL },
		{ "--verify", NULL, "check by enumeration that every lowered copy reaches each element once, at the address "
		                    "its layout gives, aligned to its access (report on stderr)", NULL, &lower.verify },
		{ 0 },
	};
	Cli c = { .prog = "txc-lower", .opts = opts, .new_stmts = true,
	          .summary = "Replaces every dispatched tile op by per-thread code: loops, T.pointer_offset, T.cuda.copy_bytes." };
	cli_parse(&c, argc, argv);
	if (target && (variant_target = target_lookup(target)) < 0)
		cli_usage_error(&c, "unknown target '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", target);
	int rc = run_pass(&c, TG_ANY, txc_lower);
	if (rc == 0 && lower.verify)
		fprintf(stderr, "txc-lower: verified %d copies, %lld element accesses\n", lower.verified,
		        (long long)lower.accesses);
	return rc;
}
#endif
