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

int variant_target = TG_ANY;

/* ---- which threads run the op ----------------------------------------------- */

const char *pred_all_threads_active(const Try *t)
{
	OpSite *o = t->site;
	int64_t n = o->func->threads, group = scope_threads(o->func, t->call->es);
	if (group == 1 || (o->nconds == 0 && n > 0 && n % group == 0))
		return NULL; /* every thread, in whole groups */
	bool *on = xalloc((size_t)n);
	for (int64_t tid = 0; tid < n; tid++) {
		on[tid] = true;
		for (int c = 0; c < o->nconds; c++) {
			int64_t v;
			IntEnv env = { int_thread_name, 20000, &tid };
			int k = int_eval(o->conds[c], &env, &v);
			if (k == IV_UNKNOWN)
				return xprintf("cannot tell which threads run it (condition '%s')", expr_str(o->conds[c]));
			if (k == IV_KNOWN && (v != 0) == o->negs[c])
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

bool variant_scope_ok(OpSite *o, const Variant *va)
{
	Try t = { o, o->call, o->call->args[0]->val, o->call->args[1]->val, NULL, va };
	/* the variant's predicates of the two, in ascending order */
	for (unsigned m = va->preds & (P(exec_scope) | P(single_thread)); m; m &= m - 1)
		if (preds[__builtin_ctz(m)].fn(&t))
			return false;
	return true;
}

const char *variant_verdict(OpSite *o, const Variant *va, Plan *plan)
{
	Try t = { o, o->call, o->call->args[0]->val, o->call->args[1]->val, plan, va };
	for (unsigned m = va->preds; m; m &= m - 1) { /* its predicates, in ascending order */
		int k = __builtin_ctz(m);
		const char *why = preds[k].fn(&t);
		if (why)
			return xprintf("%s: %s", preds[k].name, why);
	}
	return NULL;
}
