/* The named layouts: structure by hand from tirx.md, and the tcgen05 atom
 * layouts checked element by element against the lane/column table of
 * ptx.md. */
#include "tap.h"

/* A small apply for the test: split the flat index over the shard extents,
 * innermost first, and sum component * stride per axis. */
static void apply(const Layout *l, int64_t flat, int64_t *out)
{
	for (int a = 0; a < AX_COUNT; a++)
		out[a] = l->off[a];
	for (int i = l->nshard - 1; i >= 0; i--) {
		int64_t e = l->shard[i].extent;
		int64_t c = i == 0 ? flat : flat % e;
		flat = i == 0 ? 0 : flat / e;
		out[l->shard[i].axis] += c * l->shard[i].stride;
	}
}

/* The table of ptx.md: lane and column (32-bit) of register r of lane t. */
static void table(const char *shape, int t, int r, int *lane, int *col)
{
	if (!strcmp(shape, "32x32b")) {
		*lane = t, *col = r;
	} else if (!strcmp(shape, "16x64b")) {
		*lane = (t >> 2) + 8 * (t & 1), *col = ((t >> 1) & 1) + 2 * r;
	} else if (!strcmp(shape, "16x128b")) {
		*lane = (t >> 2) + 8 * (r & 1), *col = (t & 3) + 4 * (r >> 1);
	} else {
		*lane = (t >> 2) + 8 * ((r >> 1) & 1), *col = 2 * (t & 3) + (r & 1) + 8 * (r >> 2);
	}
}

/* For every element (row, col) of the tile: the layout says which thread
 * of the warpgroup and which register element holds it; the table says
 * which TMEM lane and column that register reads when warp w issues the
 * shape at row 16*slab (32x32b: one issue per warp). The lane must be the
 * row and the column the element's 32-bit column (and half, for 16 bits). */
static void check_atom(const char *shape, int rows, int cols, int dt)
{
	Layout *l = layout_new();
	const char *why = layout_tcgen05_atom(l, shape, rows, cols, dt);
	int bits = dtypes[dt].bits, pack = 32 / bits;
	int cols32 = cols / pack;
	int per = !strcmp(shape, "32x32b") ? 1 : !strcmp(shape, "16x64b") ? 1 : !strcmp(shape, "16x128b") ? 2 : 4;
	int n = !strcmp(shape, "32x32b") ? (rows == 128 ? cols32 : cols32 / 2) :
	        cols32 / (!strcmp(shape, "16x64b") ? 2 : !strcmp(shape, "16x128b") ? 4 : 8);
	int regs = per * n; /* registers per issue */
	int bad = 0;
	int64_t size = 0;
	if (!why && layout_size(l, &size) && size == (int64_t)rows * cols) {
		for (int R = 0; R < rows; R++)
			for (int c = 0; c < cols; c++) {
				int64_t o[AX_COUNT];
				apply(l, (int64_t)R * cols + c, o);
				int tid = (int)o[AX_TIDINWG], m = (int)o[AX_M];
				int w = tid / 32, t = tid % 32, reg = m / pack, half = m % pack;
				int lane, col, base;
				if (!strcmp(shape, "32x32b") && rows == 64) {
					/* tirx.md: thread tid holds row tid % 64 and the
					 * column half tid / 64 */
					if (tid % 64 != R || (tid / 64) * (cols / 2) + m != c)
						bad++;
					continue;
				}
				if (!strcmp(shape, "32x32b")) {
					table(shape, t, reg, &lane, &col);
					base = 32 * w;
				} else {
					int slab = reg / regs;
					table(shape, t, reg % regs, &lane, &col);
					base = (rows / 4) * w + 16 * slab;
				}
				if (base + lane != R || col * pack + half != c)
					bad++;
			}
	}
	ok(!why && size == (int64_t)rows * cols && bad == 0, "tcgen05_atom_layout(%s, (%d, %d), %s) matches the table (%d bad)",
	   shape, rows, cols, dtypes[dt].name, bad);
	if (why)
		printf("#   %s\n", why);
}

