/* The tcgen05_mma family: Tx.gemm_async(C, A, B) by one thread, as
 * tcgen05.mma .kind::f16 instructions (issue 12; doc/tcgen05-mma.md for
 * the instruction, doc/txir.md "tcgen05_mma" for the plan).
 *
 * C is a float32 window of tensor memory, M x N; A (M x K, or K x M with
 * transA=True) and B (N x K, or K x N with transB=True) float16 or
 * bfloat16 regions of shared memory. The plan is computed from the
 * layouts, element by element:
 *   - C: element (m, n) of the window in column c0 + n of lane L0 + m
 *     (M = 128, data-path layout D, L0 = 0) or L0 + 32 (m / 16) + m % 16
 *     (M = 64, layout F, L0 = 0 or 16);
 *   - the instruction N (mma_n=, else the widest legal N <= 256 dividing
 *     the window's N), one MMA per N block and per 16 of K;
 *   - A and B, per MMA, a shared-memory descriptor: for every element
 *     (r, k) of the MMA's R x 16 operand, its byte offset (the layout
 *     before its swizzle) is start + the canonical layout's offset of
 *     (r, k) (CUTLASS's make_umma_desc comments; ISA 9.7.16.3), K-major
 *     first, else MN-major (the transpose bit of the instruction
 *     descriptor):
 *       K-major, no swizzle: (r>>3) SBO + (r&7) 16 + (k>>3) LBO + (k&7) e
 *       K-major, span P:     (r>>3) SBO + (r&7) P  + (k>>3) 16  + (k&7) e
 *       MN-major, no swizzle: (r>>3) SBO + (r&7) e + (k&7) 16 + (k>>3) LBO
 *       MN-major, span P:    (r/W) LBO + (r%W) e + (k&7) P + (k>>3) SBO
 *     with e the element's bytes and W = P / e; the layout's swizzle must
 *     be the descriptor's (the 16-byte chunk XOR bits [7:7+b) of the
 *     address) and the buffer start at a multiple of its 8-row pattern,
 *     so that the swizzle of offsets is the hardware's of addresses;
 *   - a run-time start of a region (a stage of a ring, a column window of
 *     C) must move every element by the same amount: the layout is
 *     checked to be linear in that dimension over the whole buffer, and
 *     the descriptor's start (C's column) gets start * stride.
 * Lowering: the instruction descriptor once
 * (T.cuda.tcgen05.encode_instr_descriptor), then per MMA A's and B's
 * descriptors (T.cuda.tcgen05.encode_matrix_descriptor) and
 * T.ptx.tcgen05.mma, enable_input_d = accum= for the first MMA of each N
 * block, True for the others. Completion is the caller's:
 * T.ptx.tcgen05.commit(mbar) and a wait.
 *
 * Block-scaled (SFA=, SFB=; doc/tcgen05-mma.md "Block-scaled MMA"): A and
 * B float8_e4m3fn / float8_e5m2, K-major only, M = 128; one MMA
 * .kind::mxf8f6f4 per N block and per 32 of K (32 bytes a row: the same
 * canonical layouts with the K offset counted in bytes). SFA (M x kx)
 * and SFB (N x kx) are regions of uint8 tensor memory, kx = K/32 (K block
 * t reads column t of the region) or 1 (every K block reads column 0).
 * Per MMA, each scale is placed through its layout and replicas: row r of
 * the block must be in lane 32 q + r % 32 for every quarter q, 32-bit
 * column c + r / 32, byte id (TCol counts bytes), c and id those of row
 * 0; the MMA gets scale address (lane 0, column c) from the region's
 * allocated_addr, and T.cuda.tcgen05.encode_instr_descriptor_block_scaled
 * is emitted again whenever (a_sf_id, b_sf_id) changes. */
#include <string.h>

#include "family.h"

/* A or B */
typedef struct Side {
	const char *name;   /* "A" or "B" */
	const Value *v;
	const Buffer *b;
	Layout *lu;         /* the layout without its swizzle */
	int rdim, kdim;     /* the region's dimensions of M (N) and of K */
	int64_t *co;        /* the region's first element (run-time starts: 0) */
	Expr *dyn;          /* the run-time part of the offset (elements), or NULL */
	int64_t eb;         /* bytes per element */
	int swz;            /* the encoder's swizzle: 0 none, 1 32B, 2 64B, 3 128B */
	int64_t pitch;      /* the span P, 16 without a swizzle */
	bool mn;            /* MN-major */
	int64_t kk;         /* K of one MMA (elements): 16 (.kind::f16) or 32 (.kind::mxf8f6f4) */
	bool kmajor_only;   /* block-scaled: K-major descriptors only */
} Side;

