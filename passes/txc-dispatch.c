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

#include "family.h"
#include "chain.h"

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
	Plan room[VA_COUNT + 1], *plans;
	int nplans = read_plans_in(call, room, VA_COUNT + 1, &plans);
	/* the table sorted once: by_priority orders the variants of one op
	 * totally (their names differ), so filtering the sorted table gives
	 * the order sorting the op's variants would */
	static int order[VA_COUNT];
	static bool sorted;
	if (!sorted) {
		for (int v = 0; v < VA_COUNT; v++)
			order[v] = v;
		qsort(order, VA_COUNT, sizeof order[0], by_priority);
		sorted = true;
	}
	int cand[VA_COUNT], n = 0;
	for (int k = 0; k < VA_COUNT; k++)
		if (variants[order[k]].op == call->intrin)
			cand[n++] = order[k];
	Kw *forced = call_kw(call, "dispatch");
	const TvmVariant *tv = forced ? tvm_variant_lookup(call->intrin, forced->value->str) : NULL;
	if (tv && tv->why) {
		error_at(ctx->d, forced->value->pos, "not supported yet: dispatch=\"%s\": %s", tv->name, tv->why);
		return -1;
	}
	if (tv) {
		/* TVM's name: its txc variants, tried in the order of all candidates */
		int m = 0;
		for (int i = 0; i < n; i++) {
			const char *p = tv->variants, *name = variants[cand[i]].name;
			size_t k = strlen(name);
			for (; *p; p += strspn(p, " ")) {
				size_t w = strcspn(p, " ");
				if (w == k && strncmp(p, name, k) == 0)
					cand[m++] = cand[i];
				p += w;
			}
		}
		n = m;
	} else if (forced) {
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
	Plan *plan[VA_COUNT]; /* each candidate's, found once */
	int chosen = -1;
	for (int i = 0; i < n; i++) {
		Plan *p = plan[i] = find_plan(plans, nplans, variants[cand[i]].name);
		why[i] = chosen < 0 ? variant_verdict(o, &variants[cand[i]], p) : "not tried";
		if (!why[i] && tv && tv->bytes && p && p->vec * dtype_bytes(call->args[0]->val->buffer->dtype) != tv->bytes)
			why[i] = xprintf("dispatch=\"%s\" asks for %d-byte accesses; this copy's plan moves %lld bytes per access",
			                 tv->name, tv->bytes, (long long)(p->vec * dtype_bytes(call->args[0]->val->buffer->dtype)));
		if (chosen < 0 && !why[i])
			chosen = i;
	}
	/* the op as written, for the messages alone */
	bool fallback = chosen >= 0 && variants[cand[chosen]].family == FAM_FALLBACK && !forced;
	char *op = ctx->explain || chosen < 0 || fallback ? expr_str(call->a) : NULL;
	if (ctx->explain) {
		fprintf(stderr, "%s:%d:%d: %s: %d candidate%s\n", pos_name(call->pos), call->pos.line, call->pos.col, op,
		        n, n == 1 ? "" : "s");
		for (int i = 0; i < n; i++) {
			const Variant *va = &variants[cand[i]];
			Plan *p = plan[i];
			if (i == chosen && p)
				fprintf(stderr, "    %-12s %3d  chosen: vec %lld, threads %lld, outer %lld\n", va->name, va->priority,
				        (long long)p->vec, (long long)p->threads, (long long)p->outer);
			else
				fprintf(stderr, "    %-12s %3d  %s\n", va->name, va->priority, i == chosen ? "chosen" : why[i]);
		}
	}
	if (chosen < 0) {
		error_at(ctx->d, call->pos, "no variant of %s can run this %s%s", op, call->intrin == IN_GEMM_ASYNC ? "op" : "copy", n ? ":" : " (none is registered)");
		for (int i = 0; i < n; i++)
			fprintf(ctx->d->out ? ctx->d->out : stderr, "    %-12s %3d  %s\n", variants[cand[i]].name,
			        variants[cand[i]].priority, why[i]);
		return -1;
	}
	const Variant *va = &variants[cand[chosen]];
	if (fallback) {
		Buf rules = {0};
		bputs(&rules, "");
		for (int i = 0; i < chosen; i++)
			bprintf(&rules, "; %s: %s", variants[cand[i]].name, why[i]);
		warn_at(ctx->d, call->pos, "%s falls back to a scalar copy by one thread%s", op, rules.s);
	}
	/* one dispatch="NAME" node for each variant, shared by the ops it runs:
	 * the next passes read its string, nothing changes it */
	static Expr *named[VA_COUNT];
	Expr **name = &named[cand[chosen]];
	if (!*name) {
		*name = new_expr(E_STR, (Pos){0});
		(*name)->str = va->name;
	}
	set_kw(call, "dispatch", *name);
	Plan *p = plan[chosen];
	write_plans(call, p, p ? 1 : 0);
	return 1;
}

bool txc_dispatch(Module *m, Diag *d, bool explain)
{
	Ctx ctx = { d, explain };
	return walk_tile_ops(m, dispatch_op, &ctx);
}

#ifndef TXC_CHAIN
static bool explain;

static bool pass(Module *m, Diag *d) { return txc_dispatch(m, d, explain); }

int main(int argc, char **argv)
{
	const char *target = NULL;
	Opt opts[] = {
		{ "--target", "ARCH", "choose variants for ARCH (sm_80, sm_90, sm_90a, sm_100a): one whose instruction ARCH lacks declines (default: any)", &target, NULL },
		{ "--explain", NULL, "print every candidate variant of every tile op and its verdict (to stderr)", NULL, &explain },
		{ 0 },
	};
	Cli c = { .prog = "txc-dispatch", .opts = opts,
	          .summary = "Chooses the variant of every tile op (dispatch=) from the table ir/variant.def." };
	cli_parse(&c, argc, argv);
	if (target && (variant_target = target_lookup(target)) < 0)
		cli_usage_error(&c, "unknown target '%s' (expected sm_80, sm_90, sm_90a or sm_100a)", target);
	return run_pass(&c, TG_ANY, pass);
}
#endif
