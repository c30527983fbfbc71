/* The layout algebra: tirx.md's worked examples, hand-derived cases for
 * each operation, the hardware swizzle, and a property test over random
 * layouts. */
#include "tap.h"

static Layout *mk(const int64_t (*it)[3], int n)
{
	Layout *l = layout_new();
	for (int i = 0; i < n; i++)
		layout_push(l, false, it[i][0], it[i][1], (int)it[i][2]);
	return l;
}

/* A deterministic generator for the property test. */
static uint64_t seed = 88172645463325252ull;
static int64_t rnd(int64_t n)
{
	seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
	return (int64_t)(seed % (uint64_t)n);
}

static bool same_apply(const Layout *a, const Layout *b, int64_t n)
{
	for (int64_t f = 0; f < n; f++) {
		int64_t x[AX_COUNT], y[AX_COUNT];
		if (!layout_apply(a, f, x) || !layout_apply(b, f, y) || memcmp(x, y, sizeof x) != 0)
			return false;
	}
	return true;
}

static void examples(void)
{
	/* tirx.md: S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid
	 * at (7, 15) of shape (8, 16): flat 127 splits into (7, 1, 3, 1). */
	static const int64_t a[][3] = { { 8, 4, AX_LANEID }, { 2, 1, AX_WARPID }, { 4, 1, AX_LANEID }, { 2, 1, AX_M } };
	Layout *l = mk(a, 4);
	layout_push(l, true, 2, 4, AX_WARPID);
	l->off[AX_WARPID] = 5;
	int64_t o[AX_COUNT], shape[] = { 8, 16 }, at[] = { 7, 15 };
	ok(layout_apply(l, 127, o) && o[AX_LANEID] == 31 && o[AX_WARPID] == 6 && o[AX_M] == 1,
	   "worked example: (7, 15) -> laneid 31, warpid 6, m 1");
	ok(layout_apply_coord(l, shape, 2, at, o) && o[AX_LANEID] == 31 && o[AX_WARPID] == 6 && o[AX_M] == 1,
	   "the same with coordinates and a shape");
	is_int(layout_nreplicas(l), 2, "one replica iter of extent 2");
	layout_replica(l, 1, o);
	is_int(o[AX_WARPID], 10, "replica 1 adds 4 @ warpid: warpid 10");
	int64_t it[] = { 7, 1, 3, 1 };
	ok(layout_apply_iters(l, it, o) && o[AX_LANEID] == 31 && o[AX_M] == 1, "apply with one coordinate per iter");

	/* tirx.md: S[(2,128,112):(112@TCol,1@TLane,1@TCol)] maps (1,127,111) to TLane 127, TCol 223 */
	static const int64_t t[][3] = { { 2, 112, AX_TCOL }, { 128, 1, AX_TLANE }, { 112, 1, AX_TCOL } };
	l = mk(t, 3);
	int64_t tshape[] = { 2, 128, 112 }, tat[] = { 1, 127, 111 };
	ok(layout_apply_coord(l, tshape, 3, tat, o) && o[AX_TLANE] == 127 && o[AX_TCOL] == 223,
	   "worked example: (1, 127, 111) -> TLane 127, TCol 223");

	/* tirx.md: ComposeLayout(3, 3, 3, S[512]) maps (i*8 + j)*8 + k to (i*8 + (i^j))*8 + k */
	static const int64_t s512[][3] = { { 512, 1, AX_M } };
	l = mk(s512, 1);
	l->swizzled = true, l->swz_m = 3, l->swz_b = 3, l->swz_s = 3;
	int bad = 0;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			for (int k = 0; k < 8; k++)
				bad += !layout_apply(l, (i * 8 + j) * 8 + k, o) || o[AX_M] != (i * 8 + (i ^ j)) * 8 + k;
	is_int(bad, 0, "worked example: ComposeLayout(3, 3, 3, S[512]) on all 512 elements");
	/* beyond the first outermost iter: the outermost part is not reduced */
	static const int64_t r[][3] = { { 4, 8, AX_M }, { 8, 1, AX_M } };
	ok(layout_apply(mk(r, 2), 40, o) && o[AX_M] == 40, "the outermost component is not reduced (flat 40 -> 40)");
}