/* SFA or SFB (block-scaled): a (rows, kx) region of uint8 tensor memory */
typedef struct Sf {
	const char *name;   /* "SFA" or "SFB" */
	const Value *v;
	const Buffer *b;
	Expr *alloc;        /* its allocated_addr */
	int64_t co[2];      /* the region's first element */
	int64_t kx;         /* K/32 (a scale per 32 of K) or 1 (one for all of K) */
} Sf;

typedef struct Mma1 {
	int64_t col;        /* C's column of the block (the constant part) */
	int64_t ast, bst;   /* the descriptors' starts (elements, the constant part) */
	int64_t alb, asb, blb, bsb; /* LBO, SBO (bytes) */
	bool first;         /* the first MMA of its N block: enable_input_d = accum */
	int64_t sac, sbc;   /* block-scaled: the scales' 32-bit columns (from their allocated_addr) */
	int aid, bid;       /* block-scaled: the scale-factor ids (the byte of the scale cells) */
} Mma1;

typedef struct Gemm {
	Side A, B;
	const Buffer *cb;
	Expr *alloc;        /* C's allocated_addr */
	int64_t lane0, col0;
	Expr *cdyn;         /* the run-time part of C's column, or NULL */
	int64_t M, N, K, nn; /* nn: the instruction N */
	int dt;
	bool scaled;        /* SFA=/SFB=: .kind::mxf8f6f4.block_scale */
	Sf sfa, sfb;
	Mma1 *v;
	int n;
} Gemm;

static bool const_start(const Expr *e, int64_t *out)
{
	if (e->kind == E_INT) {
		*out = e->ival;
		return true;
	}
	if (e->val && e->val->kind == V_INT) {
		*out = e->val->i;
		return true;
	}
	return false;
}

/* The layout's value on axis ax at coordinate co of buffer b. */
static bool at(const Layout *l, const Buffer *b, const int64_t *co, int ax, int64_t *out)
{
	int64_t a[AX_COUNT];
	if (!layout_apply_coord(l, b->shape, b->ndim, co, a))
		return false;
	*out = a[ax];
	return true;
}

/* NULL when, over the whole buffer, the layout's value on axis ax moves by
 * x_d * *stride along dimension d; else why not. */
static const char *linear(const Layout *l, const Buffer *b, int d, int ax, int64_t *stride)
{
	int nd = b->ndim;
	int64_t *x = xalloc(sizeof(int64_t) * (size_t)nd), *y = xalloc(sizeof(int64_t) * (size_t)nd);
	int64_t f0, f1;
	memset(x, 0, sizeof(int64_t) * (size_t)nd);
	if (b->shape[d] < 2) {
		*stride = 0;
		return NULL;
	}
	memset(y, 0, sizeof(int64_t) * (size_t)nd);
	x[d] = 1;
	if (!at(l, b, y, ax, &f0) || !at(l, b, x, ax, &f1))
		return "the layout overflows";
	*stride = f1 - f0;
	memset(x, 0, sizeof(int64_t) * (size_t)nd);
	for (;;) {
		memcpy(y, x, sizeof(int64_t) * (size_t)nd);
		y[d] = 0;
		if (!at(l, b, x, ax, &f1) || !at(l, b, y, ax, &f0))
			return "the layout overflows";
		if (f1 != f0 + x[d] * *stride) {
			Buf s = {0};
			for (int i = 0; i < nd; i++)
				bprintf(&s, "%s%lld", i ? ", " : "", (long long)x[i]);
			return xprintf("the layout of '%s' does not move every element by the same amount along dimension %d "
			               "(element (%s) is at %lld, not %lld + %lld * %lld)", b->name, d, s.s, (long long)f1,
			               (long long)f0, (long long)x[d], (long long)*stride);
		}
		int i = nd - 1;
		while (i >= 0 && ++x[i] == b->shape[i])
			x[i--] = 0;
		if (i < 0)
			return NULL;
	}
}

/* The run-time part of a region's offset on axis ax: sum of start_d *
 * stride_d over the dimensions whose start is not a constant (their
 * constant part taken as 0 in co). */
static const char *dynamic(const Value *v, const Buffer *b, const Layout *l, int ax, int64_t *co, Expr **dyn,
                           bool *any)
{
	*dyn = NULL;
	*any = false;
	for (int d = 0; d < v->ndim; d++) {
		if (const_start(v->starts[d], &co[d]))
			continue;
		co[d] = 0;
		int64_t s;
		const char *why = linear(l, b, d, ax, &s);
		if (why)
			return xprintf("a run-time start ('%s'): %s", expr_str(v->starts[d]), why);
		*any = true;
		if (s) {
			Expr *t = ex_mul(v->starts[d], ex_int(s));
			*dyn = *dyn ? ex_add(*dyn, t) : t;
		}
	}
	return NULL;
}

