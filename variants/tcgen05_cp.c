/* The tcgen05_cp family: one thread copies a shared-memory region into
 * tensor memory with tcgen05.cp (seed 004; issue 12; doc/tcgen05-cp.md for
 * the instruction, doc/txir.md "tcgen05_cp" for the plan).
 *
 * The plan is computed from the two layouts, element by element: for every
 * element of the region, its tensor-memory cell (lane, element column) and
 * its shared-memory offset before the swizzle. The elements of one 32-bit
 * column must be one 32-bit word of shared memory, in order (8- and 16-bit
 * elements: TCol counts elements, a column holds 32 / bits of them), so
 * the plan works on words: cell (lane, 32-bit column) <- shared word U.
 * A tensor-memory layout with lane replicas (R[...] on TLane) is what a
 * multicast shape writes: each row into the lanes of its replicas; the
 * replica offsets must be exactly the shape's ({0, 32, 64, 96} for
 * .32x128b.warpx4, {0, 64} for .64x128b.warpx2::02_13, {0, 32} for
 * ::01_23, none for the others). The cells are covered left to right by
 * aligned 4-column groups; at the first cell not yet covered (lane L0,
 * column c, c a multiple of 4) the shapes are tried in this order:
 * .128x256b, .128x128b, .4x256b, .64x128b.warpx2::02_13, ::01_23,
 * .32x128b.warpx4. A shape serves at (L0, c) when
 *   - its replicas are the layout's, and its lanes L0 + lane(r) (tccp.def)
 *     are below 128;
 *   - for each source row r, the cells (L0 + lane(r), c .. c + w - 1) (w =
 *     8 or 4 columns) hold elements of the region, not yet covered, that
 *     are one source row: w * 4 contiguous bytes (no swizzle, 256 bits: two
 *     16-byte chunks LBO apart);
 *   - row r starts at start + (r >> 3) * SBO + (r & 7) * P, P the swizzle
 *     span (32, 64, 128 bytes) or 16 without a swizzle (the descriptor's
 *     row formula, ptx.md; ISA 9.7.16.4.1), SBO read at row 8 (0 for
 *     .4x256b);
 *   - start, SBO and LBO are 16-byte multiples, SBO and LBO below 2^18.
 * With a swizzle, each row of the 8-row pattern (an atom row, one span)
 * must land in consecutive columns of one lane: the region moves in whole
 * atom rows, as Triton's lowering moves it (seed 004's skips; copies of
 * part of an atom row into split columns are unverified and not planned).
 * The shared layout's swizzle must be one of the descriptor's modes (XOR of
 * the 16-byte chunk with bits [7:7+b) of the byte address), and the buffer
 * must sit at a multiple of the pattern's 8 rows (8 P bytes) so that the
 * layout's swizzle of offsets is the hardware's of addresses.
 *
 * Regions: a start that is not a constant (acc[:, c0 : c0 + w], ring[s,
 * :, :]) is a multiple of g that txc proves (expr_multiple) within the
 * bounds its range gives; the plan is made at the first such value and
 * every other one must move the region's cells and shared offsets by one
 * offset each, linear in (start - first) / g: a column shift a multiple of
 * 4 32-bit columns (the address is 128-bit aligned), a shared shift a
 * multiple of 16 bytes, or with a swizzle of the 8-row pattern (8 P
 * bytes: a stage of a ring is whole swizzle atoms), replica lanes still
 * below 128. Each copy's lane, column and start are then that linear
 * expression.
 *
 * TVM's keywords of the copy: shape= and multicast= narrow the shapes
 * tried to those they name (a multicast shape still needs the layout's
 * replicas), cta_group= must be 1.
 *
 * Lowering: per copy, a local uint64 descriptor written by
 * T.cuda.tcgen05.encode_matrix_descriptor and one T.ptx.tcgen05.cp.
 * Completion is the caller's: T.ptx.tcgen05.commit(mbar) and a wait. */
#include <string.h>

#include "family.h"

#define CP_MAX_RT 8

typedef struct Cp1 {
	int shape;
	int64_t lane, col;  /* the address's lane and 32-bit column (at the first placement) */
	int64_t start;      /* the shared offset (words, before the swizzle) of source row 0 */
	int64_t lbo, sbo;   /* bytes */
} Cp1;

/* A region start that is not a constant. */
typedef struct Rt {
	bool tm;            /* of the tensor-memory region (else the shared one) */
	int dim;
	Expr *e;
	int64_t g, v0, n;   /* its values: v0, v0 + g, ..., v0 + (n - 1) g */
	int64_t dl, dc, ds; /* per step g: lanes, 32-bit columns, shared words */
} Rt;

