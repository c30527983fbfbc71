/* txc-vectorize's rules for the families that plan a pair of layouts
 * (tirx.md, the partition algorithm, steps 3 and 5): which access widths
 * the layouts allow. */
#include <stdlib.h>
#include <string.h>

#include "family.h"

/* ---- the vector (txc-vectorize) ------------------------------------------------ */

/* Offsets of a side: the layout's own and the symbolic base. */
static bool base_ok(const Layout *l, const Expr *base, int64_t vec)
{
	if (l->off[AX_M] % vec)
		return false;
	/* most bases are the 0 of constant starts (align.c's zero_base),
	 * which every vec divides */
	return !base || (base->kind == E_INT && base->ival == 0) || expr_divisible(base, vec);
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
 * on m (thread iters are spread over threads, not over one access); -1
 * when a thread holds one element. */
static int innermost(const Layout *reg)
{
	for (int i = reg->nshard - 1; i >= 0; i--)
		if (axes[reg->shard[i].axis].kind != AXK_THREAD)
			return i;
	return -1;
}

static int64_t gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int64_t buffer_grain(const Buffer *buf)
{
	const Buffer *b = buffer_root((Buffer *)buf);
	if (!b->dyn)
		return 0;
	int64_t inner = 1; /* at most 2^40: the buffer's size is checked */
	for (int d = 1; d < b->ndim; d++)
		inner *= b->shape[d];
	/* a vector is at most 256 elements: the factors of 1024 are enough */
	return gcd(inner, 1024) * gcd(b->dyn->mult ? b->dyn->mult : 1, 1024);
}

int64_t plan_grain(const Value *dst, const Value *src)
{
	int64_t g = 0;
	const Value *v[2] = { dst, src };
	for (int i = 0; i < 2; i++) {
		int64_t k = v[i] && v[i]->buffer ? buffer_grain(v[i]->buffer) : 0;
		if (k)
			g = g ? gcd(g, k) : k;
	}
	return g;
}

const char *plan_vec_why(const Plan *p, const Layout *reg, int64_t vec, int64_t threads, int64_t elements,
                         int64_t grain)
{
	const Layout *d = p->dst, *s = p->src;
	/* the iters from the innermost that the two sides pair; a register
	 * plan's others are each side's own (plan_align_inner) */
	int paired = plan_paired(p);
	if (!reg && (d->nshard != s->nshard || paired != d->nshard))
		return "its two layouts do not run over one iteration space";
	int in = reg ? innermost(reg) : d->nshard - 1;
	if (in < 0) /* one element per thread: the thread iters hold them all */
		return vec > 1 ? "a thread holds one element" : NULL;
	int from_end = (reg ? reg->nshard : d->nshard) - 1 - in;
	if (vec > 1) {
		if (from_end >= paired)
			return "the innermost iter of a thread's elements is not split in common with the other side";
		int ind = d->nshard - 1 - from_end, ins = s->nshard - 1 - from_end;
		const Iter *di = &d->shard[ind], *si = &s->shard[ins];
		if (di->axis != AX_M || si->axis != AX_M || di->stride != 1 || si->stride != 1)
			return "the innermost iter is not contiguous on both sides";
		if (di->extent % vec)
			return "the contiguous run is shorter than the vector";
		if (!strides_ok(d, ind, vec) || !strides_ok(s, ins, vec))
			return "a stride is not a multiple of the vector";
		if (!base_ok(d, p->dst_base, vec) || !base_ok(s, p->src_base, vec))
			return "an offset is not provably a multiple of the vector";
		if (!swizzle_ok(d, vec) || !swizzle_ok(s, vec))
			return "the vector would cross a swizzle chunk";
		if (grain && grain % vec)
			return xprintf("the vector could cross the end of a buffer of symbolic extent (its rows of elements "
			               "times the extent are a known multiple of only %lld; T.assume(P %% K == 0) on the "
			               "extent P tells more)", (long long)grain);
		if (reg) {
			/* every thread's memory-side start aligned: its thread strides
			 * (an unpaired thread iter reaches the memory side through
			 * that side's own iters, whose strides are checked above) */
			const Layout *mem = reg == d ? s : d;
			for (int i = reg->nshard - paired; i < reg->nshard; i++)
				if (axes[reg->shard[i].axis].kind == AXK_THREAD && reg->shard[i].extent > 1 &&
				    mem->shard[i - reg->nshard + mem->nshard].stride % vec)
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


const char *plan_widest(Plan *p, const Variant *va, const Layout *reg, int elem_bits, int64_t threads,
                        int64_t elements, int64_t grain)
{
	/* the variant's widths, widest first; then one element, if the
	 * variant takes accesses that narrow (its smallest width is 8 bits) */
	const char *why = "no access width fits";
	for (int k = 5; k >= 0 && !p->vec; k--) {
		int bitsw = 8 << k;
		if (!(va->widths & (1u << k)) || bitsw % elem_bits || bitsw < elem_bits)
			continue;
		if (!(why = plan_vec_why(p, reg, bitsw / elem_bits, threads, elements, grain)))
			p->vec = bitsw / elem_bits;
	}
	if (!p->vec && (va->widths & W_8) && (why = plan_vec_why(p, reg, 1, threads, elements, grain)) == NULL)
		p->vec = 1;
	return p->vec ? NULL : xprintf("%s (widths of %s bits)", why, variant_widths(va));
}
