/* Tx.gemm_async through the tcgen05_mma variant, run as written (emu-compile.c
 * gives it C_GEMM; doc/txir.md "tcgen05_mma"). Each thread that runs it
 * issues it; it acts at once, as the tcgen05.mma instructions it lowers to
 * (runtime/emu-mma.c), so the caller's tcgen05.commit then arrives.
 *
 * From the logical elements of the three regions, through their layouts:
 * for each element (m, n) of C's window (M x N),
 *   D = (accum ? D : 0) + A[m][0] B[n][0] + ... + A[m][K-1] B[n][K-1]
 * with A[m][k] the element (m, k) of A's region ((k, m) with transA=True)
 * and B[n][k] that of B's ((k, n) with transB=True), decoded from float16 /
 * bfloat16; each product exact in double, rounded to float32, added in the
 * order k = 0, 1, ... with each sum rounded to float32: the order and
 * rounding of the lowered MMAs on the emulator (one per 16 of K, each from
 * the float32 D the last left), so the two runs agree bit for bit. D is the
 * 32-bit cell of C's element (lane and column from its layout, from the
 * buffer's allocated address). The operands are checked as the lowered
 * run checks them: every element of A and B in its shared buffer and not
 * owned by an asynchronous copy not yet waited for, every cell of C in
 * tensor memory and allocated. The plan's rules (the shapes, the
 * descriptors' layouts) were checked when the kernel was compiled: the
 * emulator runs what txc would lower.
 *
 * Block-scaled (SFA=, SFB=: s->sf): A and B 8-bit (E4M3 / E5M2), and
 *   D = (accum ? D : 0) + sum over k of A[m][k] B[n][k] (SFA[m][j] SFB[n][j])
 * with j = k / 32 (or 0 for a region one scale wide), each term in double
 * as runtime/emu-mmas.c computes it (A B first, then the product of the
 * two scales), rounded to float32, added in order. A scale is the
 * logical element of its region, read from its cell through the buffer's
 * layout (lane, byte column TCol: column TCol / 4, byte TCol % 4) in
 * every replica, the copies required equal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

static const char *const op = "gemm_async through tcgen05_mma";

/* The region's element (i, j) of its last two dimensions (swapped with
 * trans) at run-time starts st: its byte in shared memory. */
static bool element(Emu *E, const CStmt *s, int t, const Region *r, const int64_t *st, bool trans, int64_t i,
                    int64_t j, const char *what, int64_t *out)
{
	const Acc *a = r->acc;
	int nd = r->ndim;
	int64_t idx[EMU_MAX_DIMS], off;
	for (int d = 0; d < nd; d++)
		idx[d] = st[d];
	idx[nd - 2] += trans ? j : i;
	idx[nd - 1] += trans ? i : j;
	if (!emu_offset(a, idx, &off))
		return emu_fail(E, s->pos, t, "%s: an element's place in %s overflows", op, what);
	const Mem *m = &E->smem[a->mem];
	if (off < 0 || (off + 1) * a->esize > m->size)
		return emu_fail(E, s->pos, t, "%s reads byte %lld of %s (%s), outside it", op, (long long)(off * a->esize),
		                emu_mem_str(m), what);
	*out = m->base + off * a->esize;
	return emu_pend_check(E, E->sdata + *out, a->esize, false, s->pos, t) &&
	       emu_proxy_check(E, E->sdata + *out, a->esize, s->pos, t, op, what, false);
}

static bool operand(Emu *E, const CStmt *s, int t, const Region *r, bool trans, int64_t rows, int64_t K,
                    const char *what, double *v)
{
	int64_t st[EMU_MAX_DIMS];
	const Acc *a = r->acc;
	if (a->why)
		return emu_fail(E, s->pos, t, "%s", a->why);
	int es = s->sf ? 1 : 2;
	if (a->space != SP_SHARED || a->esize != es || r->ndim < 2)
		return emu_fail(E, s->pos, t, "%s: %s is a region of %d-bit elements in shared memory", op, what, 8 * es);
	for (int d = 0; d < r->ndim; d++)
		if (!emu_eval_int(E, r->starts[d], t, &st[d]))
			return false;
	for (int64_t i = 0; i < rows; i++)
		for (int64_t k = 0; k < K; k++) {
			int64_t at = 0;
			if (!element(E, s, t, r, st, trans, i, k, what, &at))
				return false;
			v[i * K + k] = emu_fdecode((uint64_t)E->sdata[at] | (es == 2 ? (uint64_t)E->sdata[at + 1] << 8 : 0), a->dtype);
		}
	return true;
}

