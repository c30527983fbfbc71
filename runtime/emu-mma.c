/* tcgen05.mma .kind::f16 and its instruction descriptor, as the emulator
 * runs them (doc/tcgen05-mma.md has the sources of each rule).
 *
 * - T.cuda.tcgen05.encode_instr_descriptor writes, per thread, the 32-bit
 *   descriptor that the compiler worked out (ir/tcmma.def's fields).
 * - tcgen05.mma is issued by each thread that runs it (one thread, in
 *   practice) and acts at once, like tcgen05.cp: the tensor pipe runs in
 *   issue order and the CTA in lockstep, so it is done before any later
 *   tcgen05 op of its thread (tcgen05.commit then arrives at once). It
 *   checks the instruction descriptor (idesc_invalid: dense, F32 D, F16 or
 *   BF16 A and B of one type, a shape of PTX's table for cta_group 1).
 *   A is M x 16 and B is N x 16. K-major (transpose bit 15 / 16 clear):
 *   element (r, k) of either is the 2-byte element k % 8 of row r's
 *   16-byte chunk k / 8, whose shared offset the descriptor gives
 *   (emu_smem_desc_chunk, the formula of tcgen05.cp). MN-major (the bit
 *   set): element (r, k) is the 2-byte element r % 8 of K row k's 16-byte
 *   chunk r / 8 along MN (emu_smem_desc_chunk_mn: LBO and SBO change roles
 *   with the swizzle; doc/tcgen05-mma.md). Then, for every m < M and n < N,
 *       D[m][n] = (enable_input_d ? D[m][n] : 0) + sum over k = 0..15 of
 *                 A[m][k] * B[n][k]
 *   in float32: each product (exact: two 11- or 8-bit significands) is
 *   added in the order k = 0, 1, ..., 15, each sum rounded to float32 (to
 *   nearest even). The hardware's order and rounding of the sum are not
 *   known; tests use data for which every order gives the same bits.
 *   Negate A / negate B (bits 13, 14) negate the products.
 * - D[m][n] is the 32-bit cell of column c0 + n in the lane of row m:
 *   M = 128, lane m (the address's lane must be 0: PTX ISA data-path
 *   layout D); M = 64, lane L0 + 32 * (m / 16) + m % 16 with L0, the
 *   address's lane, 0 or 16 (layout F, its two halves). Every column
 *   c0 .. c0 + N - 1 must be allocated. */
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

static bool idesc_store(Emu *E, const CStmt *s, int t)
{
	EVal d;
	const char *op = "T.cuda.tcgen05.encode_instr_descriptor";
	if (!emu_eval(E, s->a, t, &d) || !emu_check_ptr(E, s->a->at, t, d, 4, 4, op, "descriptor's place") ||
	    !emu_pend_check(E, d.mem->data + d.i, 4, true, s->pos, t))
		return false;
	emu_store(d.mem->data + d.i, DT_UINT32, (EVal){ s->wait, NULL });
	return true;
}

/* The M x 16 (or N x 16) matrix sd describes, K-major or (mn) MN-major,
 * as doubles: out[r * 16 + k] is element (r, k). */
static bool operand(Emu *E, const CStmt *s, int t, const char *what, const SmemDesc *sd, bool mn, int rows, int dt,
                    bool neg, double *out)
{
	for (int r = 0; r < (mn ? rows / 8 : rows); r++)
		for (int k = 0; k < (mn ? MMA_K : MMA_K / 8); k++) {
			int64_t a;
			if (!(mn ? emu_smem_desc_chunk_mn(E, s->pos, t, "tcgen05.mma", what, sd, r, k, &a) :
			      emu_smem_desc_chunk(E, s->pos, t, "tcgen05.mma", what, sd, r, k, &a)))
				return false;
			for (int e = 0; e < 8; e++) {
				const uint8_t *p = E->sdata + a + 2 * e;
				double v = emu_fdecode((uint64_t)p[0] | (uint64_t)p[1] << 8, dt);
				/* K-major: 8 k of row r; MN-major: 8 rows of k */
				out[mn ? (8 * r + e) * MMA_K + k : r * MMA_K + 8 * k + e] = neg ? -v : v;
			}
		}
	return true;
}