/* A or B: its memory, swizzle, the dimensions of the matrix. */
static const char *side(Side *s, const char *name, const Value *v, bool trans)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->v = v;
	s->b = v->buffer;
	Buffer *root = buffer_root((Buffer *)s->b);
	if (root != s->b)
		return xprintf("not supported yet: %s is the view '%s' of '%s'", name, s->b->name, root->name);
	int nd = v->ndim;
	for (int d = 0; d + 2 < nd; d++)
		if (v->extents[d] != 1)
			return xprintf("%s's region has %d dimensions; all but the last two must have extent 1 (one stage of "
			               "a ring: %s[s, :, :])", name, nd, s->b->name);
	if (nd < 2)
		return xprintf("%s's region is a matrix: two dimensions at least", name);
	s->rdim = trans ? nd - 1 : nd - 2;
	s->kdim = trans ? nd - 2 : nd - 1;
	s->eb = dtype_bytes(s->b->dtype);
	const Layout *ls = buffer_layout(s->b);
	s->swz = 0;
	s->pitch = 16;
	if (ls->swizzled) {
		int m = s->eb == 2 ? 3 : s->eb == 4 ? 2 : s->eb == 1 ? 4 : -1;
		if (ls->swz_m != m || ls->swz_s != 3 || ls->swz_b < 1 || ls->swz_b > 3)
			return xprintf("the swizzle of '%s' (ComposeLayout(%d, %d, %d)) is none of the descriptor's modes: the "
			               "16-byte chunk XOR bits [7:7+b) of the address, b = 1, 2, 3 (32, 64, 128 bytes)",
			               s->b->name, ls->swz_m, ls->swz_b, ls->swz_s);
		s->swz = ls->swz_b;
		s->pitch = 16 << ls->swz_b;
	}
	int64_t need = s->swz ? 8 * s->pitch : 16;
	bool rounded = need <= 16 || (root->layout && root->layout->swizzled) || root->align >= need;
	if (!rounded || root->smem_off % need)
		return xprintf("the descriptor swizzles absolute addresses: '%s' must start at a multiple of %lld bytes; it "
		               "starts at byte %lld%s", root->name, (long long)need, (long long)root->smem_off,
		               rounded ? "" : xprintf(" of a base only 16-byte aligned (allocate it with align=%lld)",
		                                      (long long)need));
	s->lu = layout_copy(ls);
	s->lu->swizzled = false;
	s->co = xalloc(sizeof(int64_t) * (size_t)nd);
	bool any;
	const char *why = dynamic(v, s->b, s->lu, AX_M, s->co, &s->dyn, &any);
	if (why)
		return xprintf("%s: %s", name, why);
	return NULL;
}

/* The byte offset (before the swizzle, the run-time part left out) of
 * element (r, k) of the side's matrix. */
static bool uoff(const Side *s, int64_t r, int64_t k, int64_t *out)
{
	int nd = s->v->ndim;
	int64_t *x = xalloc(sizeof(int64_t) * (size_t)nd);
	memcpy(x, s->co, sizeof(int64_t) * (size_t)nd);
	x[s->rdim] += r;
	x[s->kdim] += k;
	if (!at(s->lu, s->b, x, AX_M, out))
		return false;
	*out *= s->eb;
	return true;
}

/* The canonical layout's byte offset of (r, k) from the start. */
static int64_t canon(const Side *s, bool mn, int64_t r, int64_t k, int64_t lbo, int64_t sbo)
{
	int64_t e = s->eb, P = s->pitch, W = P / e, kb = k * e; /* kb: the byte along K */
	if (!mn)
		return s->swz ? (r >> 3) * sbo + (r & 7) * P + (kb >> 4) * 16 + (kb & 15)
		              : (r >> 3) * sbo + (r & 7) * 16 + (kb >> 4) * lbo + (kb & 15);
	return s->swz ? (r / W) * lbo + (r % W) * e + (k & 7) * P + (k >> 3) * sbo
	              : (r >> 3) * sbo + (r & 7) * e + (k & 7) * 16 + (k >> 3) * lbo;
}

static const char *major_name(bool mn) { return mn ? "MN-major" : "K-major"; }

/* NULL when rows [r0, r0 + R) and K [k0, k0 + 16) of the side are one
 * descriptor of the given major-ness: its start (bytes), LBO and SBO. */
