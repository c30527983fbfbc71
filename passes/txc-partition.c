/* txc-partition: for each plan with a vector width, how the iteration space
 * falls to threads (tirx.md, the partition algorithm, steps 4 and 6). For
 * global <-> shared: vec elements are carved from the innermost iters, then
 * the scope's threads from the iters before them, and what is left is the
 * serial loop: outer = elements / (threads * vec). For a register plan the
 * register layout's thread iters are the threads and each thread loops over
 * its own elements: outer = elements per thread / vec. Records threads= and
 * outer=; a plan that already has them is kept. */
#include "ir.h"

/* Whether the iteration space (mixed radix, outermost first) has a
 * boundary `at` elements from its inner end: the iters inside it multiply
 * to a divisor q of `at`, and the next iter splits evenly by at / q. */
static const char *boundary(const Layout *l, int64_t at, int64_t threads)
{
	int64_t q = 1;
	for (int i = l->nshard - 1; i >= 0 && q < at; i--) {
		int64_t e = l->shard[i].extent;
		int64_t qe;
		if (!mul_ok(q, e, &qe) || qe > at) {
			if (at % q || e % (at / q))
				return xprintf("%lld threads cannot be carved evenly: an iter of extent %lld does not split by %lld",
				               (long long)threads, (long long)e, (long long)(at % q ? at : at / q));
			return NULL;
		}
		q *= e;
	}
	return q >= at ? NULL : "not enough elements for the threads";
}

static int partition_op(OpSite *o, void *ctx)
{
	(void)ctx;
	Expr *call = o->call;
	int64_t elements = region_elements(call->args[0]->val);
	int64_t threads = scope_threads(o->func, call->es);
	Plan *plans;
	int n = read_plans(call, &plans);
	for (int k = 0; k < n; k++) {
		Plan *p = &plans[k];
		int va = variant_lookup(call->intrin, p->variant);
		if (p->why || !p->vec || !p->src || !p->dst || (p->threads && p->outer) || va < 0)
			continue;
		if (variants[va].plan == PLAN_REG) {
			const Layout *reg = plan_registers(p, call->args[0]->val);
			int64_t per = 1, spread = 1;
			for (int i = 0; i < reg->nshard; i++) {
				if (axes[reg->shard[i].axis].kind == AXK_THREAD)
					spread *= reg->shard[i].extent;
				else
					per *= reg->shard[i].extent;
			}
			if (spread > threads) {
				p->why = xprintf("the register layout spreads over %lld threads, more than the %lld of the scope",
				                 (long long)spread, (long long)threads);
				continue;
			}
			p->threads = threads;
			p->outer = per / p->vec;
			continue;
		}
		int64_t tv;
		if (!mul_ok(threads, p->vec, &tv) || tv > elements || elements % tv) {
			p->why = xprintf("%lld elements do not divide into %lld threads x %lld", (long long)elements,
			                 (long long)threads, (long long)p->vec);
			continue;
		}
		const char *why = boundary(p->src, tv, threads);
		if (why) {
			p->why = why;
			continue;
		}
		p->threads = threads;
		p->outer = elements / (threads * p->vec);
	}
	if (n)
		write_plans(call, plans, n);
	return 1;
}

static bool pass(Module *m, Diag *d)
{
	(void)d;
	return walk_tile_ops(m, partition_op, NULL);
}

int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-partition",
	          .summary = "Splits the iteration space of each plan into [outer, threads, vec]: records threads= and outer=." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, pass);
}
