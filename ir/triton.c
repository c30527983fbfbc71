/* Triton's layouts in txc's text: NVMMASharedLayout(swizzle_byte_width,
 * element_bitwidth, rank) and TensorMemoryLayout(block=(M, N), col_stride)
 * (doc/txir.md, "Triton's layouts"). As in Triton, the layout has no shape
 * of its own: the constructor checks its arguments (triton_layout_value,
 * for eval.c) and the buffer that takes it gives the shape and the dtype
 * (triton_layout, for set_layout and txc-layout), which makes an ordinary
 * txc layout: a swizzled shared layout (ComposeLayout over a TileLayout on
 * m), or a TileLayout on TLane and TCol. The mappings are those of
 * Triton's nvmmaSharedToLinearLayout and tensorMemoryToLinearLayout
 * (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp). */
#include <string.h>

#include "sema.h"

#define TL_MAX_DIMS 8 /* dimensions of a buffer with a Triton layout */

static bool pow2(int64_t x) { return x > 0 && !(x & (x - 1)); }

static int log2i(int64_t x)
{
	int k = 0;
	while (((int64_t)1 << k) < x)
		k++;
	return k;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---- the constructor ------------------------------------------------------- */

/* Argument `name`, positional operand i (-1: keyword only); NULL if absent. */
static Expr *arg(Sema *S, Expr *e, int i, const char *name, bool *bad)
{
	Kw *k = call_kw(e, name);
	Expr *p = i >= 0 && i < e->nargs ? e->args[i] : NULL;
	if (p && k) {
		error_at(S->d, k->pos, "%s() got multiple values for argument '%s'", fn_name(e), name);
		*bad = true;
	}
	return p ? p : k ? k->value : NULL;
}

static bool is_none(const Value *v) { return !v || v->kind == V_NONE; }

/* A CTA-layout argument that means one CTA: None, [] (cga_layout) or all
 * ones (ctas_per_cga, cta_split_num); cta_order is any order of one CTA. */
static bool one_cta(const char *name, const Value *v)
{
	if (is_none(v))
		return true;
	if (v->kind != V_TUPLE)
		return false;
	if (!strcmp(name, "cga_layout"))
		return v->nelts == 0;
	if (!strcmp(name, "cta_order"))
		return true;
	for (int i = 0; i < v->nelts; i++)
		if (v->elts[i]->kind != V_INT || v->elts[i]->i != 1)
			return false;
	return true;
}

static bool multi_cta(Sema *S, Expr *e, const char *const *names, int n, bool *bad)
{
	for (int i = 0; i < n; i++) {
		Expr *x = arg(S, e, -1, names[i], bad);
		if (x && !one_cta(names[i], x->val)) {
			error_at(S->d, x->pos, "%s(): %s= spreads the layout over several CTAs of a cluster; txc's Triton "
			         "layouts are for one CTA (leave it out)", fn_name(e), names[i]);
			return false;
		}
	}
	return true;
}

static bool int_arg(Sema *S, Expr *x, const char *name, Expr *e, int64_t *out)
{
	if (!x->val || x->val->kind != V_INT) {
		error_at(S->d, x->pos, "%s(): %s must be an integer constant", fn_name(e), name);
		return false;
	}
	*out = x->val->i;
	return true;
}

static bool bool_arg(Expr *x)
{
	return x && x->val && (x->val->kind == V_BOOL || x->val->kind == V_INT) && x->val->i;
}

static Value *nvmma_value(Sema *S, Expr *e, TritonLayout *t)
{
	bool bad = false;
	Expr *sw = arg(S, e, 0, "swizzle_byte_width", &bad), *bits = arg(S, e, 1, "element_bitwidth", &bad);
	Expr *rank = arg(S, e, 2, "rank", &bad), *tr = arg(S, e, 3, "transposed", &bad);
	Expr *fp4 = arg(S, e, 4, "fp4_padded", &bad);
	static const char *const cta[] = { "cga_layout", "ctas_per_cga", "cta_split_num", "cta_order" };
	if (bad || !multi_cta(S, e, cta, 4, &bad) || bad)
		return &verr;
	if (!sw || !bits)
		return fail(S, e->pos, "%s() needs %s", fn_name(e), sw ? "element_bitwidth" : "swizzle_byte_width");
	if (!int_arg(S, sw, "swizzle_byte_width", e, &t->swizzle) || !int_arg(S, bits, "element_bitwidth", e, &t->bits))
		return &verr;
	t->rank = 2;
	if (rank && !int_arg(S, rank, "rank", e, &t->rank))
		return &verr;
	t->at_swizzle = sw->pos, t->at_bits = bits->pos, t->at_rank = rank ? rank->pos : e->pos;
	t->transposed = bool_arg(tr);
	if (t->swizzle != 0 && t->swizzle != 32 && t->swizzle != 64 && t->swizzle != 128)
		return fail(S, sw->pos, "NVMMASharedLayout: swizzle_byte_width must be 0 (none), 32, 64 or 128, not %lld",
		            (long long)t->swizzle);
	if (t->bits != 8 && t->bits != 16 && t->bits != 32 && t->bits != 64)
		return fail(S, bits->pos, "NVMMASharedLayout: element_bitwidth must be 8, 16, 32 or 64, not %lld",
		            (long long)t->bits);
	if (t->rank < 1 || t->rank > TL_MAX_DIMS - 1)
		return fail(S, t->at_rank, "NVMMASharedLayout: rank must be from 1 to %d, not %lld", TL_MAX_DIMS - 1,
		            (long long)t->rank);
	if (t->swizzle && t->rank < 2)
		return fail(S, t->at_rank, "NVMMASharedLayout: a swizzled layout has rank 2 or more (it swizzles rows), not %lld",
		            (long long)t->rank);
	if (t->transposed && t->rank != 2)
		return fail(S, tr->pos, "NVMMASharedLayout: transposed=True is supported for rank 2 only, not rank %lld",
		            (long long)t->rank);
	if (bool_arg(fp4))
		return fail(S, fp4->pos, "NVMMASharedLayout: fp4_padded=True (4-bit elements padded to bytes) is not supported");
	Value *v = vnew(V_TLAYOUT);
	v->tl = t;
	return v;
}

static Value *tmem_value(Sema *S, Expr *e, TritonLayout *t)
{
	bool bad = false;
	Expr *block = arg(S, e, 0, "block", &bad), *cs = arg(S, e, 1, "col_stride", &bad);
	Expr *unp = arg(S, e, -1, "unpacked", &bad), *two = arg(S, e, -1, "two_ctas", &bad);
	static const char *const cta[] = { "cta_split_num", "cga_layout" };
	if (bad || !multi_cta(S, e, cta, 2, &bad) || bad)
		return &verr;
	if (!block)
		return fail(S, e->pos, "%s() needs block=(M, N)", fn_name(e));
	if (!cs && !unp)
		return fail(S, e->pos, "%s() needs col_stride", fn_name(e));
	if (cs && unp)
		return fail(S, call_kw(e, "unpacked")->pos, "%s(): give col_stride or the older unpacked=, not both",
		            fn_name(e));
	Value *b = block->val;
	if (!b || b->kind != V_TUPLE || b->nelts != 2 || b->elts[0]->kind != V_INT || b->elts[1]->kind != V_INT)
		return fail(S, block->pos, "TensorMemoryLayout: block is (M, N), two integer constants");
	t->block_m = b->elts[0]->i, t->block_n = b->elts[1]->i;
	t->at_block = block->pos;
	if (t->block_m != 64 && t->block_m != 128)
		return fail(S, block->pos, "TensorMemoryLayout: block M (the lanes of a block) must be 64 or 128, not %lld",
		            (long long)t->block_m);
	if (!pow2(t->block_n) || t->block_n > 512)
		return fail(S, block->pos, "TensorMemoryLayout: block N must be a power of two from 1 to 512, not %lld",
		            (long long)t->block_n);
	if (cs) {
		if (!int_arg(S, cs, "col_stride", e, &t->col_stride))
			return &verr;
		t->at_stride = cs->pos;
		if (t->col_stride != 1 && t->col_stride != 2 && t->col_stride != 4)
			return fail(S, cs->pos, "TensorMemoryLayout: col_stride must be 1, 2 or 4 (32 / bits at most), not %lld",
			            (long long)t->col_stride);
	} else {
		t->unpacked = bool_arg(unp);
		t->at_stride = unp->pos;
	}
	if (bool_arg(two))
		return fail(S, two->pos, "TensorMemoryLayout: two_ctas=True (one layout over the two CTAs of cta_group::2) "
		            "is not supported; txc's kernels use cta_group::1");
	Value *v = vnew(V_TLAYOUT);
	v->tl = t;
	return v;
}

Value *triton_layout_value(Sema *S, Expr *e, int id)
{
	TritonLayout *t = xalloc(sizeof *t);
	t->kind = id;
	t->at = t->at_swizzle = t->at_bits = t->at_rank = t->at_block = t->at_stride = e->pos;
	return id == IN_NVMMA_SHARED ? nvmma_value(S, e, t) : tmem_value(S, e, t);
}

/* ---- the layout for a buffer --------------------------------------------------- */

/* Triton's nvmmaSharedToLinearLayout. The TMA box (getTMABlockShape): each
 * dimension at most 256, the contiguous one exactly the swizzle width W =
 * 8 * swizzle_byte_width / bits (no swizzle: at most 256 too). Within the
 * box the offsets are row-major (the contiguous dimension innermost), the
 * swizzle XORs the 16-byte chunk of a row with its row in the 8-row atom
 * (getCoreMatrixLinearLayout; by address here, which is the same since a
 * row is one swizzle span); then the box repeats along dimension 0, 1, ...
 * (ensureLayoutNotSmallerThan over the dimensions in order). A leading
 * dimension beyond the layout's rank stacks whole layouts (Triton's
 * pipelining dimension). */
static const char *nvmma(Layout *l, const TritonLayout *t, const int64_t *shape, int ndim, int dt, Pos *where)
{
	int bits = dtypes[dt].bits;
	*where = t->at_bits;
	if (bits != t->bits)
		return xprintf("NVMMASharedLayout: element_bitwidth is %lld but the buffer holds %s (%d bits)",
		               (long long)t->bits, dtypes[dt].name, bits);
	int k = (int)t->rank, lead = ndim - k;
	*where = t->at_rank;
	if (lead != 0 && lead != 1)
		return xprintf("NVMMASharedLayout: a layout of rank %d is for a buffer of %d dimensions (or %d, the first "
		               "counting pipeline stages), not of shape %s", k, k, k + 1, shape_tuple(shape, ndim));
	const int64_t *s = shape + lead;
	*where = t->at;
	for (int i = 0; i < k; i++)
		if (!pow2(s[i]))
			return xprintf("NVMMASharedLayout: the dimensions it lays out must be powers of two, as in Triton; "
			               "the buffer's are %s", shape_tuple(s, k));
	/* transposed: dimension 0 is the contiguous one; Triton's layout
	 * without a swizzle is row-major either way */
	bool tr = t->transposed && t->swizzle;
	int c = tr ? 0 : k - 1; /* the contiguous dimension */
	int64_t T[TL_MAX_DIMS], W, rows = 1;
	*where = t->at_swizzle;
	if (t->swizzle) {
		W = t->swizzle * 8 / bits;
		if (s[c] < W)
			return xprintf("NVMMASharedLayout: the contiguous dimension has %lld elements; a %lld-byte swizzle "
			               "spans %lld %s", (long long)s[c], (long long)t->swizzle, (long long)W, dtypes[dt].name);
	} else {
		W = min64(s[c], 256);
	}
	for (int i = 0; i < k; i++) {
		T[i] = i == c ? W : min64(s[i], 256);
		rows *= i == c ? 1 : T[i];
	}
	if (t->swizzle && rows < 8)
		return xprintf("NVMMASharedLayout: the swizzle pattern spans 8 rows; the dimensions other than the "
		               "contiguous one give %lld", (long long)rows);
	/* the box, row-major: dimensions 0..k-1, or (1, 0) transposed */
	int64_t bs[TL_MAX_DIMS], es[TL_MAX_DIMS], stride = 1;
	for (int j = k - 1; j >= 0; j--) {
		int d = tr ? (j + 1) % k : j;
		bs[d] = stride;
		stride *= T[d];
	}
	*where = t->at;
	for (int i = 0; i < k; i++) {
		es[i] = stride;
		if (!mul_ok(stride, s[i] / T[i], &stride))
			return "NVMMASharedLayout: the buffer is too large";
	}
	if (lead && shape[0] > 1)
		layout_push(l, false, shape[0], stride, AX_M);
	for (int i = 0; i < k; i++) {
		if (s[i] / T[i] > 1)
			layout_push(l, false, s[i] / T[i], es[i], AX_M);
		if (T[i] > 1)
			layout_push(l, false, T[i], bs[i], AX_M);
	}
	if (!l->nshard)
		layout_push(l, false, 1, 1, AX_M);
	if (t->swizzle) {
		l->swizzled = true;
		l->swz_m = log2i(128 / bits); /* a 16-byte chunk */
		l->swz_b = log2i(t->swizzle / 16);
		l->swz_s = 3;
	}
	return NULL;
}

/* Triton's tensorMemoryToLinearLayout for one CTA. Element (m, n) of an
 * (M, N) buffer, bN = min(block N, N), cs = col_stride:
 * - block M 128: lane m % 128, TCol cs * (n % bN + bN * (m / 128) +
 *   bN * (M / 128) * (n / bN)): the 128-row blocks of M side by side in
 *   columns, inside the repetitions of N.
 * - block M 64: rows 16q + i (q < 4, i < 16) of a 64-row block in lane
 *   32q + i (the warp quarters' first 16 lanes); lanes 32q + 16 + i hold
 *   the next 64 rows when M > 64, else the next bN columns when N > bN,
 *   else nothing; further blocks repeat in columns as above.
 * A leading dimension stacks whole layouts in columns (Triton's
 * multibuffering: getTmemAllocSizes' columns each). */
static const char *tmem(Layout *l, const TritonLayout *t, const int64_t *shape, int ndim, int dt, Pos *where)
{
	int bits = dtypes[dt].bits;
	*where = t->at;
	if (bits > 32)
		return xprintf("TensorMemoryLayout: tensor memory holds elements of at most 32 bits, not %s", dtypes[dt].name);
	int64_t cs = t->col_stride ? t->col_stride : t->unpacked ? 32 / bits : 1;
	*where = t->at_stride;
	if (cs * bits > 32)
		return xprintf("TensorMemoryLayout: col_stride * bits must be at most 32 (one element per 32-bit column); "
		               "col_stride %lld with %s is %lld", (long long)cs, dtypes[dt].name, (long long)(cs * bits));
	*where = t->at;
	int lead = ndim - 2;
	if (lead != 0 && lead != 1)
		return xprintf("TensorMemoryLayout: the buffer is (M, N), or (stages, M, N), not of shape %s",
		               shape_tuple(shape, ndim));
	int64_t M = shape[lead], N = shape[lead + 1];
	if (!pow2(M) || !pow2(N))
		return xprintf("TensorMemoryLayout: M and N must be powers of two, as in Triton; the buffer's are %s",
		               shape_tuple(shape + lead, 2));
	if (M > ((int64_t)1 << 20) || N > ((int64_t)1 << 20)) /* keeps the products below exact */
		return xprintf("TensorMemoryLayout: the buffer %s is larger than tensor memory (128 lanes x 512 columns)",
		               shape_tuple(shape + lead, 2));
	*where = t->at_block;
	if (M < t->block_m)
		return xprintf("TensorMemoryLayout: block M %lld is larger than the buffer's %lld rows", (long long)t->block_m,
		               (long long)M);
	int64_t bn = min64(t->block_n, N), cols;
	Layout *p = layout_new(); /* one (M, N) layout */
	if (t->block_m == 128 || M > 64) {
		int64_t rm = M / 128, rn = N / bn;
		if (rm > 1)
			layout_push(p, false, rm, bn * cs, AX_TCOL);
		if (t->block_m == 128) {
			layout_push(p, false, 128, 1, AX_TLANE);
		} else {
			layout_push(p, false, 2, 16, AX_TLANE);
			layout_push(p, false, 4, 32, AX_TLANE);
			layout_push(p, false, 16, 1, AX_TLANE);
		}
		if (rn > 1)
			layout_push(p, false, rn, bn * rm * cs, AX_TCOL);
		cols = bn * rm * rn * cs;
	} else {
		layout_push(p, false, 4, 32, AX_TLANE);
		layout_push(p, false, 16, 1, AX_TLANE);
		cols = bn * cs;
		if (N > bn) {
			if (N / (2 * bn) > 1)
				layout_push(p, false, N / (2 * bn), bn * cs, AX_TCOL);
			layout_push(p, false, 2, 16, AX_TLANE);
			cols = bn * cs * (N / (2 * bn));
		}
	}
	if (bn > 1)
		layout_push(p, false, bn, cs, AX_TCOL);
	*where = t->at;
	if (lead && shape[0] > 1) {
		if (cols * bits % 32)
			return xprintf("TensorMemoryLayout: one (M, N) layout takes %lld bits of a 32-bit column; stages "
			               "are stacked by whole columns", (long long)(cols * bits));
		layout_push(l, false, shape[0], cols, AX_TCOL);
	}
	for (int i = 0; i < p->nshard; i++)
		layout_push(l, false, p->shard[i].extent, p->shard[i].stride, p->shard[i].axis);
	return NULL;
}

const char *triton_layout(Layout *l, const TritonLayout *t, const int64_t *shape, int ndim, int dtype, Pos *where)
{
	*where = t->at;
	if (ndim < 1 || ndim > TL_MAX_DIMS)
		return xprintf("%s: the buffer has %d dimensions", t->kind == IN_NVMMA_SHARED ? "NVMMASharedLayout" :
		               "TensorMemoryLayout", ndim);
	return t->kind == IN_NVMMA_SHARED ? nvmma(l, t, shape, ndim, dtype, where) : tmem(l, t, shape, ndim, dtype, where);
}
