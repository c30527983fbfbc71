/* TileLayout: construction, the named layouts of tirx.md, size and span.
 * All arithmetic is exact: an overflow is reported, never wrapped. */
#include <string.h>

#include "ir.h"

bool mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }
bool add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }

Layout *layout_new(void)
{
	return xalloc(sizeof(Layout));
}

/* The cache is made on first use: most layouts (an op's region, a plan's)
 * are never applied per element, and a cache is 160 bytes. A const
 * layout gets one too: the cache is not part of what the layout means. */
LayoutCache *layout_cache(const Layout *l)
{
	if (!l->cache)
		((Layout *)l)->cache = xalloc(sizeof(LayoutCache));
	return l->cache;
}

Layout *layout_copy(const Layout *l)
{
	Layout *c = layout_new();
	*c = *l;
	c->cache = NULL; /* the copy will be changed: a cache of its own, when used */
	c->shard = xalloc(sizeof(Iter) * (size_t)(l->nshard + 1));
	if (l->nshard)
		memcpy(c->shard, l->shard, sizeof(Iter) * (size_t)l->nshard);
	/* no replicas (most layouts): none, as layout_new leaves it */
	c->rep = l->nrep ? xalloc(sizeof(Iter) * (size_t)(l->nrep + 1)) : NULL;
	if (l->nrep)
		memcpy(c->rep, l->rep, sizeof(Iter) * (size_t)l->nrep);
	return c;
}

void layout_push(Layout *l, bool replica, int64_t extent, int64_t stride, int axis)
{
	if (l->cache)
		l->cache->grouped = NULL;
	Iter it = { extent, stride, axis };
	Iter **v = replica ? &l->rep : &l->shard;
	int *n = replica ? &l->nrep : &l->nshard;
	*v = xrealloc(*v, sizeof(Iter) * (size_t)*n, sizeof(Iter) * (size_t)(*n + 1));
	(*v)[(*n)++] = it;
}

bool layout_size(const Layout *l, int64_t *out)
{
	int64_t n = 1;
	for (int i = 0; i < l->nshard; i++)
		if (!mul_ok(n, l->shard[i].extent, &n))
			return false;
	*out = n;
	return true;
}

static bool span_add(const Iter *v, int n, int axis, int64_t *acc)
{
	for (int i = 0; i < n; i++) {
		int64_t t;
		if (v[i].axis != axis)
			continue;
		if (!mul_ok(v[i].extent - 1, v[i].stride, &t) || !add_ok(*acc, t, acc))
			return false;
	}
	return true;
}

bool layout_span(const Layout *l, int axis, int64_t *out)
{
	int64_t s = 1;
	if (!span_add(l->shard, l->nshard, axis, &s) || !span_add(l->rep, l->nrep, axis, &s) ||
	    !add_ok(s, l->off[axis], &s))
		return false;
	*out = s;
	return true;
}

bool layout_uses_axis_kind(const Layout *l, int kind)
{
	for (int i = 0; i < l->nshard; i++)
		if (axes[l->shard[i].axis].kind == kind)
			return true;
	for (int i = 0; i < l->nrep; i++)
		if (axes[l->rep[i].axis].kind == kind)
			return true;
	for (int a = 0; a < AX_COUNT; a++)
		if (l->off[a] && axes[a].kind == kind)
			return true;
	return false;
}

/* Row-major iters for `shape` on axis m, appended to the shard; false
 * when the strides overflow. */
static bool row_major(Layout *l, const int64_t *shape, int n)
{
	int64_t stride = 1;
	int first = l->nshard;
	if (n > 0) { /* as n layout_push calls would, in one array */
		if (l->cache)
			l->cache->grouped = NULL;
		Iter *v = xalloc(sizeof(Iter) * (size_t)(first + n + 1));
		if (first)
			memcpy(v, l->shard, sizeof(Iter) * (size_t)first);
		for (int i = 0; i < n; i++)
			v[first + i] = (Iter){ shape[i], 0, AX_M };
		l->shard = v;
		l->nshard = first + n;
	}
	for (int i = n - 1; i >= 0; i--) {
		l->shard[first + i].stride = stride;
		if (i > 0 && !mul_ok(stride, shape[i], &stride))
			return false;
	}
	return true;
}