typedef struct Cp {
	const Value *dst, *src;
	const Buffer *sb, *tb;
	Expr *taddr;
	int swz;            /* the encoder's swizzle argument: 0 none, 1 32B, 2 64B, 3 128B */
	int64_t pitch;      /* the row pitch of the descriptor's 8-row pattern (bytes) */
	int64_t epw, esz;   /* elements per 32-bit word; bytes per element */
	int64_t reps[4];    /* the tensor memory's replica lane offsets, sorted */
	int nreps;
	Layout *lu;         /* the shared layout without its swizzle */
	Cp1 *v;
	int n;
	Rt rt[CP_MAX_RT];
	int nrt;
	int64_t count;      /* elements of the region */
	bool allow[TCCP_NSHAPES]; /* the shapes the plan may use (shape=, multicast=) */
} Cp;

static const char *shape_name(int s)
{
	const TccpShape *sh = &tccp_shapes[s];
	return xprintf(".%s%s%s", sh->shape, *sh->multicast ? "." : "", sh->multicast);
}

/* The region's elements at one placement: for element k (row-major over
 * the region), its cell and shared offset; the coordinates for messages. */
typedef struct Maps {
	int64_t st[2][64];
	int64_t *lane, *tcol, *soff;
} Maps;

/* The buffer coordinates of element k of the region of v starting at st. */
static const char *coords(const Value *v, const int64_t *st, int64_t k)
{
	int64_t c[64];
	for (int d = v->ndim - 1; d >= 0; d--) {
		c[d] = st[d] + k % v->extents[d];
		k /= v->extents[d];
	}
	Buf b = { 0 };
	bputs(&b, "(");
	for (int d = 0; d < v->ndim; d++)
		bprintf(&b, "%s%lld", d ? ", " : "", (long long)c[d]);
	bputs(&b, ")");
	return b.s;
}

static const char *maps(const Cp *x, Maps *m)
{
	const Value *o[2] = { x->dst, x->src };
	const Layout *lt = buffer_layout(x->tb);
	for (int64_t k = 0; k < x->count; k++) {
		int64_t co[2][64], a[AX_COUNT], b[AX_COUNT];
		for (int s = 0; s < 2; s++) {
			int64_t r = k;
			for (int d = o[s]->ndim - 1; d >= 0; d--) {
				co[s][d] = m->st[s][d] + r % o[s]->extents[d];
				r /= o[s]->extents[d];
			}
		}
		if (!layout_apply_coord(lt, x->tb->shape, x->tb->ndim, co[0], a) ||
		    !layout_apply_coord(x->lu, x->sb->shape, x->sb->ndim, co[1], b))
			return "the layouts overflow";
		m->lane[k] = a[AX_TLANE];
		m->tcol[k] = a[AX_TCOL];
		m->soff[k] = b[AX_M];
		if (a[AX_TLANE] < 0 || a[AX_TLANE] >= 128 || a[AX_TCOL] < 0 || a[AX_TCOL] >= 512 * x->epw)
			return xprintf("element %s of '%s' is at lane %lld, column %lld: outside tensor memory",
			               coords(x->dst, m->st[0], k), x->tb->name, (long long)a[AX_TLANE], (long long)a[AX_TCOL]);
	}
	return NULL;
}

/* The word grid: at (lane, 32-bit column), the region's element in its
 * first slot (or -1) and the shared word it is. */
typedef struct Grid {
	int64_t ncols;
	int64_t *elem, *word;
	bool *done;
} Grid;

#define CELL(g, l, c) ((l) * (g)->ncols + (c))

/* NULL when shape s serves at lane L0, column c, filling *o; else the rule
 * it fails. */