void test_layout(void)
{
	Layout *l = layout_new();
	static const int64_t wg[][3] = { { 128, 1, AX_TIDINWG }, { 8, 1, AX_M } };
	ok(!layout_wg_local(l, 8, 128) && iters_are(l, wg, 2), "wg_local_layout(8)");

	l = layout_new();
	static const int64_t d[][3] = { { 128, 1, AX_TLANE }, { 16, 1, AX_TCOL } };
	ok(!layout_tmem_datapath(l, "D", 128, 16, 0) && iters_are(l, d, 2), "tmem_datapath_layout D");
	l = layout_new();
	static const int64_t f[][3] = { { 4, 32, AX_TLANE }, { 16, 1, AX_TLANE }, { 16, 1, AX_TCOL } };
	ok(!layout_tmem_datapath(l, "F", 64, 16, 1) && iters_are(l, f, 3) && l->off[AX_TLANE] == 16,
	   "tmem_datapath_layout F, sub_slab 1: lane offset 16");
	l = layout_new();
	static const int64_t be[][3] = { { 64, 1, AX_TLANE }, { 2, 64, AX_TLANE }, { 8, 1, AX_TCOL } };
	ok(!layout_tmem_datapath(l, "B", 64, 16, 0) && iters_are(l, be, 3), "tmem_datapath_layout B");
	l = layout_new();
	static const int64_t g[][3] = { { 32, 1, AX_TLANE }, { 4, 32, AX_TLANE }, { 4, 1, AX_TCOL } };
	ok(!layout_tmem_datapath(l, "G", 32, 16, 0) && iters_are(l, g, 3), "tmem_datapath_layout G");
	ok(layout_tmem_datapath(layout_new(), "D", 64, 16, 0) != NULL, "datapath D with 64 rows is refused");
	ok(layout_tmem_datapath(layout_new(), "Z", 64, 16, 0) != NULL, "datapath Z is refused");
	ok(layout_tmem_datapath(layout_new(), "G", 32, 6, 0) != NULL, "datapath G with 6 columns is refused");

	l = layout_new();
	static const int64_t m3[][3] = { { 64, 64, AX_M }, { 4, 4096, AX_M }, { 64, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT16, 3, (int64_t[]){ 64, 256 }, 2) && iters_are(l, m3, 3) && l->swizzled && l->swz_m == 3 &&
	   l->swz_b == 3 && l->swz_s == 3, "mma_shared_layout(float16, 128B, (64, 256)) as in tirx.md");
	l = layout_new();
	static const int64_t m0[][3] = { { 64, 8, AX_M }, { 4, 512, AX_M }, { 8, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT16, 0, (int64_t[]){ 64, 32 }, 2) && iters_are(l, m0, 3) && !l->swizzled,
	   "mma_shared_layout(float16, none, (64, 32)): 16-byte core rows");
	l = layout_new();
	static const int64_t m1[][3] = { { 16, 8, AX_M }, { 2, 128, AX_M }, { 8, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT32, 1, (int64_t[]){ 16, 16 }, 2) && iters_are(l, m1, 3) && l->swz_m == 2 && l->swz_b == 1,
	   "mma_shared_layout(float32, 32B, (16, 16))");
	ok(layout_mma_shared(layout_new(), DT_FLOAT16, 4, (int64_t[]){ 64, 64 }, 2) != NULL, "swizzle 4 is refused");
	ok(layout_mma_shared(layout_new(), DT_FLOAT16, 3, (int64_t[]){ 64, 32 }, 2) != NULL, "32 columns under a 64-wide atom are refused");
	/* TVM's ring of stages: (3, 128, 64) float16, 128B: each stage a whole
	 * (128, 64) tile of 8192 elements, outermost */
	l = layout_new();
	static const int64_t m3d[][3] = { { 3, 8192, AX_M }, { 128, 64, AX_M }, { 1, 8192, AX_M }, { 64, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT16, 3, (int64_t[]){ 3, 128, 64 }, 3) && iters_are(l, m3d, 4) && l->swizzled,
	   "mma_shared_layout(float16, 128B, (3, 128, 64)): stages outermost, 8192 apart");
	l = layout_new();
	static const int64_t m4d[][3] = { { 2, 6144, AX_M }, { 3, 2048, AX_M }, { 32, 32, AX_M }, { 2, 1024, AX_M },
	                                   { 32, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT32, 3, (int64_t[]){ 2, 3, 32, 64 }, 4) && iters_are(l, m4d, 5),
	   "mma_shared_layout(float32, 128B, (2, 3, 32, 64)): two leading dimensions, row-major");
	/* no swizzle, cols not whole 16-byte chunks: row-major (TVM's plain tile) */
	l = layout_new();
	static const int64_t mrm[][3] = { { 16, 12, AX_M }, { 12, 1, AX_M } };
	ok(!layout_mma_shared(l, DT_FLOAT16, 0, (int64_t[]){ 16, 12 }, 2) && iters_are(l, mrm, 2) && !l->swizzled,
	   "mma_shared_layout(float16, none, (16, 12)): row-major");
	ok(layout_mma_shared(layout_new(), DT_FLOAT16, 3, (int64_t[]){ 12, 64 }, 2) != NULL,
	   "12 rows under a swizzle are refused");
	ok(layout_mma_shared(layout_new(), DT_FLOAT16, 3, (int64_t[]){ 64 }, 1) != NULL, "a 1-d shape is refused");

	l = layout_new();
	static const int64_t a32[][3] = { { 128, 1, AX_TIDINWG }, { 8, 1, AX_M } };
	ok(!layout_tcgen05_atom(l, "32x32b", 128, 8, DT_FLOAT32) && iters_are(l, a32, 2), "32x32b, 128 rows, as in tirx.md");
	l = layout_new();
	static const int64_t a64[][3] = { { 64, 1, AX_TIDINWG }, { 2, 64, AX_TIDINWG }, { 4, 1, AX_M } };
	ok(!layout_tcgen05_atom(l, "32x32b", 64, 8, DT_FLOAT32) && iters_are(l, a64, 3), "32x32b, 64 rows, as in tirx.md");
	const char *shapes[] = { "32x32b", "16x64b", "16x128b", "16x256b" };
	const int dts[] = { DT_UINT8, DT_FLOAT16, DT_FLOAT32 }; /* four, two, one element to a register */
	for (int s = 0; s < 4; s++)
		for (int rows = 64; rows <= 128; rows += 64)
			for (int k = 0; k < 3; k++) {
				if (s == 0 && rows == 64 && dts[k] != DT_FLOAT32)
					continue;
				check_atom(shapes[s], rows, s == 0 ? 16 : 32, dts[k]);
			}
	ok(layout_tcgen05_atom(layout_new(), "16x256b", 128, 8 * 64, DT_FLOAT32) != NULL, "16x256b.x64 exceeds 32 repetitions");
	ok(layout_tcgen05_atom(layout_new(), "16x64b", 128, 6, DT_FLOAT32) != NULL, "16x64b with 6 columns: x3 is not a power of two");
	ok(layout_tcgen05_atom(layout_new(), "8x8b", 128, 8, DT_FLOAT32) != NULL, "an unknown shape");
	ok(layout_tcgen05_atom(layout_new(), "32x32b", 128, 8, DT_FLOAT64) != NULL, "64-bit elements");
	ok(layout_tcgen05_atom(layout_new(), "32x32b", 128, 6, DT_INT8) != NULL, "6 8-bit columns: not whole 32-bit columns");
	ok(layout_tcgen05_atom(layout_new(), "32x32b", 128, 12, DT_FLOAT32) != NULL &&
	   !layout_tcgen05_atom_num(layout_new(), "32x32b", 128, 12, DT_FLOAT32, true),
	   "32x32b over 12 columns: no instruction's count, but the layout of a tile a copy slices");
}