static int log2_exact(int64_t x)
{
	for (int k = 0; k < 63; k++)
		if ((int64_t)1 << k == x)
			return k;
	return -1;
}

const char *layout_wg_local(Layout *l, int64_t cols, int64_t rows)
{
	if (cols <= 0 || rows <= 0 || rows > 128)
		return xprintf("wg_local_layout needs 1 <= rows <= 128 and cols >= 1 (got rows %lld, cols %lld)",
		               (long long)rows, (long long)cols);
	layout_push(l, false, rows, 1, AX_TIDINWG);
	layout_push(l, false, cols, 1, AX_M);
	return NULL;
}

const char *layout_tmem_datapath(Layout *l, const char *dp, int64_t rows, int64_t cols, int64_t sub)
{
	if (cols <= 0)
		return xprintf("tmem_datapath_layout: cols must be positive (got %lld)", (long long)cols);
	if (sub != 0 && sub != 1)
		return xprintf("tmem_datapath_layout: sub_slab must be 0 or 1 (got %lld)", (long long)sub);
	if (sub && strcmp(dp, "F") != 0 && strcmp(dp, "C") != 0)
		return xprintf("tmem_datapath_layout: sub_slab applies to datapaths F and C only");
	int64_t need;
	if (!strcmp(dp, "D") || !strcmp(dp, "A")) {
		need = 128;
		layout_push(l, false, rows, 1, AX_TLANE);
		layout_push(l, false, cols, 1, AX_TCOL);
	} else if (!strcmp(dp, "F") || !strcmp(dp, "C")) {
		need = 64;
		layout_push(l, false, 4, 32, AX_TLANE);
		layout_push(l, false, 16, 1, AX_TLANE);
		layout_push(l, false, cols, 1, AX_TCOL);
		l->off[AX_TLANE] = 16 * sub;
	} else if (!strcmp(dp, "B") || !strcmp(dp, "E")) {
		need = 64;
		if (cols % 2)
			return xprintf("tmem_datapath_layout(\"%s\"): cols must be even (got %lld)", dp, (long long)cols);
		layout_push(l, false, rows, 1, AX_TLANE);
		layout_push(l, false, 2, 64, AX_TLANE);
		layout_push(l, false, cols / 2, 1, AX_TCOL);
	} else if (!strcmp(dp, "G")) {
		need = 32;
		if (cols % 4)
			return xprintf("tmem_datapath_layout(\"G\"): cols must be a multiple of 4 (got %lld)", (long long)cols);
		layout_push(l, false, rows, 1, AX_TLANE);
		layout_push(l, false, 4, 32, AX_TLANE);
		layout_push(l, false, cols / 4, 1, AX_TCOL);
	} else {
		return xprintf("tmem_datapath_layout: unknown datapath \"%s\" (expected A, B, C, D, E, F or G)", dp);
	}
	if (rows != need)
		return xprintf("tmem_datapath_layout(\"%s\") has %lld rows, not %lld", dp, (long long)need, (long long)rows);
	return NULL;
}

/* The register layout of one tcgen05.ld of `shape` over a warpgroup, from
 * the lane/column table of ptx.md. Rows are TMEM lanes: row R of the tile is
 * R = 32w + 16s + 8a + b for warp w, slab s (rows / 64 of them), and the
 * lane's half a and eighth b as the table gives them for thread t of the
 * warp; the column (in 32-bit units) and the register follow the table.
 * 16-bit elements pack two to a register: the column splits once more. */