static const char *fit1(const Side *s, bool mn, int64_t r0, int64_t R, int64_t k0, int64_t *st, int64_t *lbo,
                        int64_t *sbo)
{
	int64_t o, W = s->pitch / s->eb;
	if (!uoff(s, r0, k0, st))
		return "the layout overflows";
	*lbo = *sbo = 0;
	if (!mn) {
		if (R > 8 && uoff(s, r0 + 8, k0, &o))
			*sbo = o - *st;
		if (!s->swz && uoff(s, r0, k0 + 16 / s->eb, &o))
			*lbo = o - *st;
		if (s->swz)
			*lbo = 16; /* not used (ISA 9.7.16.3.1: "assumed to be 1") */
	} else if (s->swz) {
		if (R > W && uoff(s, r0 + W, k0, &o))
			*lbo = o - *st;
		if (uoff(s, r0, k0 + 8, &o))
			*sbo = o - *st;
	} else {
		if (R > 8 && uoff(s, r0 + 8, k0, &o))
			*sbo = o - *st;
		if (uoff(s, r0, k0 + 8, &o))
			*lbo = o - *st;
	}
	const char *mode = s->swz ? xprintf("%lld-byte swizzle", (long long)s->pitch) : "no swizzle";
	for (int64_t r = 0; r < R; r++)
		for (int64_t k = 0; k < s->kk; k++) {
			if (!uoff(s, r0 + r, k0 + k, &o))
				return "the layout overflows";
			int64_t want = *st + canon(s, mn, r, k, *lbo, *sbo);
			if (o != want)
				return xprintf("%s, %s (LBO %lld, SBO %lld bytes): element (%lld, %lld) of %s's matrix is at byte "
				               "%lld of '%s', not %lld", major_name(mn), mode, (long long)*lbo, (long long)*sbo,
				               (long long)(r0 + r), (long long)(k0 + k), s->name, (long long)o, s->b->name,
				               (long long)want);
		}
	if (*st % 16 || *lbo % 16 || *sbo % 16 || *lbo < 0 || *sbo < 0 || *lbo >= 16 << 14 || *sbo >= 16 << 14)
		return xprintf("%s: the descriptor needs the start (byte %lld), LBO (%lld) and SBO (%lld) as 16-byte "
		               "multiples, LBO and SBO in 0..2^18", major_name(mn), (long long)*st, (long long)*lbo,
		               (long long)*sbo);
	return NULL;
}

/* K-major first, else MN-major; the major-ness must not change between
 * the MMAs of one op (*mn: -1 until the first). */
static const char *fit(Side *s, int *mn, int64_t r0, int64_t R, int64_t k0, int64_t *st, int64_t *lbo, int64_t *sbo)
{
	const char *w[2] = { NULL, NULL };
	for (int m = 0; m < 2; m++) {
		if ((*mn >= 0 && *mn != m) || (m && s->kmajor_only))
			continue;
		w[m] = fit1(s, m, r0, R, k0, st, lbo, sbo);
		if (!w[m]) {
			*mn = m;
			s->mn = m;
			return NULL;
		}
	}
	return xprintf("no shared-memory descriptor reads rows %lld..%lld, K %lld..%lld of %s ('%s'): %s%s%s%s",
	               (long long)r0, (long long)(r0 + R - 1), (long long)k0, (long long)(k0 + s->kk - 1), s->name,
	               s->b->name, w[0] ? w[0] : "", w[0] && w[1] ? "; " : "", w[1] ? w[1] : "",
	               s->kmajor_only ? " (block-scaled: txc plans K-major 8-bit operands only)" : "");
}

static bool kw_int(const Expr *call, const char *name, int64_t *out)
{
	Kw *k = call_kw(call, name);
	if (!k || !k->value->val || k->value->val->kind != V_INT)
		return false;
	*out = k->value->val->i;
	return true;
}

static bool kw_bool(const Expr *call, const char *name)
{
	Kw *k = call_kw(call, name);
	return k && (k->value->kind == E_TRUE || (k->value->val && k->value->val->kind == V_BOOL && k->value->val->i));
}

/* SFA or SFB: the region, its tensor memory and allocated_addr, its
 * shape: rows x kx, kx = K/32 or 1. */
