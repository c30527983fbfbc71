/* txc-dispatch: chooses the variant of each tile op. The candidates are the
 * rows of ir/variant.def for the op, by descending priority, ties by name;
 * each is tried through its named predicates in order, and the first whose
 * predicates all hold wins. dispatch="NAME" restricts the candidates to that
 * one (an unknown name is an error). The choice is written as dispatch=
 * with only the chosen plan kept. When no candidate holds, the error lists
 * every candidate with the rule it broke; the scalar fallback, when it is
 * picked, warns with the rules the others broke. --explain prints every
 * candidate's verdict for every tile op. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

typedef struct Try {
	OpSite *site;
	Expr *call;
	const Value *dst, *src;
	Plan *plan;       /* this variant's plan, or NULL */
	const Variant *va;
} Try;

/* ---- which threads run the op ----------------------------------------------- */

enum { KNOWN, UNIFORM, MIXED };

/* The value of an integer or boolean expression for thread `tid`: KNOWN,
 * UNIFORM (the same for every thread of the CTA, but not known here: the
 * CTA index, a loop variable) or MIXED. Let-bound names are followed into
 * their definitions, within a budget of nodes (a chain of definitions that
 * each use the previous one twice would take exponential time); past it,
 * or on an overflow, the answer is MIXED, which refuses the op with a
 * reason rather than guess. */
static int thread_value(const Expr *e, int64_t tid, int64_t *out, int64_t *budget)
{
	if (--*budget < 0)
		return MIXED;
	if (e->kind == E_INT || (e->val && e->val->kind == V_INT) || e->kind == E_TRUE || e->kind == E_FALSE ||
	    (e->val && e->val->kind == V_BOOL)) {
		*out = e->kind == E_INT ? e->ival : e->kind == E_TRUE ? 1 : e->kind == E_FALSE ? 0 : e->val->i;
		return KNOWN;
	}
	int64_t a, b;
	int ka, kb;
	switch (e->kind) {
	case E_NAME:
		if (!e->var)
			return MIXED;
		switch (e->var->launch) {
		case IN_THREAD_ID: *out = tid; return KNOWN;
		case IN_WARP_ID: *out = tid / 32; return KNOWN;
		case IN_LANE_ID: *out = tid % 32; return KNOWN;
		case IN_WARPGROUP_ID: *out = tid / 128; return KNOWN;
		case IN_CTA_ID: return UNIFORM;
		}
		return e->var->def ? thread_value(e->var->def, tid, out, budget) : UNIFORM;
	case E_NOT:
		ka = thread_value(e->a, tid, &a, budget);
		*out = !a;
		return ka;
	case E_UN:
		ka = thread_value(e->a, tid, &a, budget);
		if (ka == KNOWN && e->op == OP_NEG && a == INT64_MIN)
			return MIXED;
		*out = e->op == OP_NEG ? -a : e->op == OP_INVERT ? ~a : a;
		return ka;
	case E_BIN: case E_CMP: case E_AND: case E_OR:
		ka = thread_value(e->a, tid, &a, budget);
		kb = thread_value(e->b, tid, &b, budget);
		if (ka == MIXED || kb == MIXED)
			return MIXED;
		if (ka == UNIFORM || kb == UNIFORM)
			return UNIFORM;
		if (e->kind == E_AND || e->kind == E_OR) {
			*out = e->kind == E_AND ? (a && b) : (a || b);
			return KNOWN;
		}
		switch (e->op) {
		case OP_ADD: return add_ok(a, b, out) ? KNOWN : MIXED;
		case OP_SUB: return __builtin_sub_overflow(a, b, out) ? MIXED : KNOWN;
		case OP_MUL: return mul_ok(a, b, out) ? KNOWN : MIXED;
		case OP_FLOORDIV:
			if (!b || (a == INT64_MIN && b == -1))
				return MIXED;
			*out = a / b - ((a % b) && ((a < 0) != (b < 0)));
			break;
		case OP_MOD:
			if (!b || (a == INT64_MIN && b == -1))
				return MIXED;
			*out = a % b;
			if (*out && ((*out < 0) != (b < 0)))
				*out += b;
			break;
		case OP_BITAND: *out = a & b; break;
		case OP_BITOR: *out = a | b; break;
		case OP_BITXOR: *out = a ^ b; break;
		case OP_SHR: *out = b >= 0 && b < 63 ? a >> b : 0; break;
		case OP_SHL:
			if (a < 0 || b < 0 || b > 62 || a > (INT64_MAX >> b))
				return MIXED;
			*out = a << b;
			break;
		case OP_LT: *out = a < b; break;
		case OP_LE: *out = a <= b; break;
		case OP_GT: *out = a > b; break;
		case OP_GE: *out = a >= b; break;
		case OP_EQ: *out = a == b; break;
		case OP_NE: *out = a != b; break;
		default: return MIXED;
		}
		return KNOWN;
	default:
		return MIXED;
	}
}