static const char *fit(const Cp *x, const Grid *g, const Maps *m, int s, int64_t L0, int64_t c, Cp1 *o)
{
	const TccpShape *sh = &tccp_shapes[s];
	int64_t w = sh->bits / 32;
	const char *nm = shape_name(s);
	memset(o, 0, sizeof *o);
	o->shape = s;
	o->lane = L0;
	o->col = c;
	/* the replicas */
	bool same = x->nreps == sh->replicas;
	for (int j = 0; same && j < sh->replicas; j++)
		same = x->reps[j] == (int64_t)j * sh->rep_stride;
	if (!same) {
		Buf b = { 0 };
		bputs(&b, "");
		for (int j = 0; j < sh->replicas; j++)
			bprintf(&b, "%s%lld", j ? ", " : "", (long long)j * sh->rep_stride);
		if (x->nreps == 1)
			return xprintf("%s writes each row into the lanes +{%s}: the tensor memory '%s' has no lane replicas (R[%d "
			               ": %d @ TLane])", nm, b.s, x->tb->name, sh->replicas, sh->rep_stride);
		Buf h = { 0 };
		bputs(&h, "");
		for (int j = 0; j < x->nreps; j++)
			bprintf(&h, "%s%lld", j ? ", " : "", (long long)x->reps[j]);
		return xprintf("%s writes each row into the lanes +{%s}, but the lane replicas of the tensor memory '%s' are "
		               "+{%s}", nm, b.s, x->tb->name, h.s);
	}
	int64_t top = 0;
	for (int r = 0; r < sh->rows; r++)
		for (int j = 0; j < sh->replicas; j++)
			if (L0 + tccp_lane(sh, r, j) > top)
				top = L0 + tccp_lane(sh, r, j);
	if (top >= 128)
		return xprintf("%s at lane %lld writes lanes up to %lld; tensor memory has lanes 0..127", nm, (long long)L0,
		               (long long)top);
	/* the cells */
	for (int r = 0; r < sh->rows; r++) {
		int64_t l = L0 + tccp_lane(sh, r, 0);
		for (int64_t j = 0; j < w; j++) {
			if (c + j >= g->ncols || g->elem[CELL(g, l, c + j)] < 0)
				return xprintf("%s writes %lld columns of %d lanes from lane %lld; column %lld of lane %lld holds no "
				               "element of the region", nm, (long long)w, sh->rows, (long long)L0,
				               (long long)(c + j), (long long)l);
			if (g->done[CELL(g, l, c + j)])
				return xprintf("%s at lane %lld, column %lld writes lane %lld, column %lld, which another copy writes",
				               nm, (long long)L0, (long long)c, (long long)l, (long long)(c + j));
		}
	}
#define U(r, j) g->word[CELL(g, L0 + tccp_lane(sh, (r), 0), c + (j))]
#define AT(r, j) coords(x->src, m->st[1], g->elem[CELL(g, L0 + tccp_lane(sh, (r), 0), c + (j))])
	o->start = U(0, 0);
	/* a row: one source row of w contiguous words (no swizzle, 256 bits:
	 * two 16-byte chunks LBO apart) */
	bool chunks = w > 4 && !x->swz;
	int64_t lbo = chunks ? U(0, 4) - U(0, 0) : 0;
	for (int r = 0; r < sh->rows; r++)
		for (int64_t j = 1; j < w; j++) {
			int64_t want = U(r, 0) + j + (j >= 4 && chunks ? lbo - 4 : 0);
			if (U(r, j) != want)
				return xprintf("%s gives lane %lld one source row of %lld contiguous bytes%s, but its columns "
				               "%lld..%lld hold the elements %s and %s of '%s', %lld bytes apart in shared memory",
				               nm, (long long)(L0 + tccp_lane(sh, r, 0)), (long long)(w * 4),
				               chunks ? " (without a swizzle: two 16-byte chunks LBO apart)" : "", (long long)c,
				               (long long)(c + w - 1), AT(r, j - 1), AT(r, j), x->sb->name,
				               (long long)((U(r, j) - U(r, j - 1)) * 4));
		}
	/* the rows: start + (r >> 3) * SBO + (r & 7) * pitch */
	int64_t sbo = sh->rows > 8 ? (U(8, 0) - U(0, 0)) * 4 : 0;
	for (int r = 1; r < sh->rows; r++) {
		int64_t want = o->start * 4 + (r >> 3) * sbo + (r & 7) * x->pitch;
		if (U(r, 0) * 4 != want)
			return xprintf("%s reads source row %d at start + (%d >> 3) * SBO + (%d & 7) * %lld bytes (the "
			               "descriptor's rows%s; SBO %lld%s), byte %lld, but tensor-memory column %lld of lane %lld "
			               "holds %s of '%s' at byte %lld", nm, r, r, r, (long long)x->pitch,
			               x->swz ? ", one swizzle span apart in each 8-row group" : ": 16-byte core-matrix rows",
			               (long long)sbo, sh->rows > 8 ? " from row 8" : "", (long long)want, (long long)c,
			               (long long)(L0 + tccp_lane(sh, r, 0)), AT(r, 0), x->sb->name, (long long)(U(r, 0) * 4));
	}
#undef U
#undef AT
	if ((o->start * 4) % 16 || sbo % 16 || (lbo * 4) % 16 || sbo < 0 || lbo < 0 || sbo >= 1 << 18 ||
	    lbo * 4 >= 1 << 18)
		return xprintf("%s: the descriptor needs the start (byte %lld), SBO (%lld) and LBO (%lld) as 16-byte "
		               "multiples, SBO and LBO in 0..2^18", nm, (long long)(o->start * 4), (long long)sbo,
		               (long long)(lbo * 4));
	o->sbo = sbo;
	o->lbo = lbo * 4;
	return NULL;
}