static void operations(void)
{
	const char *why;
	int dims[8];
	static const int64_t c1[][3] = { { 4, 8, AX_M }, { 1, 100, AX_M }, { 8, 1, AX_M } };
	static const int64_t c1w[][3] = { { 32, 1, AX_M } };
	ok(iters_are(layout_canonical(mk(c1, 3)), c1w, 1), "canonical: S[(4, 1, 8) : (8, 100, 1)] is S[32 : 1]");
	static const int64_t c2[][3] = { { 2, 1, AX_LANEID }, { 2, 2, AX_LANEID } };
	ok(iters_are(layout_canonical(mk(c2, 2)), c2, 2), "canonical: (2, 2) : (1, 2) @ laneid does not fuse");
	static const int64_t c3[][3] = { { 2, 2, AX_LANEID }, { 2, 1, AX_LANEID } };
	static const int64_t c3w[][3] = { { 4, 1, AX_LANEID } };
	ok(iters_are(layout_canonical(mk(c3, 2)), c3w, 1), "canonical: (2, 2) : (2, 1) @ laneid fuses to 4 : 1 @ laneid");
	static const int64_t c4[][3] = { { 2, 8, AX_M }, { 8, 1, AX_LANEID } };
	ok(iters_are(layout_canonical(mk(c4, 2)), c4, 2), "canonical: iters on different axes do not fuse");

	static const int64_t s1[][3] = { { 32, 1, AX_LANEID }, { 8, 1, AX_M } };
	Layout *l = mk(s1, 2);
	l->off[AX_LANEID] = 2, l->off[AX_M] = 3;
	Layout *st = layout_storage(l);
	static const int64_t s1w[][3] = { { 8, 1, AX_M } };
	ok(iters_are(st, s1w, 1) && st->off[AX_M] == 3 && st->off[AX_LANEID] == 0,
	   "storage drops the thread iters and thread offsets");

	static const int64_t g1[][3] = { { 32, 1, AX_M } };
	static const int64_t g1w[][3] = { { 4, 8, AX_M }, { 8, 1, AX_M } };
	int64_t sh48[] = { 4, 8 };
	Layout *g = layout_group(mk(g1, 1), sh48, 2, dims, &why);
	ok(g && iters_are(g, g1w, 2) && dims[0] == 0 && dims[1] == 1 && dims[2] == 2, "group S[32] by (4, 8): (4 : 8, 8 : 1)");
	static const int64_t g2[][3] = { { 8, 16, AX_M }, { 16, 1, AX_M } };
	static const int64_t g2w[][3] = { { 4, 32, AX_M }, { 2, 16, AX_M }, { 16, 1, AX_M } };
	int64_t sh432[] = { 4, 32 };
	g = layout_group(mk(g2, 2), sh432, 2, dims, &why);
	ok(g && iters_are(g, g2w, 3) && dims[1] == 1 && dims[2] == 3, "group (8, 16) by (4, 32) splits the 8 into 4 x 2");
	static const int64_t g3[][3] = { { 3, 4, AX_M }, { 4, 1, AX_M } };
	int64_t sh26[] = { 2, 6 };
	ok(!layout_group(mk(g3, 2), sh26, 2, dims, &why), "group (3, 4) by (2, 6) fails: 4 does not split for 6");
	int64_t sh5[] = { 5 };
	ok(!layout_group(mk(g1, 1), sh5, 1, dims, &why) && strstr(why, "32 elements"), "group by a shape of another size fails");

	static const int64_t rm[][3] = { { 128, 32, AX_M }, { 32, 1, AX_M } };
	int64_t shp[] = { 128, 32 }, start[] = { 16, 8 }, ext[] = { 32, 16 };
	Layout *sl = layout_slice(mk(rm, 2), shp, 2, start, ext, &why);
	static const int64_t slw[][3] = { { 32, 32, AX_M }, { 16, 1, AX_M } };
	ok(sl && iters_are(sl, slw, 2) && sl->off[AX_M] == 16 * 32 + 8, "slice [16:48, 8:24] of a 128x32 row-major tile");
	static const int64_t c48[][3] = { { 4, 8, AX_M }, { 8, 1, AX_M } };
	int64_t s32[] = { 32 }, st4[] = { 4 }, ex8[] = { 8 };
	ok(!layout_slice(mk(c48, 2), s32, 1, st4, ex8, &why), "slice [4:12] of (4, 8) fails: it straddles an iter");
	int64_t st2[] = { 2 }, ex4[] = { 4 };
	sl = layout_slice(mk(c48, 2), s32, 1, st2, ex4, &why);
	ok(sl && sl->off[AX_M] == 2 && layout_size(sl, &(int64_t){0}), "slice [2:6] of (4, 8) stays inside the inner iter");

	static const int64_t o22[][3] = { { 2, 2, AX_M }, { 2, 1, AX_M } };
	static const int64_t i48[][3] = { { 4, 8, AX_M }, { 8, 1, AX_M } };
	int64_t os[] = { 2, 2 }, is[] = { 4, 8 }, o[AX_COUNT];
	Layout *t = layout_tile(mk(o22, 2), os, mk(i48, 2), is, 2, &why);
	static const int64_t tw[][3] = { { 2, 64, AX_M }, { 4, 8, AX_M }, { 2, 32, AX_M }, { 8, 1, AX_M } };
	ok(t && iters_are(t, tw, 4), "tile 2x2 blocks of 4x8: outer strides scaled by the block span 32");
	ok(t && layout_apply(t, 5 * 16 + 9, o) && o[AX_M] == 105, "tile: element (5, 9) is block (1, 1) at 96, + 9");
}