static const char *all_threads_active(Try *t)
{
	OpSite *o = t->site;
	int64_t n = o->func->threads, group = scope_threads(o->func, t->call->es);
	if (group == 1)
		return NULL;
	bool *on = xalloc((size_t)n);
	for (int64_t tid = 0; tid < n; tid++) {
		on[tid] = true;
		for (int c = 0; c < o->nconds; c++) {
			int64_t v;
			int64_t budget = 20000;
			int k = thread_value(o->conds[c], tid, &v, &budget);
			if (k == MIXED)
				return xprintf("cannot tell which threads run it (condition '%s')", expr_str(o->conds[c]));
			if (k == KNOWN && (v != 0) == o->negs[c])
				on[tid] = false;
		}
	}
	int64_t active = 0;
	for (int64_t g = 0; g < n; g += group) {
		int64_t k = 0;
		for (int64_t i = g; i < g + group && i < n; i++)
			k += on[i];
		if (k && k < group)
			return xprintf("only %lld of the %lld threads of %s %lld run it", (long long)k, (long long)group,
			               exec_scope_names[t->call->es], (long long)(g / group));
		active += k;
	}
	return active ? NULL : "no thread runs it";
}

/* ---- the predicates ------------------------------------------------------------ */

static const char *exec_scope(Try *t)
{
	int es = t->call->es;
	if (es == ES_CLUSTER)
		return xprintf("%s does not run at cluster scope", t->va->name);
	return NULL;
}

static const char *valid_copy(Try *t)
{
	if (t->dst->buffer->scope == SC_TMEM || t->src->buffer->scope == SC_TMEM)
		return "an operand is in tensor memory, which only the tcgen05 variants of copy_async reach";
	return NULL;
}

static const char *storage_scope(Try *t)
{
	if (variant_moves(t->va, t->src->buffer->scope, t->dst->buffer->scope))
		return NULL;
	Buf pairs = {0};
	for (const char *p = t->va->pairs; *p;) {
		size_t k = strcspn(p, " "), g = strcspn(p, ">");
		bprintf(&pairs, "%s%.*s -> %.*s", pairs.n ? ", " : "", (int)g, p, (int)(k - g - 1), p + g + 1);
		p += k;
		p += strspn(p, " ");
	}
	return xprintf("%s -> %s: %s moves only %s", scopes[t->src->buffer->scope].name,
	               scopes[t->dst->buffer->scope].name, t->va->name, pairs.s);
}

static const char *no_mbarrier(Try *t)
{
	if (call_kw(t->call, "mbar"))
		return "mbar= asks for a TMA load that completes on the mbarrier; cp.async would drop it";
	return NULL;
}

static const char *register_layout(Try *t)
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

static const char *plan(Try *t)
{
	Plan *p = t->plan;
	if (!p)
		return "no plan: run txc-align, txc-vectorize and txc-partition first";
	if (p->why)
		return p->why;
	return plan_check(p, region_elements(t->dst), t->va->plan == PLAN_REG);
}

static const char *element_access(Try *t)
{
	const Value *v[2] = { t->dst, t->src };
	for (int i = 0; i < 2; i++)
		if (v[i]->buffer->layout && layout_uses_axis_kind(v[i]->buffer->layout, AXK_THREAD))
			return xprintf("the elements of '%s' are spread over threads; one thread cannot reach them",
			               v[i]->buffer->name);
	return NULL;
}

static const struct { const char *name; const char *(*fn)(Try *); } preds[] = {
	{ "exec_scope", exec_scope },
	{ "all_threads_active", all_threads_active },
	{ "valid_copy", valid_copy },
	{ "storage_scope", storage_scope },
	{ "register_layout", register_layout },
	{ "plan", plan },
	{ "element_access", element_access },
	{ "no_mbarrier", no_mbarrier },
};

/* The first predicate of the variant that fails, as "name: reason". */
static const char *verdict(Try *t)
{
	const char *s = t->va->preds;
	while (*s) {
		size_t n = strcspn(s, " ");
		size_t k = 0;
		while (k < sizeof preds / sizeof preds[0] && (strlen(preds[k].name) != n || strncmp(preds[k].name, s, n)))
			k++;
		if (k == sizeof preds / sizeof preds[0])
			die("variant %s names an unknown predicate %.*s", t->va->name, (int)n, s);
		const char *why = preds[k].fn(t);
		if (why)
			return xprintf("%s: %s", preds[k].name, why);
		s += n;
		s += strspn(s, " ");
	}
	return NULL;
}

