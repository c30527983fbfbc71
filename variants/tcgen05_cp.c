/* The tcgen05_cp family: one thread copies a shared-memory tile into tensor
 * memory with tcgen05.cp (seed 004; issue 12; doc/tcgen05-cp.md for the
 * instruction, doc/txir.md "tcgen05_cp" for the plan).
 *
 * The plan is computed from the two layouts, element by element: for every
 * element of the tile, its tensor-memory cell (lane, 32-bit column) and its
 * shared-memory offset before the swizzle. Each used column must hold all
 * 128 lanes (the 128-row shapes), and the columns are covered by aligned
 * groups: 8 columns (.128x256b, a row of 32 bytes) where that serves, else
 * 4 columns (.128x128b, a row of 16 bytes). A group at column c serves when
 *   - every lane l's g columns are one source row: g * 4 contiguous bytes
 *     (no swizzle, .128x256b: two 16-byte chunks LBO apart),
 *   - lane l's row starts at start + (l >> 3) * SBO + (l & 7) * P, where P
 *     is the swizzle span (32, 64, 128 bytes) or 16 without a swizzle (the
 *     descriptor's row formula, ptx.md; ISA 9.7.16.4.1), and
 *   - start, SBO and LBO are 16-byte multiples, SBO and LBO below 2^18.
 * With a swizzle, each row of the 8-row pattern (an atom row, one span)
 * must land in consecutive columns of one lane: the tile moves in whole
 * atoms, as Triton's lowering moves it (seed 004's skips; copies of part
 * of an atom into split columns are unverified and not planned).
 * The shared layout's swizzle must be one of the descriptor's modes (XOR
 * of the 16-byte chunk with bits [7:7+b) of the byte address), and the
 * buffer must sit at a multiple of the pattern's 8 rows (8 P bytes) so
 * that the layout's swizzle of offsets is the hardware's of addresses.
 * Lowering: per group, a local uint64 descriptor written by
 * T.cuda.tcgen05.encode_matrix_descriptor and one T.ptx.tcgen05.cp.
 * Completion is the caller's: T.ptx.tcgen05.commit(mbar) and a wait. */
#include <string.h>

#include "family.h"

typedef struct Cp1 {
	int shape;          /* TCCP_128X256B or TCCP_128X128B */
	int64_t col;        /* the first 32-bit column */
	int64_t start;      /* the shared offset (elements, before the swizzle) of lane 0's first element */
	int64_t lbo, sbo;   /* bytes */
} Cp1;

typedef struct Cp {
	const Buffer *sb, *tb;
	Expr *taddr;
	int swz;            /* the encoder's swizzle argument: 0 none, 1 32B, 2 64B, 3 128B */
	int64_t pitch;      /* the row pitch of the descriptor's 8-row pattern (bytes) */
	Cp1 *v;
	int n;
} Cp;

static bool is_zero(const Expr *e)
{
	return (e->kind == E_INT && e->ival == 0) || (e->val && e->val->kind == V_INT && e->val->i == 0);
}

static bool whole(const Value *v)
{
	for (int d = 0; d < v->ndim; d++)
		if (!is_zero(v->starts[d]) || v->extents[d] != v->buffer->shape[d])
			return false;
	return true;
}

/* The cell grid: elem[lane * ncols + col] = the tile's element (r * N + c)
 * there, or -1; off[...] its shared offset before the swizzle. */
typedef struct Grid {
	int64_t ncols, N;
	int64_t *elem, *off;
} Grid;

static const char *at(const Grid *g, int64_t lane, int64_t col)
{
	int64_t e = g->elem[lane * g->ncols + col];
	return xprintf("(%lld, %lld)", (long long)(e / g->N), (long long)(e % g->N));
}

/* NULL when the group of w columns at col serves as one copy of shape s,
 * filling *c; else the rule it fails. */
