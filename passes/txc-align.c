/* txc-align: for each tile op and each candidate variant that needs a plan,
 * writes both operands as layouts over one iteration space (tirx.md, the
 * partition algorithm, steps 1 and 2), through its family's hook
 * (variants/): each region is sliced out of its
 * buffer's layout, with a symbolic start moved into a base offset; the two
 * sides are split to common extents; for global <-> shared the iters are
 * ordered by the global side's strides, outermost first; iters that continue
 * each other on both sides are fused. A variant that does not move data
 * between the operands' scopes (ir/variant.def, its pairs), or does not
 * run at the op's scope (a one-thread variant at warp scope), gets no plan
 * (dispatch says why); one whose layouts cannot be aligned gets a plan with
 * why="...". Plans already present are kept as they are. */
#include <string.h>

#include "family.h"
#include "chain.h"

static int align_op(OpSite *o, void *ctx)
{
	(void)ctx;
	Expr *call = o->call;
	const Value *dst = call->args[0]->val, *src = call->args[1]->val;
	Plan *old;
	int nold = read_plans(call, &old);
	Plan plans[VA_COUNT];
	int n = 0;
	for (int v = 0; v < VA_COUNT; v++) {
		const Variant *va = &variants[v];
		const Family *fam = families[va->family];
		if (va->op != call->intrin || !fam->align)
			continue;
		Plan *given = find_plan(old, nold, va->name);
		if (given) {
			plans[n++] = *given;
			continue;
		}
		if (!variant_moves(va, src->buffer->scope, dst->buffer->scope) || !variant_scope_ok(o, va))
			continue;
		Plan p = { .variant = va->name, .family = va->family };
		const char *why = NULL;
		if (!fam->align(&p, va, dst, src, &why))
			p.why = why;
		plans[n++] = p;
	}
	if (n)
		write_plans(call, plans, n);
	return 1;
}

bool txc_align(Module *m, Diag *d)
{
	(void)d;
	return walk_tile_ops(m, align_op, NULL);
}

#ifndef TXC_CHAIN
int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-align",
	          .summary = "Aligns the operands of every tile op: for each candidate variant that needs one, "
	                     "records both operands as layouts over one iteration space (plans=[T.plan(...)])." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, txc_align);
}
#endif