static const char *sf_side(Sf *f, const char *name, const Expr *call, int64_t rows, const char *what, int64_t K)
{
	memset(f, 0, sizeof *f);
	f->name = name;
	Kw *k = call_kw(call, name);
	const Value *v = k ? k->value->val : NULL;
	if (!v || v->kind != V_REGION)
		return xprintf("%s= is a region of tensor memory", name);
	f->v = v;
	f->b = v->buffer;
	if (v->ndim != 2)
		return xprintf("%s's region has %d dimensions; it is (rows, scales along K)", name, v->ndim);
	for (int d = 0; d < 2; d++)
		if (!const_start(v->starts[d], &f->co[d]))
			return xprintf("not supported yet: a run-time start of %s ('%s')", name, expr_str(v->starts[d]));
	if (v->extents[0] != rows)
		return xprintf("%s has %lld rows and %s %lld: one scale per row of %s", name, (long long)v->extents[0],
		               what, (long long)rows, name[2] == 'A' ? "A" : "B");
	f->kx = v->extents[1];
	if (f->kx != K / MMAS_K && f->kx != 1)
		return xprintf("%s has %lld scales along K; K = %lld takes %lld (one per 32 of K, .scale_vec::1X) or 1 (the "
		               "same scale for all of K)", name, (long long)f->kx, (long long)K, (long long)(K / MMAS_K));
	const Buffer *al = f->b;
	while (al && !al->alloc_addr)
		al = al->base;
	if (!al)
		return xprintf("tensor memory '%s' has no allocated_addr=", f->b->name);
	f->alloc = al->alloc_addr;
	return NULL;
}

/* The scales of rows [r0, r0 + R) for K block j (SFA: rows of A; SFB: of
 * B): element (r0 + r, j) of the region (j = 0 when kx = 1) must be, by the
 * layout and its replicas, in lane 32 q + r % 32 of every quarter q,
 * 32-bit column c + r / 32 (TCol counts the bytes), byte id: the cells
 * tcgen05.mma .scale_vec::1X reads from the scale address (lane 0, column
 * c) and the scale-factor id of the instruction descriptor. */
static const char *sf_at(const Sf *f, int64_t r0, int64_t R, int64_t j, int64_t *col, int *id)
{
	const Layout *l = buffer_layout(f->b);
	int64_t nrep = layout_nreplicas(l);
	if (nrep < 1)
		return xprintf("the layout of '%s' overflows", f->b->name);
	for (int64_t r = 0; r < R; r++) {
		int64_t x[2] = { f->co[0] + r0 + r, f->co[1] + (f->kx == 1 ? 0 : j) }, a[AX_COUNT];
		if (!layout_apply_coord(l, f->b->shape, 2, x, a))
			return xprintf("the layout of '%s' overflows", f->b->name);
		if (r == 0) {
			*col = a[AX_TCOL] >> 2;
			*id = (int)(a[AX_TCOL] & 3);
		}
		int64_t wc = *col + r / 32;
		unsigned seen = 0;
		for (int64_t q = 0; q < nrep; q++) {
			int64_t b[AX_COUNT];
			memcpy(b, a, sizeof b);
			layout_replica(l, q, b);
			if (b[AX_TLANE] % 32 == r % 32 && b[AX_TLANE] >= 0 && b[AX_TLANE] < 128 && b[AX_TCOL] == 4 * wc + *id)
				seen |= 1u << (b[AX_TLANE] / 32);
		}
		if (seen != 15) {
			int q = 0;
			while (seen >> q & 1)
				q++;
			return xprintf("%s: the scale of row %lld for K block %lld (element (%lld, %lld) of '%s') must be in "
			               "lane %lld, column %lld, byte %d of the tensor memory (row %% 32 in each of the four lane "
			               "quarters, the scale address's column + row / 32, the scale-factor id of row 0): the "
			               "layout puts no copy of it in lane %lld there (it is in lane %lld, byte %lld of column %lld)",
			               f->name, (long long)(r0 + r), (long long)j, (long long)x[0], (long long)x[1], f->b->name,
			               (long long)(32 * q + r % 32), (long long)wc, *id, (long long)(32 * q + r % 32),
			               (long long)a[AX_TLANE], (long long)(a[AX_TCOL] & 3), (long long)(a[AX_TCOL] >> 2));
		}
	}
	return NULL;
}