static const char *fit(const Cp *x, const Grid *g, int s, int64_t col, Cp1 *c)
{
	const TccpShape *sh = &tccp_shapes[s];
	int64_t w = sh->bits / 32, eb = 4; /* 32-bit elements */
	const char *nm = xprintf(".%s", sh->shape);
	memset(c, 0, sizeof *c);
	c->shape = s;
	c->col = col;
	for (int64_t l = 0; l < 128; l++)
		for (int64_t j = 0; j < w; j++)
			if (col + j >= g->ncols || g->elem[l * g->ncols + col + j] < 0)
				return xprintf("%s writes %lld columns of every lane; column %lld of lane %lld holds no element "
				               "of the tile", nm, (long long)w, (long long)(col + j), (long long)l);
	int64_t *o = g->off;
#define OFF(l, j) o[(l) * g->ncols + col + (j)]
	c->start = OFF(0, 0);
	/* a lane's columns: one row of the source */
	int64_t lbo = w > 4 && !x->swz ? OFF(0, 4) - OFF(0, 0) : 0;
	for (int64_t l = 0; l < 128; l++)
		for (int64_t j = 1; j < w; j++) {
			int64_t want = OFF(l, 0) + j + (j >= 4 && lbo ? lbo - 4 : 0);
			if (OFF(l, j) != want)
				return xprintf("%s gives lane %lld one source row of %lld contiguous bytes%s, but its columns "
				               "%lld..%lld hold the elements %s and %s, %lld bytes apart in shared memory", nm,
				               (long long)l, (long long)(w * eb),
				               w > 4 && !x->swz ? " (without a swizzle: two 16-byte chunks LBO apart)" : "",
				               (long long)col, (long long)(col + w - 1), at(g, l, col + j - 1), at(g, l, col + j),
				               (long long)((OFF(l, j) - OFF(l, j - 1)) * eb));
		}
	/* the rows: start + (l >> 3) * SBO + (l & 7) * pitch */
	int64_t sbo = (OFF(8, 0) - OFF(0, 0)) * eb;
	for (int64_t l = 1; l < 128; l++) {
		int64_t want = c->start * eb + (l >> 3) * sbo + (l & 7) * x->pitch;
		if (OFF(l, 0) * eb != want)
			return xprintf("%s reads lane %lld's row at start + (%lld >> 3) * SBO + (%lld & 7) * %lld bytes (the "
			               "descriptor's rows%s; SBO %lld from row 8), byte %lld of the tile, but tensor-memory "
			               "column %lld of lane %lld holds %s at byte %lld", nm, (long long)l, (long long)l,
			               (long long)l, (long long)x->pitch,
			               x->swz ? ", one swizzle span apart in each 8-row group" : ": 16-byte core-matrix rows",
			               (long long)sbo, (long long)want, (long long)col, (long long)l, at(g, l, col),
			               (long long)(OFF(l, 0) * eb));
	}
#undef OFF
	if ((c->start * eb) % 16 || sbo % 16 || lbo % 16 || sbo < 0 || lbo < 0 || sbo >= 1 << 18 || lbo * eb >= 1 << 18)
		return xprintf("%s: the descriptor needs the start (byte %lld), SBO (%lld) and LBO (%lld) as 16-byte "
		               "multiples, SBO and LBO in 0..2^18", nm, (long long)(c->start * eb), (long long)sbo,
		               (long long)(lbo * eb));
	c->sbo = sbo;
	c->lbo = lbo * eb;
	return NULL;
}