/* ---- the pass --------------------------------------------------------------------- */

typedef struct Ctx { Diag *d; bool explain; } Ctx;

static int by_priority(const void *a, const void *b)
{
	const Variant *x = &variants[*(const int *)a], *y = &variants[*(const int *)b];
	if (x->priority != y->priority)
		return y->priority - x->priority;
	return strcmp(x->name, y->name);
}

static int dispatch_op(OpSite *o, void *vctx)
{
	Ctx *ctx = vctx;
	Expr *call = o->call;
	Plan *plans;
	int nplans = read_plans(call, &plans);
	int cand[VA_COUNT], n = 0;
	for (int v = 0; v < VA_COUNT; v++)
		if (variants[v].op == call->intrin)
			cand[n++] = v;
	qsort(cand, (size_t)n, sizeof cand[0], by_priority);
	Kw *forced = call_kw(call, "dispatch");
	if (forced) {
		int v = variant_lookup(call->intrin, forced->value->str);
		if (v < 0) {
			Buf names = {0};
			for (int i = 0; i < n; i++)
				bprintf(&names, "%s%s", i ? ", " : "", variants[cand[i]].name);
			error_at(ctx->d, forced->value->pos, "unknown variant \"%s\" for %s; the variants are: %s",
			         forced->value->str, intrins[call->intrin].path + 2, n ? names.s : "(none yet)");
			return -1;
		}
		cand[0] = v;
		n = 1;
	}
	const char *why[VA_COUNT];
	int chosen = -1;
	for (int i = 0; i < n; i++) {
		Try t = { o, call, call->args[0]->val, call->args[1]->val, find_plan(plans, nplans, variants[cand[i]].name),
		          &variants[cand[i]] };
		why[i] = chosen < 0 ? verdict(&t) : "not tried";
		if (chosen < 0 && !why[i])
			chosen = i;
	}
	char *op = expr_str(call->a);
	if (ctx->explain) {
		fprintf(stderr, "%s:%d:%d: %s: %d candidate%s\n", call->pos.file ? call->pos.file : call->pos.src->name, call->pos.line, call->pos.col, op,
		        n, n == 1 ? "" : "s");
		for (int i = 0; i < n; i++) {
			const Variant *va = &variants[cand[i]];
			Plan *p = find_plan(plans, nplans, va->name);
			if (i == chosen && p)
				fprintf(stderr, "    %-12s %3d  chosen: vec %lld, threads %lld, outer %lld\n", va->name, va->priority,
				        (long long)p->vec, (long long)p->threads, (long long)p->outer);
			else
				fprintf(stderr, "    %-12s %3d  %s\n", va->name, va->priority, i == chosen ? "chosen" : why[i]);
		}
	}
	if (chosen < 0) {
		error_at(ctx->d, call->pos, "no variant of %s can run this copy%s", op, n ? ":" : " (none is registered)");
		for (int i = 0; i < n; i++)
			fprintf(ctx->d->out ? ctx->d->out : stderr, "    %-12s %3d  %s\n", variants[cand[i]].name,
			        variants[cand[i]].priority, why[i]);
		return -1;
	}
	const Variant *va = &variants[cand[chosen]];
	if (va->plan == PLAN_NONE && !forced) {
		Buf rules = {0};
		bputs(&rules, "");
		for (int i = 0; i < chosen; i++)
			bprintf(&rules, "; %s: %s", variants[cand[i]].name, why[i]);
		warn_at(ctx->d, call->pos, "%s falls back to a scalar copy by one thread%s", op, rules.s);
	}
	Expr *name = new_expr(E_STR, (Pos){0});
	name->str = va->name;
	set_kw(call, "dispatch", name);
	Plan *p = find_plan(plans, nplans, va->name);
	write_plans(call, p, p ? 1 : 0);
	return 1;
}

static Ctx ctx;

static bool pass(Module *m, Diag *d)
{
	ctx.d = d;
	return walk_tile_ops(m, dispatch_op, &ctx);
}

int main(int argc, char **argv)
{
	bool explain = false;
	Opt opts[] = {
		{ "--explain", NULL, "print every candidate variant of every tile op and its verdict (to stderr)", NULL, &explain },
		{ 0 },
	};
	Cli c = { .prog = "txc-dispatch", .opts = opts,
	          .summary = "Chooses the variant of every tile op (dispatch=) from the table ir/variant.def." };
	cli_parse(&c, argc, argv);
	ctx.explain = explain;
	return run_pass(&c, TG_ANY, pass);
}