/* Block-scaled: the scales of the SF region r (rows x kx, UE8M0 bytes:
 * 2^(e - 127), 255 a NaN), from the logical elements: element (i, j) in
 * the cell its layout names (lane, TCol / 4, byte TCol % 4, from the
 * allocated address x), in each of its replicas, the copies equal (as the
 * lowered MMA reads the four lane quarters, runtime/emu-mmas.c). */
static bool scales(Emu *E, const CStmt *s, int t, const Region *r, const CExpr *x, const char *what, int64_t rows,
                   double *out)
{
	int64_t st[2], ta;
	if (r->ndim != 2 || r->acc->space != SP_TMEM || r->acc->esize != 1)
		return emu_fail(E, s->pos, t, "%s: %s is a (rows, K) region of 8-bit tensor memory", op, what);
	if (!emu_eval_int(E, x, t, &ta) || !emu_eval_int(E, r->starts[0], t, &st[0]) ||
	    !emu_eval_int(E, r->starts[1], t, &st[1]))
		return false;
	const Buffer *b = r->acc->b;
	const Layout *l = buffer_layout(b);
	int64_t kx = r->extents[1], nrep = layout_nreplicas(l);
	int lane0 = (int)((uint32_t)ta >> 16), c0 = (int)(ta & 0xFFFF);
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < kx; j++) {
			int64_t co[2] = { st[0] + i, st[1] + j }, a[AX_COUNT];
			if (nrep < 1 || !layout_apply_coord(l, b->shape, 2, co, a))
				return emu_fail(E, s->pos, t, "%s: an element's place in %s overflows", op, what);
			unsigned v = 0;
			int64_t vl = 0;
			for (int64_t q = 0; q < nrep; q++) {
				int64_t c[AX_COUNT];
				memcpy(c, a, sizeof c);
				layout_replica(l, q, c);
				int64_t lane = lane0 + c[AX_TLANE], col = c0 + (c[AX_TCOL] >> 2);
				if (lane < 0 || lane >= 128 || col < 0 || col >= 512 || !emu_tmem_allocated(E, (int)col))
					return emu_fail(E, s->pos, t, "%s reads %s's element (%lld, %lld) from tensor-memory lane %lld, "
					                "column %lld, which is %s", op, what, (long long)i, (long long)j, (long long)lane,
					                (long long)col, lane < 0 || lane >= 128 || col < 0 || col >= 512 ?
					                "outside tensor memory" : xprintf("not allocated (allocated: %s)",
					                emu_tmem_allocs_str(E)));
				if (!emu_race_tmem(E, (int)lane, (int)col, 1, false, s->pos, t, false))
					return false;
				unsigned w = *emu_tmem_cell(E, (int)lane, (int)col) >> (8 * (c[AX_TCOL] & 3)) & 0xFF;
				if (q && w != v)
					return emu_fail(E, s->pos, t, "%s: %s's element (%lld, %lld) is 0x%02x in lane %lld but 0x%02x in "
					                "lane %lld (byte %lld of column %lld): its copies in the lane quarters differ (the "
					                "MMA reads all four)", op, what, (long long)i, (long long)j, v, (long long)vl, w,
					                (long long)lane, (long long)(c[AX_TCOL] & 3), (long long)col);
				v = w;
				vl = lane;
			}
			out[i * kx + j] = v == 255 ? NAN : ldexp(1.0, (int)v - 127);
		}
	return true;
}