static const char *plan(Cp *x, const Value *dst, const Value *src)
{
	memset(x, 0, sizeof *x);
	const Buffer *sb = src->buffer, *tb = dst->buffer;
	x->sb = sb;
	x->tb = tb;
	int dt = sb->dtype;
	if (tb->dtype != dt)
		return xprintf("the shared memory is %s and the tensor memory %s", dtypes[dt].name, dtypes[tb->dtype].name);
	if (dtypes[dt].bits != 32)
		return xprintf("not supported yet: %s elements; tcgen05_cp plans 32-bit elements (a column each)",
		               dtypes[dt].name);
	if (sb->ndim != 2 || tb->ndim != 2 || sb->shape[0] != tb->shape[0] || sb->shape[1] != tb->shape[1])
		return "not supported yet: the two buffers are not the same (rows, cols) tile";
	if (!whole(src) || !whole(dst))
		return "not supported yet: a part of a buffer; copy the whole (rows, cols) tile";
	const Layout *ls = buffer_layout(sb), *lt = buffer_layout(tb);
	if (layout_nreplicas(lt) > 1)
		return xprintf("not supported yet: the tensor memory '%s' has lane replicas (the .32x128b.warpx4 and "
		               ".64x128b.warpx2 multicasts)", tb->name);
	/* the descriptor's swizzle mode from the shared layout's */
	x->swz = 0;
	x->pitch = 16;
	if (ls->swizzled) {
		if (ls->swz_m != 2 || ls->swz_s != 3 || ls->swz_b < 1 || ls->swz_b > 3)
			return xprintf("the swizzle of '%s' (ComposeLayout(%d, %d, %d)) is none of the descriptor's modes: "
			               "the 16-byte chunk XOR bits [7:7+b) of the address, b = 1, 2, 3 (32, 64, 128 bytes)",
			               sb->name, ls->swz_m, ls->swz_b, ls->swz_s);
		x->swz = ls->swz_b;
		x->pitch = 16 << ls->swz_b;
	}
	Buffer *root = buffer_root((Buffer *)sb);
	if (root != sb)
		return xprintf("not supported yet: the view '%s' of '%s'", sb->name, root->name);
	int64_t need = x->swz ? 8 * x->pitch : 16;
	/* every shared buffer starts 16-byte aligned (storage.c); more takes a
	 * swizzled layout (1024) or align= */
	bool rounded = need <= 16 || (root->layout && root->layout->swizzled) || root->align >= need;
	if (!rounded || root->smem_off % need)
		return xprintf("the descriptor swizzles absolute addresses: '%s' must start at a multiple of %lld bytes; it "
		               "starts at byte %lld%s", root->name, (long long)need, (long long)root->smem_off,
		               rounded ? "" : xprintf(" of a base only 16-byte aligned (allocate it with align=%lld)",
		                                      (long long)need));
	/* the cells */
	Layout *lu = layout_copy(ls);
	lu->swizzled = false;
	int64_t M = sb->shape[0], N = sb->shape[1], ncols = 0;
	int64_t *lane = xalloc(sizeof(int64_t) * (size_t)(M * N)), *tcol = xalloc(sizeof(int64_t) * (size_t)(M * N));
	int64_t *soff = xalloc(sizeof(int64_t) * (size_t)(M * N));
	for (int64_t r = 0; r < M; r++)
		for (int64_t c = 0; c < N; c++) {
			int64_t co[2] = { r, c }, a[AX_COUNT], b[AX_COUNT];
			if (!layout_apply_coord(lt, tb->shape, 2, co, a) || !layout_apply_coord(lu, sb->shape, 2, co, b))
				return "the layouts overflow";
			int64_t k = r * N + c;
			lane[k] = a[AX_TLANE];
			tcol[k] = a[AX_TCOL];
			soff[k] = b[AX_M];
			if (lane[k] < 0 || lane[k] >= 128 || tcol[k] < 0 || tcol[k] >= 512)
				return xprintf("element (%lld, %lld) of '%s' is at lane %lld, column %lld: outside tensor memory",
				               (long long)r, (long long)c, tb->name, (long long)lane[k], (long long)tcol[k]);
			if (tcol[k] + 1 > ncols)
				ncols = tcol[k] + 1;
		}
	/* a swizzled source moves in whole atoms: the W elements of one row of
	 * the 8-row pattern (one swizzle span) fill W consecutive columns of
	 * one lane, as Triton's lowering of the copy requires (its
	 * getSwizzling takes whole atoms, TensorMemoryToLLVM.cpp); copies of
	 * part of an atom into split columns are not planned (unverified) */
	if (x->swz) {
		int64_t W = x->pitch / 4, nspan = (M * N + W - 1) / W + 1;
		int64_t *first = xalloc(sizeof(int64_t) * (size_t)(2 * nspan));
		for (int64_t i = 0; i < 2 * nspan; i++)
			first[i] = -1;
		for (int64_t k = 0; k < M * N; k++) {
			int64_t sp = soff[k] / W, c0 = tcol[k] - soff[k] % W;
			if (sp < 0 || sp >= nspan)
				continue;
			if (first[2 * sp] < 0) {
				first[2 * sp] = lane[k];
				first[2 * sp + 1] = c0;
			} else if (first[2 * sp] != lane[k] || first[2 * sp + 1] != c0) {
				return xprintf("the %lld-byte swizzle atom row holding element (%lld, %lld) of '%s' (%lld %s of "
				               "one row of the 8-row pattern) does not land in %lld consecutive columns of one lane "
				               "of '%s' (element (%lld, %lld) is at lane %lld, column %lld): tcgen05_cp copies a "
				               "swizzled tile in whole atoms, each atom row into consecutive columns (as Triton's "
				               "lowering does); a tensor-memory block narrower than the swizzle span splits them",
				               (long long)x->pitch, (long long)(k / N), (long long)(k % N), sb->name, (long long)W,
				               dtypes[dt].name, (long long)W, tb->name, (long long)(k / N), (long long)(k % N), (long long)lane[k],
				               (long long)tcol[k]);
			}
		}
	}
	ncols = (ncols + 7) / 8 * 8;
	Grid g = { ncols, N, xalloc(sizeof(int64_t) * (size_t)(128 * ncols)),
	           xalloc(sizeof(int64_t) * (size_t)(128 * ncols)) };
	for (int64_t i = 0; i < 128 * ncols; i++)
		g.elem[i] = -1;
	for (int64_t k = 0; k < M * N; k++) {
		int64_t i = lane[k] * ncols + tcol[k];
		if (g.elem[i] >= 0)
			return xprintf("elements (%lld, %lld) and (%lld, %lld) of '%s' share lane %lld, column %lld",
			               (long long)(g.elem[i] / N), (long long)(g.elem[i] % N), (long long)(k / N),
			               (long long)(k % N), tb->name, (long long)lane[k], (long long)tcol[k]);
		g.elem[i] = k;
		g.off[i] = soff[k];
	}
	/* the copies: per 8-column group, .128x256b, else .128x128b per half */
	x->v = xalloc(sizeof(Cp1) * (size_t)(ncols / 4));
	for (int64_t c8 = 0; c8 < ncols; c8 += 8) {
		bool any[2] = { false, false };
		for (int64_t l = 0; l < 128; l++)
			for (int64_t j = 0; j < 8; j++)
				if (g.elem[l * ncols + c8 + j] >= 0)
					any[j / 4] = true;
		if (!any[0] && !any[1])
			continue;
		const char *w256 = fit(x, &g, TCCP_128X256B, c8, &x->v[x->n]);
		if (!w256) {
			x->n++;
			continue;
		}
		for (int h = 0; h < 2; h++) {
			if (!any[h])
				continue;
			const char *w128 = fit(x, &g, TCCP_128X128B, c8 + 4 * h, &x->v[x->n]);
			if (w128)
				return xprintf("no tcgen05.cp shape serves tensor-memory columns %lld..%lld of '%s' from '%s': %s; "
				               "%s (.4x256b, .64x128b.warpx2 and .32x128b.warpx4 write fewer than 128 distinct "
				               "lanes)", (long long)c8, (long long)(c8 + 7), tb->name, sb->name, w256, w128);
			x->n++;
		}
	}
	const Buffer *a = tb;
	while (a && !a->alloc_addr)
		a = a->base;
	if (!a)
		return xprintf("tensor memory '%s' has no allocated_addr=", tb->name);
	x->taddr = a->alloc_addr;
	return NULL;
}

