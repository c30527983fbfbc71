/* Whether a variant can run a tile op: the predicates that ir/variant.def
 * names for each variant, asked in the order of ir/pred.def (which threads
 * run the op, the scopes it moves between, its completion, the family's
 * plan, ...); the general ones are here, a family's own in its file.
 * txc-dispatch asks them of every candidate to choose one; txc-lower asks them again of the variant
 * an op was dispatched to, since a user may have written dispatch= by
 * hand. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

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
		if (grid_launch(e->var->launch))
			return UNIFORM;
		if (thread_launch(e->var->launch)) {
			*out = launch_value(thread_launch(e->var->launch), tid);
			return KNOWN;
		}
		if (e->var->mut) /* assigned at run time, perhaps per thread */
			return MIXED;
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

const char *pred_all_threads_active(const Try *t)
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

const char *pred_exec_scope(const Try *t)
{
	int es = t->call->es;
	if (es == ES_CLUSTER)
		return xprintf("%s does not run at cluster scope", t->va->name);
	return NULL;
}

const char *pred_valid_copy(const Try *t)
{
	if (t->dst->buffer->scope == SC_TMEM || t->src->buffer->scope == SC_TMEM)
		return "an operand is in tensor memory, which only the tcgen05 variants of copy_async reach";
	return NULL;
}

const char *pred_storage_scope(const Try *t)
{
	if (variant_moves(t->va, t->src->buffer->scope, t->dst->buffer->scope))
		return NULL;
	return xprintf("%s -> %s: %s moves only %s", scopes[t->src->buffer->scope].name,
	               scopes[t->dst->buffer->scope].name, t->va->name, variant_moves_str(t->va));
}

/* mbar= names the mbarrier a copy completes on: given exactly when the
 * variant's copy into the destination completes so (ir/completion.def). */
const char *pred_completion(const Try *t)
{
	int done = variant_done(t->va, t->dst->buffer->scope);
	bool mbar = call_kw(t->call, "mbar") != NULL;
	if (mbar && done != DONE_MBAR_TX)
		return xprintf("mbar= asks for a copy that completes on the mbarrier (a TMA load); %s completes %s%s, and "
		               "would drop it", t->va->name, done == DONE_NONE ? "" : "in a ", completions[done].name);
	if (!mbar && done == DONE_MBAR_TX)
		return xprintf("%s completes on an mbarrier: name it with mbar=", t->va->name);
	return NULL;
}

const char *pred_plan(const Try *t)
{
	const Family *f = families[t->va->family];
	Plan *p = t->plan;
	if (!f->check)
		return NULL;
	if (!p)
		return "no plan: run txc-align, txc-vectorize and txc-partition first";
	if (p->why)
		return p->why;
	return f->check(p, t->dst);
}

static const struct { const char *name; const char *(*fn)(const Try *); } preds[PR_COUNT] = {
#define PRED(name, doc) [PR_##name] = { #name, pred_##name },
#include "pred.def"
#undef PRED
};

const char *variant_verdict(OpSite *o, const Variant *va, Plan *plan)
{
	Try t = { o, o->call, o->call->args[0]->val, o->call->args[1]->val, plan, va };
	for (int k = 0; k < PR_COUNT; k++) {
		if (!(va->preds & (1u << k)))
			continue;
		const char *why = preds[k].fn(&t);
		if (why)
			return xprintf("%s: %s", preds[k].name, why);
	}
	return NULL;
}