static bool mma(Emu *E, const CStmt *s, int t)
{
	const char *op = "tcgen05.mma";
	int64_t ta, en, id;
	EVal av, bv;
	if (!emu_eval_int(E, s->a, t, &ta) || !emu_eval(E, s->b, t, &av) || !emu_eval(E, s->n, t, &bv) ||
	    !emu_eval_int(E, s->value, t, &id) || !emu_eval_int(E, s->m, t, &en))
		return false;
	uint32_t idesc = (uint32_t)id, base = (uint32_t)ta;
	const char *why = idesc_invalid(idesc, 1);
	if (why)
		return emu_fail(E, s->value->at, t, "%s: the instruction descriptor 0x%08x %s", op, idesc, why);
	int M = (int)idesc_field(idesc, ID_M) << 4, N = (int)idesc_field(idesc, ID_N) << 3;
	int dt = mma_itype_dtype(idesc_field(idesc, ID_ATYPE));
	int lane0 = (int)(base >> 16), c0 = (int)(base & 0xFFFF);
	if (M == 128 ? lane0 != 0 : lane0 != 0 && lane0 != 16)
		return emu_fail(E, s->pos, t, "%s with M = %d: the accumulator's address 0x%08x names lane %d; %s", op, M, base,
		                lane0, M == 128 ? "M = 128 fills lanes 0..127, so the lane is 0" :
		                "M = 64 fills lanes 0..15 or 16..31 of each warp's quarter (data-path layout F), so the lane "
		                "is 0 or 16");
	for (int n = 0; n < N; n++)
		if (!emu_tmem_allocated(E, c0 + n))
			return emu_fail(E, s->pos, t, "%s writes tensor-memory columns %d..%d (N = %d), but column %d is not "
			                "allocated (allocated: %s)", op, c0, c0 + N - 1, N, c0 + n, emu_tmem_allocs_str(E));
	SmemDesc sa, sb;
	if (!emu_smem_desc(E, s->b->at, t, op, (uint64_t)av.i, &sa) ||
	    !emu_smem_desc(E, s->n->at, t, op, (uint64_t)bv.i, &sb))
		return false;
	/* per call: the CTAs of a grid run on threads of their own */
	double *A = malloc(sizeof(double) * (size_t)(M + N) * MMA_K), *B = A + M * MMA_K;
	if (!A)
		return emu_fail(E, s->pos, t, "%s: out of memory", op);
	if (!operand(E, s, t, "A", &sa, idesc_field(idesc, ID_TRANS_A), M, dt, idesc_field(idesc, ID_NEG_A), A) ||
	    !operand(E, s, t, "B", &sb, idesc_field(idesc, ID_TRANS_B), N, dt, idesc_field(idesc, ID_NEG_B), B)) {
		free(A);
		return false;
	}
	for (int m = 0; m < M; m++) {
		int lane = M == 128 ? m : lane0 + 32 * (m / 16) + m % 16;
		for (int n = 0; n < N; n++) {
			uint32_t *cell = emu_tmem_cell(E, lane, c0 + n);
			if (!emu_race_tmem(E, lane, c0 + n, 1, true, s->pos, t, false)) {
				free(A);
				return false;
			}
			float acc = 0.0f;
			if (en)
				memcpy(&acc, cell, 4);
			for (int k = 0; k < MMA_K; k++)
				acc = acc + (float)(A[m * MMA_K + k] * B[n * MMA_K + k]);
			memcpy(cell, &acc, 4);
		}
	}
	free(A);
	return true;
}

bool emu_tcmma(Emu *E, const CStmt *s, const int *act, int nact)
{
	if (!emu_tmem_ready(E, s->pos))
		return false;
	for (int i = 0; i < nact; i++)
		if (!(emu_tcmmas_op(s) ? emu_tcmmas(E, s, act[i]) : s->op == IN_TC_MMA ? mma(E, s, act[i]) :
		      idesc_store(E, s, act[i])))
			return false;
	return true;
}