const char *pred_tcgen05_cp(const Try *t)
{
	Cp x;
	return plan(&x, t->dst, t->src);
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	Cp x;
	const char *why = plan(&x, o->call->args[0]->val, o->call->args[1]->val);
	if (why)
		return lower_fail(L, o, why);
	const char *d = lower_fresh(L, "cp_desc");
	lower_take(L, d);
	Stmt **v = xalloc(sizeof(Stmt *) * (size_t)(1 + 2 * x.n));
	int nv = 0;
	Expr *dt = new_expr(E_STR, (Pos){0});
	dt->str = "uint64";
	Stmt *a = new_stmt(S_ASSIGN, o->stmt->pos);
	vpush(a->targets, a->ntargets, ex_name(d));
	a->value = ex_call("T.local_scalar", 1, &dt);
	v[nv++] = a;
	for (int i = 0; i < x.n; i++) {
		const Cp1 *c = &x.v[i];
		Expr *po[2] = { ex_name(x.sb->name), ex_int(c->start) };
		Expr *ad = ex_name(d);
		Expr *ea[5] = { ex_call("T.address_of", 1, &ad), ex_call("T.pointer_offset", 2, po), ex_int(c->lbo / 16),
		                ex_int(c->sbo / 16), ex_int(x.swz) };
		Stmt *e = new_stmt(S_EXPR, o->stmt->pos);
		e->value = ex_call("T.cuda.tcgen05.encode_matrix_descriptor", 5, ea);
		v[nv++] = e;
		Expr *shape = new_expr(E_STR, (Pos){0});
		shape->str = tccp_shapes[c->shape].shape;
		Expr *ca[5] = { x.taddr, ex_int(0), ex_int(c->col), shape, ex_name(d) };
		Stmt *cp = new_stmt(S_EXPR, o->stmt->pos);
		cp->value = ex_call("T.ptx.tcgen05.cp", 5, ca);
		v[nv++] = cp;
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_tcgen05_cp = { NULL, NULL, NULL, NULL, NULL, lower };
