/* txc-partition: for each plan with a vector width, how the iteration space
 * falls to threads (tirx.md, the partition algorithm, steps 4 and 6). For
 * global <-> shared: vec elements are carved from the innermost iters, then
 * the scope's threads from the iters before them, and what is left is the
 * serial loop: outer = elements / (threads * vec). For a register plan the
 * register layout's thread iters are the threads and each thread loops over
 * its own elements: outer = elements per thread / vec. Records threads= and
 * outer=; a plan that already has them is kept. The rules are the
 * family's (variants/, its partition hook). */
#include "family.h"
#include "chain.h"

static int partition_op(OpSite *o, void *ctx)
{
	(void)ctx;
	Expr *call = o->call;
	int64_t threads = scope_threads(o->func, call->es);
	Plan room[VA_COUNT + 1], *plans;
	int n = read_plans_in(call, room, VA_COUNT + 1, &plans);
	for (int k = 0; k < n; k++) {
		Plan *p = &plans[k];
		int va = variant_lookup(call->intrin, p->variant);
		if (p->why || !p->vec || !p->src || !p->dst || (p->threads && p->outer) || va < 0 ||
		    !families[variants[va].family]->partition)
			continue;
		p->why = families[variants[va].family]->partition(p, call->args[0]->val, threads);
	}
	if (n)
		write_plans(call, plans, n);
	return 1;
}

bool txc_partition(Module *m, Diag *d)
{
	(void)d;
	return walk_tile_ops(m, partition_op, NULL);
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-partition",
	          .summary = "Splits the iteration space of each plan into [outer, threads, vec]: records threads= and outer=." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, txc_partition);
}
#endif