static const char *plan(Gemm *g, const Expr *call)
{
	memset(g, 0, sizeof *g);
	const Value *cv = call->args[0]->val, *av = call->args[1]->val, *bv = call->args[2]->val;
	int64_t cg = 1;
	if (kw_int(call, "cta_group", &cg) && cg != 1)
		return "not supported yet: cta_group=2";
	g->scaled = call_kw(call, "SFA") || call_kw(call, "SFB");
	const char *why;
	if ((why = side(&g->A, "A", av, kw_bool(call, "transA"))) || (why = side(&g->B, "B", bv, kw_bool(call, "transB"))))
		return why;
	int64_t kk = g->scaled ? MMAS_K : MMA_K;
	g->A.kk = g->B.kk = kk;
	g->A.kmajor_only = g->B.kmajor_only = g->scaled;
	g->dt = g->A.b->dtype;
	if (g->scaled) {
		for (int i = 0; i < 2; i++) {
			int d = (i ? g->B.b : g->A.b)->dtype;
			if (d != DT_FP8E4M3 && d != DT_FP8E5M2)
				return xprintf("%s is %s: a block-scaled gemm_async (.kind::mxf8f6f4) takes float8_e4m3fn or "
				               "float8_e5m2", i ? "B" : "A", dtypes[d].name);
		}
	} else if (g->B.b->dtype != g->dt || mma_itype_code(g->dt) < 0)
		return xprintf("A is %s and B %s: .kind::f16 takes both float16 or both bfloat16", dtypes[g->dt].name,
		               dtypes[g->B.b->dtype].name);
	/* C */
	const Buffer *cb = cv->buffer;
	g->cb = cb;
	if (cb->dtype != DT_FLOAT32 || buffer_root((Buffer *)cb)->scope != SC_TMEM)
		return "C is a float32 region of tensor memory";
	if (cv->ndim != 2)
		return xprintf("not supported yet: C's region has %d dimensions; it is a (rows, columns) window", cv->ndim);
	g->M = cv->extents[0];
	g->N = cv->extents[1];
	int64_t am = av->extents[g->A.rdim], ak = av->extents[g->A.kdim];
	int64_t bn = bv->extents[g->B.rdim], bk = bv->extents[g->B.kdim];
	if (g->scaled && g->M != 128)
		return xprintf("C's window has %lld rows: a block-scaled tcgen05.mma with cta_group 1 writes M = 128 rows",
		               (long long)g->M);
	if (g->M != 128 && g->M != 64)
		return xprintf("C's window has %lld rows: tcgen05.mma with cta_group 1 writes M = 128 (data-path layout D) or "
		               "64 (layout F) rows", (long long)g->M);
	int64_t mm;
	if (kw_int(call, "mma_m", &mm) && mm != g->M)
		return xprintf("mma_m=%lld: the instruction's M is the rows of C's window, %lld", (long long)mm,
		               (long long)g->M);
	if (am != g->M)
		return xprintf("A has %lld rows (M%s) and C %lld", (long long)am,
		               kw_bool(call, "transA") ? ", its last dimension with transA=True" : "", (long long)g->M);
	if (bn != g->N)
		return xprintf("B has %lld rows (N%s) and C %lld columns", (long long)bn,
		               kw_bool(call, "transB") ? ", its last dimension with transB=True" : "", (long long)g->N);
	if (ak != bk)
		return xprintf("A's K is %lld and B's %lld", (long long)ak, (long long)bk);
	g->K = ak;
	if (g->K % kk)
		return xprintf("K = %lld: one tcgen05.mma .kind::%s takes K = %lld, so K is a multiple of %lld",
		               (long long)g->K, g->scaled ? "mxf8f6f4" : "f16", (long long)kk, (long long)kk);
	const char *(*shape_invalid)(int, int64_t, int64_t) = g->scaled ? mmas_shape_invalid : mma_shape_invalid;
	int64_t nn = 0;
	if (kw_int(call, "mma_n", &nn)) {
		if (g->N % nn)
			return xprintf("mma_n=%lld does not divide C's %lld columns", (long long)nn, (long long)g->N);
		if ((why = shape_invalid(1, g->M, nn)))
			return xprintf("mma_n=%lld: %s", (long long)nn, why);
	} else {
		for (int64_t n = 256; n > 0 && !nn; n--)
			if (g->N % n == 0 && !shape_invalid(1, g->M, n))
				nn = n;
		if (!nn)
			return xprintf("C's %lld columns: %s", (long long)g->N, shape_invalid(1, g->M, g->N));
	}
	g->nn = nn;
	/* C's cells */
	const Layout *lt = buffer_layout(cb);
	int64_t co[2];
	Expr *ldyn;
	bool any;
	if ((why = dynamic(cv, cb, lt, AX_TLANE, co, &ldyn, &any)))
		return xprintf("C: %s", why);
	if (ldyn)
		return "not supported yet: a run-time start of C that moves its lanes";
	if ((why = dynamic(cv, cb, lt, AX_TCOL, co, &g->cdyn, &any)))
		return xprintf("C: %s", why);
	int64_t x[2] = { co[0], co[1] };
	int64_t a[AX_COUNT];
	if (!layout_apply_coord(lt, cb->shape, 2, x, a))
		return "the layout of C overflows";
	g->lane0 = a[AX_TLANE];
	g->col0 = a[AX_TCOL];
	if (g->M == 128 && g->lane0 != 0)
		return xprintf("C's row %lld is in lane %lld: M = 128 (data-path layout D) fills lanes 0..127, so row 0 of "
		               "the window is in lane 0", (long long)co[0], (long long)g->lane0);
	if (g->M == 64 && g->lane0 != 0 && g->lane0 != 16)
		return xprintf("C's row %lld is in lane %lld: M = 64 (data-path layout F) fills lanes 0..15 or 16..31 of each "
		               "warp's quarter, so row 0 of the window is in lane 0 or 16", (long long)co[0],
		               (long long)g->lane0);
	for (int64_t m = 0; m < g->M; m++)
		for (int64_t n = 0; n < g->N; n++) {
			x[0] = co[0] + m;
			x[1] = co[1] + n;
			if (!layout_apply_coord(lt, cb->shape, 2, x, a))
				return "the layout of C overflows";
			int64_t wl = g->lane0 + (g->M == 128 ? m : 32 * (m / 16) + m % 16), wc = g->col0 + n;
			if (a[AX_TLANE] != wl || a[AX_TCOL] != wc)
				return xprintf("element (%lld, %lld) of C's window is in lane %lld, column %lld of '%s'; tcgen05.mma "
				               "with M = %lld writes it to lane %lld, column %lld (data-path layout %s)", (long long)m,
				               (long long)n, (long long)a[AX_TLANE], (long long)a[AX_TCOL], cb->name,
				               (long long)g->M, (long long)wl, (long long)wc, g->M == 128 ? "D" : "F");
		}
	const Buffer *al = cb;
	while (al && !al->alloc_addr)
		al = al->base;
	if (!al)
		return xprintf("tensor memory '%s' has no allocated_addr=", cb->name);
	g->alloc = al->alloc_addr;
	if (g->scaled && ((why = sf_side(&g->sfa, "SFA", call, g->M, "C", g->K)) ||
	                  (why = sf_side(&g->sfb, "SFB", call, g->N, "C's columns", g->K))))
		return why;
	/* the MMAs */
	int amn = -1, bmn = -1;
	g->v = xalloc(sizeof(Mma1) * (size_t)((g->N / nn) * (g->K / kk)));
	for (int64_t j = 0; j < g->N / nn; j++)
		for (int64_t k = 0; k < g->K; k += kk) {
			Mma1 *m = &g->v[g->n++];
			m->col = g->col0 + j * nn;
			m->first = k == 0;
			int64_t st;
			if ((why = fit(&g->A, &amn, 0, g->M, k, &st, &m->alb, &m->asb)))
				return why;
			m->ast = st / g->A.eb;
			if ((why = fit(&g->B, &bmn, j * nn, nn, k, &st, &m->blb, &m->bsb)))
				return why;
			m->bst = st / g->B.eb;
			if (g->scaled && ((why = sf_at(&g->sfa, 0, g->M, k / kk, &m->sac, &m->aid)) ||
			                  (why = sf_at(&g->sfb, j * nn, nn, k / kk, &m->sbc, &m->bid))))
				return why;
		}
	return NULL;
}

