/* txc-vectorize: for each plan, the widest vector that is legal (tirx.md,
 * the partition algorithm, steps 3 and 5): candidates of 128, 64, 32, 16, 8
 * bits (whole elements), then 1 element; a width is taken when both sides'
 * innermost iter is contiguous for a multiple of it, every other stride and
 * both base offsets are multiples of it (symbolic offsets through the
 * divisibility analysis, a narrower width when it cannot prove one), and a
 * swizzled side keeps each vector inside one swizzle chunk. For the
 * [outer, threads, vec] partition the elements must also divide evenly over
 * threads x vec; for a register plan the per-thread elements over vec, and
 * the memory side of every thread must be aligned (thread strides too). A
 * plan with vec= already set is kept. The rules are the family's
 * (variants/, its vectorize hook). */
#include "family.h"
#include "chain.h"

static int vectorize_op(OpSite *o, void *ctx)
{
	(void)ctx;
	Expr *call = o->call;
	const Value *dst = call->args[0]->val;
	int64_t threads = scope_threads(o->func, call->es);
	Plan room[VA_COUNT + 1], *plans;
	int n = read_plans_in(call, room, VA_COUNT + 1, &plans);
	for (int k = 0; k < n; k++) {
		Plan *p = &plans[k];
		int va = variant_lookup(call->intrin, p->variant);
		if (p->why || p->vec || !p->src || !p->dst || va < 0 || !families[variants[va].family]->vectorize)
			continue;
		p->why = families[variants[va].family]->vectorize(p, &variants[va], dst, call->args[1]->val, threads);
	}
	if (n)
		write_plans(call, plans, n);
	return 1;
}

bool txc_vectorize(Module *m, Diag *d)
{
	(void)d;
	return walk_tile_ops(m, vectorize_op, NULL);
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-vectorize",
	          .summary = "Chooses for each plan of each tile op the widest legal vector (vec=), in elements." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, txc_vectorize);
}
#endif