/* The copies for the region at the placement of m. */
static const char *cover(Cp *x, const Maps *m)
{
	const Buffer *sb = x->sb, *tb = x->tb;
	int64_t W = x->pitch / x->esz;
	/* a swizzled source moves in whole atom rows: the W elements of one
	 * row of the 8-row pattern (one swizzle span) fill W consecutive
	 * columns of one lane, as Triton's lowering of the copy requires (its
	 * getSwizzling takes whole atoms, TensorMemoryToLLVM.cpp); copies of
	 * part of an atom row into split columns are not planned (unverified) */
	if (x->swz) {
		int64_t nspan = 0;
		for (int64_t k = 0; k < x->count; k++)
			if (m->soff[k] / W + 1 > nspan)
				nspan = m->soff[k] / W + 1;
		int64_t *first = xalloc(sizeof(int64_t) * (size_t)(2 * nspan + 2));
		for (int64_t i = 0; i < 2 * nspan; i++)
			first[i] = -1;
		for (int64_t k = 0; k < x->count; k++) {
			int64_t sp = m->soff[k] / W, c0 = m->tcol[k] - m->soff[k] % W;
			if (sp < 0)
				continue;
			if (first[2 * sp] < 0) {
				first[2 * sp] = m->lane[k];
				first[2 * sp + 1] = c0;
			} else if (first[2 * sp] != m->lane[k] || first[2 * sp + 1] != c0) {
				return xprintf("the %lld-byte swizzle atom row holding element %s of '%s' (%lld %s of one row of the "
				               "8-row pattern) does not land in %lld consecutive columns of one lane of '%s' (element "
				               "%s is at lane %lld, column %lld): tcgen05_cp copies a swizzled tile in whole atoms, "
				               "each atom row into consecutive columns (as Triton's lowering does); a tensor-memory "
				               "block narrower than the swizzle span splits them",
				               (long long)x->pitch, coords(x->src, m->st[1], k), sb->name, (long long)W,
				               dtypes[sb->dtype].name, (long long)W, tb->name, coords(x->dst, m->st[0], k),
				               (long long)m->lane[k], (long long)m->tcol[k]);
			}
		}
	}
	/* the element cells, then the words */
	int64_t ncols = 0;
	for (int64_t k = 0; k < x->count; k++)
		if (m->tcol[k] / x->epw + 1 > ncols)
			ncols = m->tcol[k] / x->epw + 1;
	ncols = (ncols + 7) / 8 * 8;
	int64_t *ecell = xalloc(sizeof(int64_t) * (size_t)(128 * ncols * x->epw));
	for (int64_t i = 0; i < 128 * ncols * x->epw; i++)
		ecell[i] = -1;
	for (int64_t k = 0; k < x->count; k++) {
		int64_t i = m->lane[k] * ncols * x->epw + m->tcol[k];
		if (ecell[i] >= 0)
			return xprintf("elements %s and %s of '%s' share lane %lld, column %lld",
			               coords(x->dst, m->st[0], ecell[i]), coords(x->dst, m->st[0], k), tb->name,
			               (long long)m->lane[k], (long long)m->tcol[k]);
		ecell[i] = k;
	}
	Grid g = { ncols, xalloc(sizeof(int64_t) * (size_t)(128 * ncols)), xalloc(sizeof(int64_t) * (size_t)(128 * ncols)),
	           xalloc(sizeof(bool) * (size_t)(128 * ncols)) };
	for (int64_t l = 0; l < 128; l++)
		for (int64_t c = 0; c < ncols; c++) {
			const int64_t *e = &ecell[(l * ncols + c) * x->epw];
			int have = 0;
			for (int64_t s = 0; s < x->epw; s++)
				have += e[s] >= 0;
			g.elem[CELL(&g, l, c)] = -1;
			if (!have)
				continue;
			if (have < x->epw)
				return xprintf("the 32-bit column %lld of lane %lld of '%s' holds %d of its %lld %s elements from the "
				               "region: tcgen05.cp writes whole 32-bit columns", (long long)c, (long long)l, tb->name,
				               have, (long long)x->epw, dtypes[tb->dtype].name);
			for (int64_t s = 0; s < x->epw; s++)
				if (m->soff[e[s]] != m->soff[e[0]] + s || m->soff[e[0]] % x->epw)
					return xprintf("the 32-bit column %lld of lane %lld of '%s' holds elements %s and %s of '%s', which "
					               "are not one 32-bit word of shared memory in order (elements %lld and %lld of it): "
					               "tcgen05.cp copies whole words", (long long)c, (long long)l, tb->name,
					               coords(x->src, m->st[1], e[0]), coords(x->src, m->st[1], e[s]), sb->name,
					               (long long)m->soff[e[0]], (long long)m->soff[e[s]]);
			g.elem[CELL(&g, l, c)] = e[0];
			g.word[CELL(&g, l, c)] = m->soff[e[0]] / x->epw;
		}
	/* the copies: left to right by 4-column groups */
	static const int order[] = { TCCP_128X256B, TCCP_128X128B, TCCP_4X256B, TCCP_64X128B_02_13, TCCP_64X128B_01_23,
		                     TCCP_32X128B_X4 };
	enum { NORDER = sizeof order / sizeof order[0] };
	x->v = NULL;
	x->n = 0;
	int order_n = 0, use[NORDER];
	for (int k = 0; k < NORDER; k++)
		if (x->allow[order[k]])
			use[order_n++] = order[k];
	for (int64_t c = 0; c < ncols; c += 4)
		for (int64_t l = 0; l < 128; l++) {
			bool todo = false;
			for (int64_t j = 0; j < 4; j++)
				todo |= g.elem[CELL(&g, l, c + j)] >= 0 && !g.done[CELL(&g, l, c + j)];
			if (!todo)
				continue;
			Cp1 o;
			const char *why[NORDER];
			int k;
			for (k = 0; k < order_n; k++)
				if (!(why[k] = fit(x, &g, m, use[k], l, c, &o)))
					break;
			if (k == order_n) {
				Buf b = { 0 };
				bprintf(&b, "no tcgen05.cp shape serves lane %lld, columns %lld..%lld of '%s' from '%s'", (long long)l,
				        (long long)c, (long long)(c + 3), tb->name, sb->name);
				if (order_n < NORDER)
					bputs(&b, " among those shape= and multicast= allow");
				for (k = 0; k < order_n; k++)
					bprintf(&b, "; %s", why[k]);
				return b.s;
			}
			const TccpShape *sh = &tccp_shapes[o.shape];
			for (int r = 0; r < sh->rows; r++)
				for (int64_t j = 0; j < sh->bits / 32; j++)
					g.done[CELL(&g, l + tccp_lane(sh, r, 0), c + j)] = true;
			if (!(x->n & (x->n - 1)))
				x->v = xrealloc(x->v, sizeof(Cp1) * (size_t)x->n, sizeof(Cp1) * (size_t)(x->n ? 2 * x->n : 1));
			x->v[x->n++] = o;
			l--; /* this lane may have more to cover in the group */
		}
	return NULL;
}

