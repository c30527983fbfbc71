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
 * plan with vec= already set is kept. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Offsets of a side: the layout's own and the symbolic base. */
static bool base_ok(const Layout *l, const Expr *base, int64_t vec)
{
	if (l->off[AX_M] % vec)
		return false;
	return !base || expr_divisible(base, vec);
}

/* A swizzled side: a vector may not cross a 2^M-element chunk. */
static bool swizzle_ok(const Layout *l, int64_t vec)
{
	return !l->swizzled || vec <= ((int64_t)1 << l->swz_m);
}

/* Memory-axis strides other than the innermost iter's, multiples of vec;
 * for a register plan, thread strides of the memory side too. */
static bool strides_ok(const Layout *l, int skip, int64_t vec)
{
	for (int i = 0; i < l->nshard; i++) {
		if (i == skip || l->shard[i].extent == 1)
			continue;
		if (axes[l->shard[i].axis].kind == AXK_THREAD)
			continue;
		if (l->shard[i].stride % vec)
			return false;
	}
	return true;
}

/* The index of the innermost iter that carries data for one thread: the
 * last iter, or for a register plan the last one the register side holds
 * on m (thread iters are spread over threads, not over one access). */
static int innermost(const Layout *reg)
{
	for (int i = reg->nshard - 1; i >= 0; i--)
		if (axes[reg->shard[i].axis].kind != AXK_THREAD)
			return i;
	return -1;
}

static const char *try_vec(const Plan *p, const Layout *reg, int64_t vec, int64_t threads, int64_t elements)
{
	const Layout *d = p->dst, *s = p->src;
	int in = reg ? innermost(reg) : d->nshard - 1;
	if (in < 0)
		return "no elements per thread";
	const Iter *di = &d->shard[in], *si = &s->shard[in];
	if (vec > 1) {
		if (di->axis != AX_M || si->axis != AX_M || di->stride != 1 || si->stride != 1)
			return "the innermost iter is not contiguous on both sides";
		if (di->extent % vec)
			return "the contiguous run is shorter than the vector";
		if (!strides_ok(d, in, vec) || !strides_ok(s, in, vec))
			return "a stride is not a multiple of the vector";
		if (!base_ok(d, p->dst_base, vec) || !base_ok(s, p->src_base, vec))
			return "an offset is not provably a multiple of the vector";
		if (!swizzle_ok(d, vec) || !swizzle_ok(s, vec))
			return "the vector would cross a swizzle chunk";
		if (reg) {
			/* every thread's memory-side start aligned: its thread strides */
			const Layout *mem = reg == d ? s : d;
			for (int i = 0; i < reg->nshard; i++)
				if (axes[reg->shard[i].axis].kind == AXK_THREAD && reg->shard[i].extent > 1 &&
				    mem->shard[i].stride % vec)
					return "a thread's start on the memory side is not a multiple of the vector";
		}
	}
	if (!reg && elements % (threads * vec))
		return "the elements do not divide over threads x vector";
	if (reg) {
		int64_t per = 1;
		for (int i = 0; i < reg->nshard; i++)
			if (axes[reg->shard[i].axis].kind != AXK_THREAD)
				per *= reg->shard[i].extent;
		if (per % vec)
			return "the elements of a thread do not divide by the vector";
	}
	return NULL;
}

static int vectorize_op(OpSite *o, void *ctx)
{
	(void)ctx;
	Expr *call = o->call;
	const Value *dst = call->args[0]->val;
	int dt = dst->buffer->dtype;
	int bits = dtypes[dt].bits;
	int64_t elements = region_elements(dst);
	int64_t threads = scope_threads(o->func, call->es);
	Plan *plans;
	int n = read_plans(call, &plans);
	for (int k = 0; k < n; k++) {
		Plan *p = &plans[k];
		int va = variant_lookup(call->intrin, p->variant);
		if (p->why || p->vec || !p->src || !p->dst || va < 0)
			continue;
		const Layout *reg = NULL;
		if (variants[va].plan == PLAN_REG)
			reg = plan_registers(p, dst);
		else if (elements % threads) {
			p->why = xprintf("the region has %lld elements, not a multiple of the %lld threads of the scope",
			                 (long long)elements, (long long)threads);
			continue;
		}
		/* the variant's widths, widest first; then one element, if the
		 * variant takes accesses that narrow (its smallest width is 8 bits) */
		const char *why = "no access width fits", *w = variants[va].vbits;
		bool scalar = false;
		while (*w && !p->vec) {
			int bitsw = atoi(w);
			w += strcspn(w, " ");
			w += strspn(w, " ");
			scalar = bitsw == 8;
			if (bitsw % bits || bitsw < bits)
				continue;
			if (!(why = try_vec(p, reg, bitsw / bits, threads, elements)))
				p->vec = bitsw / bits;
		}
		if (!p->vec && scalar && (why = try_vec(p, reg, 1, threads, elements)) == NULL)
			p->vec = 1;
		if (!p->vec)
			p->why = xprintf("%s (widths of %s bits)", why, variants[va].vbits);
	}
	if (n)
		write_plans(call, plans, n);
	return 1;
}

static bool pass(Module *m, Diag *d)
{
	(void)d;
	return walk_tile_ops(m, vectorize_op, NULL);
}

int main(int argc, char **argv)
{
	Cli c = { .prog = "txc-vectorize",
	          .summary = "Chooses for each plan of each tile op the widest legal vector (vec=), in elements." };
	cli_parse(&c, argc, argv);
	return run_pass(&c, TG_ANY, pass);
}