/* The swizzle of mma_shared_layout agrees with the hardware's function of
 * the byte address (ptx.md: A ^ (((A >> 7) & m) << 4)), and every swizzle
 * is a permutation of each aligned block. */
static void swizzles(void)
{
	int bad = 0, checked = 0;
	int dts[] = { DT_UINT8, DT_FLOAT16, DT_FLOAT32 };
	for (int k = 0; k < 3; k++)
		for (int sw = 1; sw <= 3; sw++) {
			Layout *l = layout_new();
			int bytes = dtype_bytes(dts[k]);
			int64_t width = (128 << sw) / (8 * bytes);
			if (layout_mma_shared(l, dts[k], sw, (int64_t[]){ 8, width }, 2))
				bad++;
			int64_t m = (1 << sw) - 1;
			for (int64_t a = 0; a < 4096 / bytes; a++) {
				int64_t A = a * bytes, hw = A ^ (((A >> 7) & m) << 4);
				bad += layout_swizzle(l, a) * bytes != hw;
				checked++;
			}
		}
	ok(bad == 0, "mma_shared_layout swizzles match the hardware on %d addresses (8, 16, 32-bit; 32B, 64B, 128B)", checked);
	bad = 0;
	int blocks = 0;
	for (int M = 0; M <= 4; M++)
		for (int B = 1; B <= 3; B++)
			for (int S = B; S <= 5; S++) {
				Layout l = { .swizzled = true, .swz_m = M, .swz_b = B, .swz_s = S };
				int64_t span = (int64_t)1 << (M + B + S);
				for (int rep = 0; rep < 2; rep++) {
					static char seen[1 << 12];
					memset(seen, 0, (size_t)span);
					for (int64_t a = 0; a < span; a++) {
						int64_t p = layout_swizzle(&l, rep * span + a) - rep * span;
						if (p < 0 || p >= span || seen[p]++)
							bad++;
						if (layout_swizzle(&l, layout_swizzle(&l, a)) != a)
							bad++;
					}
					blocks++;
				}
			}
	ok(bad == 0, "every swizzle (M 0-4, B 1-3, S B-5) permutes each of %d aligned blocks and undoes itself", blocks);
}