const char *layout_tcgen05_atom(Layout *l, const char *shape, int64_t rows, int64_t cols, int dt)
{
	return layout_tcgen05_atom_num(l, shape, rows, cols, dt, false);
}

/* any_num: a repetition count the instruction cannot take (not a power of
 * two, too many) still gives the layout, for a register buffer of which a
 * copy takes a column slice of whole repetitions. */
const char *layout_tcgen05_atom_num(Layout *l, const char *shape, int64_t rows, int64_t cols, int dt, bool any_num)
{
	int bits = dtypes[dt].bits;
	if (bits != 8 && bits != 16 && bits != 32)
		return xprintf("tcgen05_atom_layout: dtype %s is not 8, 16 or 32 bits wide", dtypes[dt].name);
	if (rows != 128 && rows != 64 && rows != 32)
		return xprintf("tcgen05_atom_layout: rows must be 64 or 128, or 32 for .32x32b (got %lld)", (long long)rows);
	int64_t cols32 = cols * bits / 32;
	if (cols <= 0 || cols * bits % 32)
		return xprintf("tcgen05_atom_layout: %lld %s columns do not fill whole 32-bit columns",
		               (long long)cols, dtypes[dt].name);
	int64_t pack = 32 / bits; /* elements per register */
	int64_t slabs = rows / 64;
	const Tcgen05Shape *s = tcgen05_shape(shape);
	if (!s)
		return xprintf("tcgen05_atom_layout: unknown shape \"%s\" (expected %s)", shape, tcgen05_shape_list("or"));
	/* the tile's columns one repetition covers: a warpgroup of 32-lane
	 * warps reaches 128 lanes, so 64 rows take two columns a repetition;
	 * 16-lane warps reach 64 lanes, and 128 rows are two slabs instead */
	int64_t per_rep = s->lanes == 32 ? s->cols * 128 / rows : s->cols;
	int64_t n = cols32 / per_rep;
	if (cols32 % per_rep || (!any_num && (log2_exact(n) < 0 || n > s->max_num)))
		return xprintf("tcgen05_atom_layout: %lld 32-bit columns need .%s.x%lld%s; the repetition must be a power of two from 1 to %d",
		               (long long)cols32, shape, (long long)(cols32 / per_rep),
		               cols32 % per_rep ? " and a fraction" : "", s->max_num);
	int id = (int)(s - tcgen05_shapes);
	if (id != TC_32X32B && rows == 32)
		return xprintf("tcgen05_atom_layout: .%s covers 64 or 128 rows, not 32", shape);
	if (id == TC_32X32B && rows < 128 && bits != 32)
		return xprintf("tcgen05_atom_layout: 32x32b with %lld rows holds 32-bit elements only", (long long)rows);
	int64_t P = pack; /* m strides count elements */
	if (id == TC_32X32B) {
		if (rows == 128) {
			layout_push(l, false, 128, 1, AX_TIDINWG);
			layout_push(l, false, cols, 1, AX_M);
		} else { /* datapaths B (64 rows) and G (32): the columns split over 128 / rows lane groups */
			layout_push(l, false, rows, 1, AX_TIDINWG);
			layout_push(l, false, 128 / rows, rows, AX_TIDINWG);
			layout_push(l, false, cols / (128 / rows), 1, AX_M);
		}
		return NULL;
	}
	int64_t regs = s->regs * n; /* registers per slab per thread */
	layout_push(l, false, 4, 32, AX_TIDINWG);
	layout_push(l, false, slabs, regs * P, AX_M);
	switch (id) {
	case TC_16X64B:
		layout_push(l, false, 2, 1, AX_TIDINWG);
		layout_push(l, false, 8, 4, AX_TIDINWG);
		layout_push(l, false, n, P, AX_M);
		layout_push(l, false, 2, 2, AX_TIDINWG);
		break;
	case TC_16X128B:
		layout_push(l, false, 2, P, AX_M);
		layout_push(l, false, 8, 4, AX_TIDINWG);
		layout_push(l, false, n, 2 * P, AX_M);
		layout_push(l, false, 4, 1, AX_TIDINWG);
		break;
	case TC_16X256B:
		layout_push(l, false, 2, 2 * P, AX_M);
		layout_push(l, false, 8, 4, AX_TIDINWG);
		layout_push(l, false, n, 4 * P, AX_M);
		layout_push(l, false, 4, 1, AX_TIDINWG);
		layout_push(l, false, 2, P, AX_M);
		break;
	default:
		die("tcgen05_atom_layout: shape %s of tcgen05.def has no register layout here", shape);
	}
	if (pack > 1)
		layout_push(l, false, pack, 1, AX_M);
	return NULL;
}