const char *pred_tcgen05_mma(const Try *t)
{
	Gemm g;
	return plan(&g, t->call);
}

const char *gemm_async_why(const Expr *call)
{
	Gemm g;
	return plan(&g, call);
}

static Stmt *expr_stmt(Pos pos, Expr *e)
{
	Stmt *s = new_stmt(S_EXPR, pos);
	s->value = e;
	return s;
}

static Expr *str(const char *s)
{
	Expr *e = new_expr(E_STR, (Pos){0});
	e->str = s;
	return e;
}

static Expr *boolean(bool b) { return new_expr(b ? E_TRUE : E_FALSE, (Pos){0}); }

static Stmt *scalar_decl(Lower *L, Pos pos, const char *base, const char *dt, const char **name)
{
	*name = lower_fresh(L, base);
	lower_take(L, *name);
	Stmt *a = new_stmt(S_ASSIGN, pos);
	vpush(a->targets, a->ntargets, ex_name(*name));
	Expr *d = str(dt);
	a->value = ex_call("T.local_scalar", 1, &d);
	return a;
}

static Stmt *smem_desc(Pos pos, const char *d, const Side *s, int64_t st, int64_t lbo, int64_t sbo)
{
	Expr *ad = ex_name(d);
	Expr *off = s->dyn ? ex_add(ex_int(st), s->dyn) : ex_int(st);
	Expr *po[2] = { ex_name(s->b->name), off };
	Expr *ea[5] = { ex_call("T.address_of", 1, &ad), ex_call("T.pointer_offset", 2, po), ex_int(lbo / 16),
	                ex_int(sbo / 16), ex_int(s->swz) };
	return expr_stmt(pos, ex_call("T.cuda.tcgen05.encode_matrix_descriptor", 5, ea));
}