/* Random layouts and shapes: canonical, group and slice keep apply(). */
static void property(void)
{
	int layouts = 0, shapes = 0, slices = 0, fails = 0;
	int64_t elements = 0;
	for (int n = 0; n < 3000; n++) {
		Layout *l = layout_new();
		int k = 1 + (int)rnd(5);
		int64_t size = 1;
		for (int i = 0; i < k; i++) {
			int64_t e = 1 + rnd(6);
			int axis = (int[]){ AX_M, AX_M, AX_LANEID, AX_WARPID, AX_TCOL }[rnd(5)];
			layout_push(l, false, e, rnd(3) == 0 ? rnd(40) : 1 << rnd(6), axis);
			size *= e;
		}
		if (rnd(3) == 0)
			layout_push(l, true, 2, 1 + rnd(8), AX_WARPID);
		l->off[AX_M] = rnd(4) * 16;
		if (rnd(4) == 0)
			l->swizzled = true, l->swz_m = (int)rnd(3), l->swz_b = 1 + (int)rnd(2), l->swz_s = 3;
		layouts++;
		elements += size;
		if (!same_apply(l, layout_canonical(l), size))
			fails++;
		/* a random shape of the same size: factor the iter extents */
		int64_t shape[4];
		int nd = 1 + (int)rnd(3);
		for (int d = 0; d < nd; d++)
			shape[d] = 1;
		for (int i = 0; i < l->nshard; i++) {
			int64_t e = l->shard[i].extent;
			for (int64_t p = 2; e > 1; p++)
				while (e % p == 0) {
					shape[rnd(nd)] *= p;
					e /= p;
				}
		}
		int dims[8];
		const char *why;
		Layout *g = layout_group(l, shape, nd, dims, &why);
		if (g) {
			shapes++;
			if (!same_apply(l, g, size))
				fails++;
			/* apply with coordinates agrees with the flat index */
			for (int64_t f = 0; f < size; f++) {
				int64_t c[4], x = f, a[AX_COUNT], b[AX_COUNT];
				for (int d = nd - 1; d >= 0; d--)
					c[d] = x % shape[d], x /= shape[d];
				if (!layout_apply_coord(l, shape, nd, c, a) || !layout_apply(l, f, b) || memcmp(a, b, sizeof a))
					fails++;
			}
		}
		/* a random region: where slice succeeds, it is the region */
		int64_t st[4], ex[4];
		for (int d = 0; d < nd; d++) {
			ex[d] = 1 + rnd(shape[d]);
			st[d] = rnd(shape[d] - ex[d] + 1);
		}
		Layout *sl = layout_slice(l, shape, nd, st, ex, &why);
		if (sl) {
			slices++;
			int64_t rsize = 1;
			for (int d = 0; d < nd; d++)
				rsize *= ex[d];
			for (int64_t f = 0; f < rsize; f++) {
				int64_t c[4], x = f, a[AX_COUNT], b[AX_COUNT];
				for (int d = nd - 1; d >= 0; d--)
					c[d] = st[d] + x % ex[d], x /= ex[d];
				int64_t flat = 0;
				for (int d = 0; d < nd; d++)
					flat = flat * shape[d] + c[d];
				if (!layout_apply(sl, f, a) || !layout_apply(l, flat, b) || memcmp(a, b, sizeof a))
					fails++;
			}
		}
	}
	ok(fails == 0, "property: %d random layouts (%lld elements): canonical, %d groups, %d slices keep apply() (%d failures)",
	   layouts, (long long)elements, shapes, slices, fails);
	ok(shapes > 2000 && slices > 1000, "property: most random shapes group and many regions slice");
}

void test_algebra(void)
{
	examples();
	operations();
	swizzles();
	property();
}