static const char *start_str(const Rt *r) { return expr_str(r->e); }

/* Whether the maps of b are those of a moved by one offset per side:
 * *dl lanes and *dc element columns, *ds shared elements. */
static bool moved(const Cp *x, const Maps *a, const Maps *b, int64_t *dl, int64_t *dc, int64_t *ds, int64_t *bad)
{
	*dl = b->lane[0] - a->lane[0];
	*dc = b->tcol[0] - a->tcol[0];
	*ds = b->soff[0] - a->soff[0];
	for (int64_t k = 0; k < x->count; k++)
		if (b->lane[k] - a->lane[k] != *dl || b->tcol[k] - a->tcol[k] != *dc || b->soff[k] - a->soff[k] != *ds)
			return *bad = k, false;
	return true;
}

/* A string keyword of the call, or NULL. */
static const char *kw_str(const Expr *call, const char *name)
{
	Kw *k = call_kw(call, name);
	return k && k->value->val && k->value->val->kind == V_STR ? k->value->val->s :
	       k && k->value->kind == E_STR ? k->value->str : NULL;
}

/* TVM's keywords of the copy: shape= and multicast= narrow the shapes,
 * cta_group= is 1. */
static const char *keywords(Cp *x, const Expr *call)
{
	Kw *cg = call_kw(call, "cta_group");
	int64_t g = 1;
	if (cg && (!expr_int(cg->value, &g) || g != 1))
		return xprintf("not supported yet: cta_group=%s: tcgen05.cp into the tensor memory of both CTAs of a pair; "
		               "tcgen05_cp copies with cta_group=1", expr_str(cg->value));
	const char *shape = kw_str(call, "shape"), *mc = kw_str(call, "multicast");
	int n = 0;
	for (int s = 0; s < TCCP_NSHAPES; s++) {
		const TccpShape *sh = &tccp_shapes[s];
		x->allow[s] = (!shape || !strcmp(shape, sh->shape)) && (!mc || !strcmp(mc, sh->multicast));
		n += x->allow[s];
	}
	bool known = false;
	for (int s = 0; shape && s < TCCP_NSHAPES; s++)
		known |= !strcmp(shape, tccp_shapes[s].shape);
	if (shape && !known)
		return xprintf("shape=\"%s\": tcgen05.cp has 128x256b, 4x256b, 128x128b, 64x128b and 32x128b", shape);
	if (shape && (n > 1 || !n) && !strcmp(shape, "64x128b"))
		return xprintf("shape=\"64x128b\" takes multicast=\"warpx2::02_13\" or multicast=\"warpx2::01_23\"%s",
		               mc ? xprintf(", not \"%s\"", mc) : " (PTX requires one)");
	if (shape && !n)
		return xprintf("shape=\"%s\" takes %s, not multicast=\"%s\"", shape,
		               !strcmp(shape, "32x128b") ? "multicast=\"warpx4\"" : "no multicast", mc);
	if (!n)
		return xprintf("multicast=\"%s\": tcgen05.cp's multicasts are warpx2::02_13, warpx2::01_23 (64x128b) and "
		               "warpx4 (32x128b)", mc);
	return NULL;
}