static bool gemm(Emu *E, const CStmt *s, int t)
{
	const Region *cr = &s->dst, *ar = &s->src, *br = &s->src2;
	const Buffer *cb = cr->acc->b;
	if (cr->ndim != 2)
		return emu_fail(E, s->pos, t, "%s: C is a (rows, columns) window", op);
	int64_t M = cr->extents[0], N = cr->extents[1];
	int64_t K = ar->extents[ar->ndim - (s->trans_a ? 2 : 1)];
	int64_t ta, cs[2], en = 0;
	if (!emu_eval_int(E, s->a, t, &ta) || !emu_eval_int(E, cr->starts[0], t, &cs[0]) ||
	    !emu_eval_int(E, cr->starts[1], t, &cs[1]) || (s->value && !emu_eval_int(E, s->value, t, &en)))
		return false;
	int64_t ka = s->sf ? s->sf[0].extents[1] : 0, kb = s->sf ? s->sf[1].extents[1] : 0;
	double *A = malloc(sizeof(double) * (size_t)((M + N) * K + M * ka + N * kb));
	float *D = malloc(sizeof(float) * (size_t)(M * N));
	int64_t *cell = malloc(sizeof(int64_t) * (size_t)(M * N));
	bool ok = A && D && cell;
	if (!ok)
		emu_fail(E, s->pos, t, "%s: out of memory", op);
	double *B = ok ? A + M * K : NULL;
	ok = ok && operand(E, s, t, ar, s->trans_a, M, K, "A", A) && operand(E, s, t, br, s->trans_b, N, K, "B", B);
	double *SA = ok ? B + N * K : NULL, *SB = ok ? SA + M * ka : NULL;
	ok = ok && (!s->sf || (scales(E, s, t, &s->sf[0], s->opt[0], "SFA", M, SA) &&
	                       scales(E, s, t, &s->sf[1], s->opt[1], "SFB", N, SB)));
	const Layout *lt = buffer_layout(cb);
	int lane0 = (int)((uint32_t)ta >> 16), c0 = (int)(ta & 0xFFFF);
	for (int64_t m = 0; ok && m < M; m++)
		for (int64_t n = 0; ok && n < N; n++) {
			int64_t x[2] = { cs[0] + m, cs[1] + n }, c[AX_COUNT];
			if (!layout_apply_coord(lt, cb->shape, 2, x, c)) {
				ok = emu_fail(E, s->pos, t, "%s: an element's place in C overflows", op);
				break;
			}
			int64_t lane = lane0 + c[AX_TLANE], col = c0 + c[AX_TCOL];
			if (lane < 0 || lane >= 128 || col < 0 || col >= 512 || !emu_tmem_allocated(E, (int)col)) {
				ok = emu_fail(E, s->pos, t, "%s writes tensor-memory lane %lld, column %lld (C's element (%lld, %lld)), "
				              "which is %s", op, (long long)lane, (long long)col, (long long)m, (long long)n,
				              lane < 0 || lane >= 128 || col < 0 || col >= 512 ? "outside tensor memory" :
				              xprintf("not allocated (allocated: %s)", emu_tmem_allocs_str(E)));
				break;
			}
			cell[m * N + n] = lane * 512 + col;
			if (!emu_race_tmem(E, (int)lane, (int)col, 1, true, s->pos, t, false)) {
				ok = false;
				break;
			}
			float acc = 0.0f;
			if (en)
				memcpy(&acc, emu_tmem_cell(E, (int)lane, (int)col), 4);
			if (s->sf)
				for (int64_t k = 0; k < K; k++) {
					int64_t ja = ka == 1 ? 0 : k / 32, jb = kb == 1 ? 0 : k / 32;
					acc = acc + (float)(A[m * K + k] * B[n * K + k] * (SA[m * ka + ja] * SB[n * kb + jb]));
				}
			else
				for (int64_t k = 0; k < K; k++)
					acc = acc + (float)(A[m * K + k] * B[n * K + k]);
			D[m * N + n] = acc;
		}
	for (int64_t i = 0; ok && i < M * N; i++)
		memcpy(emu_tmem_cell(E, (int)(cell[i] / 512), (int)(cell[i] % 512)), &D[i], 4);
	free(A);
	free(D);
	free(cell);
	return ok;
}

bool emu_gemm(Emu *E, const CStmt *s, const int *act, int nact)
{
	if (!emu_tmem_ready(E, s->pos))
		return false;
	for (int i = 0; i < nact; i++)
		if (!gemm(E, s, act[i]))
			return false;
	return true;
}