/* The instruction descriptor's encoder: .kind::f16, or the block-scaled
 * one with the scale-factor ids aid, bid. */
static Expr *idesc_call(const Gemm *g, const char *id, int aid, int bid)
{
	Expr *ie = ex_name(id);
	Expr *ia = ex_call("T.address_of", 1, &ie);
	Expr *enc = ex_call(g->scaled ? "T.cuda.tcgen05.encode_instr_descriptor_block_scaled"
	                              : "T.cuda.tcgen05.encode_instr_descriptor", 1, &ia);
	set_kw(enc, "d_dtype", str("float32"));
	set_kw(enc, "a_dtype", str(dtypes[g->A.b->dtype].name));
	set_kw(enc, "b_dtype", str(dtypes[g->B.b->dtype].name));
	if (g->scaled) {
		set_kw(enc, "sfa_dtype", str("float8_e8m0fnu"));
		set_kw(enc, "sfb_dtype", str("float8_e8m0fnu"));
	}
	set_kw(enc, "M", ex_int(g->M));
	set_kw(enc, "N", ex_int(g->nn));
	set_kw(enc, "K", ex_int(g->scaled ? MMAS_K : MMA_K));
	set_kw(enc, "trans_a", boolean(g->A.mn));
	set_kw(enc, "trans_b", boolean(g->B.mn));
	if (g->scaled) {
		set_kw(enc, "a_sf_id", ex_int(aid));
		set_kw(enc, "b_sf_id", ex_int(bid));
	}
	return enc;
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	Gemm g;
	const char *why = plan(&g, o->call);
	if (why)
		return lower_fail(L, o, why);
	Pos pos = o->stmt->pos;
	Stmt **v = xalloc(sizeof(Stmt *) * (size_t)(4 + 4 * g.n));
	int nv = 0;
	const char *id, *ad, *bd;
	v[nv++] = scalar_decl(L, pos, "mma_idesc", "uint32", &id);
	v[nv++] = scalar_decl(L, pos, "mma_adesc", "uint64", &ad);
	v[nv++] = scalar_decl(L, pos, "mma_bdesc", "uint64", &bd);
	if (!g.scaled)
		v[nv++] = expr_stmt(pos, idesc_call(&g, id, 0, 0));
	Kw *acc = call_kw(o->call, "accum");
	for (int i = 0; i < g.n; i++) {
		const Mma1 *m = &g.v[i];
		/* block-scaled: the descriptor again whenever the scale-factor ids change */
		if (g.scaled && (i == 0 || m->aid != g.v[i - 1].aid || m->bid != g.v[i - 1].bid))
			v[nv++] = expr_stmt(pos, idesc_call(&g, id, m->aid, m->bid));
		v[nv++] = smem_desc(pos, ad, &g.A, m->ast, m->alb, m->asb);
		v[nv++] = smem_desc(pos, bd, &g.B, m->bst, m->blb, m->bsb);
		Expr *col = g.cdyn ? ex_add(ex_int(m->col), g.cdyn) : ex_int(m->col);
		Expr *ta[3] = { g.alloc, ex_int(g.lane0), col };
		Expr *en = !m->first ? boolean(true) : acc ? acc->value : boolean(false);
		Expr *ma[5] = { ex_call("T.cuda.get_tmem_addr", 3, ta), ex_name(ad), ex_name(bd), ex_name(id), en };
		Expr *mma = ex_call("T.ptx.tcgen05.mma", 5, ma);
		if (g.scaled) {
			Expr *sa[3] = { g.sfa.alloc, ex_int(0), ex_int(m->sac) }, *sb[3] = { g.sfb.alloc, ex_int(0), ex_int(m->sbc) };
			set_kw(mma, "kind", str("mxf8f6f4"));
			set_kw(mma, "scale_a", ex_call("T.cuda.get_tmem_addr", 3, sa));
			set_kw(mma, "scale_b", ex_call("T.cuda.get_tmem_addr", 3, sb));
		}
		v[nv++] = expr_stmt(pos, mma);
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_tcgen05_mma = { NULL, NULL, NULL, NULL, NULL, lower };