const char *layout_mma_shared(Layout *l, int dt, int64_t swizzle, const int64_t *shape, int n)
{
	int bits = dtypes[dt].bits;
	if (bits != 8 && bits != 16 && bits != 32)
		return xprintf("mma_shared_layout: dtype %s is not 8, 16 or 32 bits wide", dtypes[dt].name);
	if (swizzle < 0 || swizzle > 3)
		return xprintf("mma_shared_layout: swizzle must be 0 (none), 1 (32B), 2 (64B) or 3 (128B), not %lld",
		               (long long)swizzle);
	if (n < 2 || n > LAYOUT_MAX_ITERS - 3)
		return xprintf("mma_shared_layout takes the tile shape as (..., rows, cols): 2 to %d dimensions, not %d",
		               LAYOUT_MAX_ITERS - 3, n);
	int64_t rows = shape[n - 2], cols = shape[n - 1], tile;
	for (int i = 0; i < n; i++)
		if (shape[i] <= 0)
			return xprintf("mma_shared_layout: dimension %d is %lld; every dimension is positive", i,
			               (long long)shape[i]);
	int64_t e = 128 / bits; /* elements in 16 bytes */
	int64_t width = swizzle ? ((int64_t)128 << swizzle) / bits : e;
	/* without a swizzle and cols not whole 16-byte chunks: row-major, as TVM */
	if (!swizzle && cols % e)
		return layout_default(l, shape, n);
	if (swizzle && rows % 8)
		return xprintf("mma_shared_layout: rows must be a positive multiple of 8 (got %lld)", (long long)rows);
	if (cols % width)
		return xprintf("mma_shared_layout: cols must be a positive multiple of %lld for %s with swizzle %lld (got %lld)",
		               (long long)width, dtypes[dt].name, (long long)swizzle, (long long)cols);
	if (!mul_ok(rows, cols, &tile))
		return "layout is too large: its size overflows 64 bits";
	/* leading dimensions (pipeline stages) outermost, row-major, each a
	 * whole (rows, cols) tile: TVM's tile_to of the tile over the shape */
	int64_t stride[LAYOUT_MAX_ITERS], size = tile;
	for (int i = n - 3; i >= 0; i--) {
		stride[i] = size;
		if (!mul_ok(size, shape[i], &size))
			return "layout is too large: its size overflows 64 bits";
	}
	for (int i = 0; i < n - 2; i++)
		layout_push(l, false, shape[i], stride[i], AX_M);
	layout_push(l, false, rows, width, AX_M);
	layout_push(l, false, cols / width, rows * width, AX_M);
	layout_push(l, false, width, 1, AX_M);
	if (swizzle) {
		l->swizzled = true;
		l->swz_m = log2_exact(e);
		l->swz_b = (int)swizzle;
		l->swz_s = 3;
	}
	return NULL;
}

const char *layout_default(Layout *l, const int64_t *shape, int n)
{
	int64_t size = 1;
	for (int i = 0; i < n; i++)
		if (!mul_ok(size, shape[i], &size))
			return "layout is too large: its size overflows 64 bits";
	return row_major(l, shape, n) ? NULL : "layout is too large: its size overflows 64 bits";
}