static const char *plan(Cp *x, const Value *dst, const Value *src, const Expr *call)
{
	memset(x, 0, sizeof *x);
	const Buffer *sb = src->buffer, *tb = dst->buffer;
	x->dst = dst;
	x->src = src;
	x->sb = sb;
	x->tb = tb;
	int dt = sb->dtype, bits = dtypes[dt].bits;
	if (tb->dtype != dt)
		return xprintf("the shared memory is %s and the tensor memory %s", dtypes[dt].name, dtypes[tb->dtype].name);
	if (bits != 8 && bits != 16 && bits != 32)
		return xprintf("not supported yet: %s elements; tcgen05_cp plans 8-, 16- and 32-bit elements (whole ones in "
		               "a 32-bit column)", dtypes[dt].name);
	x->epw = 32 / bits;
	x->esz = bits / 8;
	const char *kw = keywords(x, call);
	if (kw)
		return kw;
	/* the two regions: the same extents, dimensions of extent 1 aside */
	{
		int64_t e[2][64];
		int n[2] = { 0, 0 };
		const Value *o[2] = { dst, src };
		for (int s = 0; s < 2; s++)
			for (int d = 0; d < o[s]->ndim && n[s] < 64; d++)
				if (o[s]->extents[d] != 1)
					e[s][n[s]++] = o[s]->extents[d];
		bool same = n[0] == n[1] && dst->ndim <= 64 && src->ndim <= 64;
		for (int d = 0; same && d < n[0]; d++)
			same = e[0][d] == e[1][d];
		if (!same)
			return "the tensor-memory region and the shared region are not the same tile (their extents differ, "
			       "dimensions of extent 1 aside)";
		x->count = 1;
		for (int d = 0; d < src->ndim; d++)
			x->count *= src->extents[d];
	}
	const Layout *ls = buffer_layout(sb), *lt = buffer_layout(tb);
	/* the tensor memory's lane replicas */
	{
		int64_t nr = layout_nreplicas(lt);
		if (nr < 1 || nr > 4)
			return xprintf("the tensor memory '%s' has %lld lane replicas; the multicast shapes write 2 or 4",
			               tb->name, (long long)nr);
		for (int64_t r = 0; r < nr; r++) {
			int64_t o[AX_COUNT];
			memset(o, 0, sizeof o);
			layout_replica(lt, r, o);
			for (int a = 0; a < AX_COUNT; a++)
				if (a != AX_TLANE && o[a])
					return xprintf("the tensor memory '%s' has replicas on %s; tcgen05.cp replicates rows into lanes "
					               "only (TLane)", tb->name, axes[a].name);
			int i = x->nreps++;
			while (i > 0 && x->reps[i - 1] > o[AX_TLANE]) {
				x->reps[i] = x->reps[i - 1];
				i--;
			}
			x->reps[i] = o[AX_TLANE];
		}
	}
	/* the descriptor's swizzle mode from the shared layout's */
	x->swz = 0;
	x->pitch = 16;
	if (ls->swizzled) {
		int mbits = bits == 32 ? 2 : bits == 16 ? 3 : 4;
		if (ls->swz_m != mbits || ls->swz_s != 3 || ls->swz_b < 1 || ls->swz_b > 3)
			return xprintf("the swizzle of '%s' (ComposeLayout(%d, %d, %d)) is none of the descriptor's modes: "
			               "the 16-byte chunk XOR bits [7:7+b) of the address, b = 1, 2, 3 (32, 64, 128 bytes; "
			               "ComposeLayout(%d, b, 3) on %s)", sb->name, ls->swz_m, ls->swz_b, ls->swz_s, mbits,
			               dtypes[dt].name);
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
	x->lu = layout_copy(ls);
	x->lu->swizzled = false;
	const Buffer *a = tb;
	while (a && !a->alloc_addr)
		a = a->base;
	if (!a)
		return xprintf("tensor memory '%s' has no allocated_addr=", tb->name);
	x->taddr = a->alloc_addr;
	/* the starts: constants, or run-time multiples of g */
	Maps base;
	memset(&base, 0, sizeof base);
	const Value *o[2] = { dst, src };
	int64_t ways = 1;
	for (int s = 0; s < 2; s++)
		for (int d = 0; d < o[s]->ndim; d++) {
			const Buffer *b = o[s]->buffer;
			Expr *e = o[s]->starts[d];
			int64_t v;
			if (expr_int(e, &v)) {
				base.st[s][d] = v;
				continue;
			}
			if (x->nrt == CP_MAX_RT)
				return xprintf("not supported yet: more than %d region starts that are not constants", CP_MAX_RT);
			Rt *r = &x->rt[x->nrt++];
			r->tm = !s;
			r->dim = d;
			r->e = e;
			r->g = expr_multiple(e);
			if (r->g <= 0)
				r->g = 1;
			int64_t lo = 0, hi = b->shape[d] - o[s]->extents[d], elo, ehi;
			if (expr_range(e, &elo, &ehi)) {
				lo = elo > lo ? elo : lo;
				hi = ehi < hi ? ehi : hi;
			}
			r->v0 = (lo + r->g - 1) / r->g * r->g;
			if (lo < 0)
				r->v0 = 0;
			r->n = r->v0 <= hi ? (hi - r->v0) / r->g + 1 : 1;
			base.st[s][d] = r->v0;
			ways *= r->n;
			if (ways > 4096 || ways * x->count > (1 << 22))
				return xprintf("not supported yet: the region starts that are not constants take %lld placements "
				               "together, too many to check", (long long)ways);
		}
	base.lane = xalloc(sizeof(int64_t) * (size_t)x->count);
	base.tcol = xalloc(sizeof(int64_t) * (size_t)x->count);
	base.soff = xalloc(sizeof(int64_t) * (size_t)x->count);
	const char *why = maps(x, &base);
	if (!why)
		why = cover(x, &base);
	if (why)
		return why;
	if (!x->nrt)
		return NULL;
	/* every other placement: the first one moved, linearly in the steps */
	Maps at = base;
	at.lane = xalloc(sizeof(int64_t) * (size_t)x->count);
	at.tcol = xalloc(sizeof(int64_t) * (size_t)x->count);
	at.soff = xalloc(sizeof(int64_t) * (size_t)x->count);
	int64_t idx[CP_MAX_RT] = { 0 };
	for (int i = 0; i < x->nrt; i++) {
		Rt *r = &x->rt[i];
		if (r->n < 2)
			continue;
		memcpy(at.st, base.st, sizeof at.st);
		at.st[!r->tm][r->dim] = r->v0 + r->g;
		int64_t dl, dc, ds, bad = 0;
		const char *side = r->tm ? "tensor-memory" : "shared";
		const char *w = xprintf("the start %s of dimension %d of the %s region, which txc proves a multiple of %lld "
		                        "(from %lld)", start_str(r), r->dim, side, (long long)r->g, (long long)r->v0);
		if ((why = maps(x, &at)))
			return xprintf("%s: at %lld, %s", w, (long long)(r->v0 + r->g), why);
		if (!moved(x, &base, &at, &dl, &dc, &ds, &bad))
			return xprintf("%s: at %lld the region is not the one at %lld moved by one offset (element %s goes to lane "
			               "%lld, column %lld, shared offset %lld, from lane %lld, column %lld, offset %lld)", w,
			               (long long)(r->v0 + r->g), (long long)r->v0, coords(r->tm ? dst : src, at.st[!r->tm], bad),
			               (long long)at.lane[bad], (long long)at.tcol[bad], (long long)at.soff[bad],
			               (long long)base.lane[bad], (long long)base.tcol[bad], (long long)base.soff[bad]);
		if (dc % (4 * x->epw))
			return xprintf("%s: each step moves the region %lld %s columns, not a multiple of 4 32-bit columns "
			               "(tcgen05.cp's address is 128-bit aligned)", w, (long long)dc, dtypes[dt].name);
		int64_t sneed = x->swz ? 8 * x->pitch : 16;
		if ((ds * x->esz) % sneed)
			return xprintf("%s: each step moves the source %lld bytes, not a multiple of %lld (%s)", w,
			               (long long)(ds * x->esz), (long long)sneed,
			               x->swz ? xprintf("the 8-row pattern of the %lld-byte swizzle: a stage must be whole "
			                                "swizzle atoms", (long long)x->pitch)
			                      : "the descriptor's 16-byte units");
		r->dl = dl;
		r->dc = dc / x->epw;
		r->ds = ds / x->epw;
	}
	/* all placements together */
	for (int64_t p = 0; p < ways; p++) {
		int64_t q = p, dl = 0, dc = 0, ds = 0;
		memcpy(at.st, base.st, sizeof at.st);
		for (int i = 0; i < x->nrt; i++) {
			Rt *r = &x->rt[i];
			idx[i] = q % r->n;
			q /= r->n;
			at.st[!r->tm][r->dim] = r->v0 + idx[i] * r->g;
			dl += idx[i] * r->dl;
			dc += idx[i] * r->dc * x->epw;
			ds += idx[i] * r->ds * x->epw;
		}
		int64_t gl, gc, gs, bad = 0;
		Buf b = { 0 };
		bputs(&b, "");
		for (int i = 0; i < x->nrt; i++)
			bprintf(&b, "%s%s = %lld", i ? ", " : "", start_str(&x->rt[i]), (long long)at.st[!x->rt[i].tm][x->rt[i].dim]);
		if ((why = maps(x, &at)))
			return xprintf("the region at %s: %s", b.s, why);
		if (!moved(x, &base, &at, &gl, &gc, &gs, &bad) || gl != dl || gc != dc || gs != ds)
			return xprintf("the region at %s is not the first placement moved by the sum of each start's steps",
			               b.s);
		for (int i = 0; i < x->n; i++) {
			const TccpShape *sh = &tccp_shapes[x->v[i].shape];
			for (int r = 0; r < sh->rows; r++)
				for (int j = 0; j < sh->replicas; j++) {
					int64_t l = x->v[i].lane + dl + tccp_lane(sh, r, j);
					if (l < 0 || l >= 128)
						return xprintf("the region at %s: %s at lane %lld writes lane %lld; tensor memory has lanes "
						               "0..127", b.s, shape_name(x->v[i].shape), (long long)(x->v[i].lane + dl),
						               (long long)l);
				}
		}
	}
	return NULL;
}

const char *pred_tcgen05_cp(const Try *t)
{
	Cp x;
	return plan(&x, t->dst, t->src, t->call);
}

/* e / g, where g divides e: x * (c / g) for e = x * c with g dividing c */
static Expr *quotient(Expr *e, int64_t g)
{
	if (e->kind == E_BIN && e->op == OP_MUL && e->b->kind == E_INT && e->b->ival % g == 0)
		return ex_mul(e->a, ex_int(e->b->ival / g));
	return ex_div(e, g);
}

/* v0 + sum over the run-time starts of ((start - first) / g) * step. */
static Expr *moving(const Cp *x, int64_t v0, int which)
{
	Expr *e = ex_int(v0);
	for (int i = 0; i < x->nrt; i++) {
		const Rt *r = &x->rt[i];
		int64_t step = which == 0 ? r->dl : which == 1 ? r->dc : r->ds * x->epw;
		if (!step || r->n < 2)
			continue;
		Expr *q = quotient(r->v0 ? ex_add(r->e, ex_int(-r->v0)) : r->e, r->g);
		e = ex_add(e, ex_mul(q, ex_int(step)));
	}
	return e;
}

static int lower(Lower *L, OpSite *o, const Variant *va, const Plan *p)
{
	(void)va, (void)p;
	Cp x;
	const char *why = plan(&x, o->call->args[0]->val, o->call->args[1]->val, o->call);
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
		const TccpShape *sh = &tccp_shapes[c->shape];
		Expr *po[2] = { ex_name(x.sb->name), moving(&x, c->start * x.epw, 2) };
		Expr *ad = ex_name(d);
		Expr *ea[5] = { ex_call("T.address_of", 1, &ad), ex_call("T.pointer_offset", 2, po), ex_int(c->lbo / 16),
		                ex_int(c->sbo / 16), ex_int(x.swz) };
		Stmt *e = new_stmt(S_EXPR, o->stmt->pos);
		e->value = ex_call("T.cuda.tcgen05.encode_matrix_descriptor", 5, ea);
		v[nv++] = e;
		Expr *shape = new_expr(E_STR, (Pos){0});
		shape->str = sh->shape;
		Expr *ca[5] = { x.taddr, moving(&x, c->lane, 0), moving(&x, c->col, 1), shape, ex_name(d) };
		Stmt *cp = new_stmt(S_EXPR, o->stmt->pos);
		cp->value = ex_call("T.ptx.tcgen05.cp", 5, ca);
		if (*sh->multicast) {
			Expr *mc = new_expr(E_STR, (Pos){0});
			mc->str = sh->multicast;
			Kw k = { "multicast", mc, (Pos){0} };
			vpush(cp->value->kws, cp->value->nkws, k);
		}
		v[nv++] = cp;
	}
	op_replace(o, v, nv);
	return 0;
}

const Family family_tcgen05_cp = { NULL, NULL, NULL, NULL, NULL, lower };
