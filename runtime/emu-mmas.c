/* The block-scaled tcgen05.mma .kind::mxf8f6f4.block_scale.scale_vec::1X
 * and its instruction descriptor, as the emulator runs them
 * (doc/tcgen05-mma.md, "Block-scaled MMA", has the sources of each rule).
 *
 * - T.cuda.tcgen05.encode_instr_descriptor_block_scaled writes, per
 *   thread, the 32-bit descriptor the compiler worked out (ir/tcmma.def's
 *   IDESCS rows) with the scale-factor ids a_sf_id (bits [30:29]) and
 *   b_sf_id (bits [5:4]), each 0 to 3, ORed in.
 * - tcgen05.mma kind="mxf8f6f4" acts at once for each thread that issues
 *   it, as .kind::f16 does (emu-mma.c). It checks the descriptor
 *   (idescs_invalid: dense, UE8M0 scales, a shape of PTX's table for
 *   cta_group 1, which is M = 128), refuses MN-major operands and the 6-
 *   and 4-bit formats (their place in shared memory is not modelled), and
 *   reads A (128 x 32) and B (N x 32), K-major, 8-bit elements: element
 *   (r, k) is byte k % 16 of row r's 16-byte chunk k / 16, whose shared
 *   offset the descriptor gives (emu_smem_desc_chunk, tcgen05.cp's
 *   formula).
 * - The scales (.scale_vec::1X: one UE8M0 byte per row and 32 elements of
 *   K, so one per row per MMA), from the address of A's scales (lane 0,
 *   column ca) and of B's (lane 0, column cb): the scale of row r is byte
 *   sf_id (A: bits [30:29], B: bits [5:4] of the descriptor) of the cell
 *   in column c + r / 32 of lane r % 32, duplicated in lanes 32 + r % 32,
 *   64 + r % 32 and 96 + r % 32 (the ISA requires the copies in all four
 *   32-lane partitions; tcgen05.cp .32x128b.warpx4 makes them): copies
 *   that differ are an error. Scale e is 2^(e - 127), e = 255 a NaN.
 * - Then, for m < 128 and n < N,
 *       D[m][n] = (enable_input_d ? D[m][n] : 0) + sum over k = 0..31 of
 *                 (A[m][k] * 2^(sa_m - 127)) * (B[n][k] * 2^(sb_n - 127))
 *   each product exact in double and rounded to float32, added in the
 *   order k = 0, 1, ..., 31 in float32 (to nearest even). The hardware's
 *   order and internal precision are not known; the tests use data whose
 *   every partial sum is exact. D[m][n] is the cell of column c0 + n,
 *   lane m (data-path layout D; the accumulator's address names lane 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

static const char *const MMA_OP = "tcgen05.mma kind=\"mxf8f6f4\"";

static bool idescs_store(Emu *E, const CStmt *s, int t)
{
	EVal d;
	const char *op = "T.cuda.tcgen05.encode_instr_descriptor_block_scaled";
	if (!emu_eval(E, s->a, t, &d) || !emu_check_ptr(E, s->a->at, t, d, 4, 4, op, "descriptor's place") ||
	    !emu_pend_check(E, d.mem->data + d.i, 4, true, s->pos, t))
		return false;
	uint32_t v = (uint32_t)s->wait;
	const CExpr *ids[2] = { s->b, s->n };
	static const char *const name[2] = { "a_sf_id", "b_sf_id" };
	static const int field[2] = { IDS_A_SF_ID, IDS_B_SF_ID };
	for (int i = 0; i < 2; i++) {
		int64_t id;
		if (!ids[i])
			continue;
		if (!emu_eval_int(E, ids[i], t, &id))
			return false;
		if (id < 0 || id > 3)
			return emu_fail(E, ids[i]->at, t, "%s: %s is %lld; the scale-factor id is 0 to 3 (the byte of the "
			                "32-bit scale cell)", op, name[i], (long long)id);
		v |= (uint32_t)id << (field[i] == IDS_A_SF_ID ? 29 : 4);
	}
	emu_store(d.mem->data + d.i, DT_UINT32, (EVal){ v, NULL });
	return true;
}

/* The rows x 32 K-major 8-bit matrix sd describes, decoded as fmt, as
 * doubles (negated with neg). */
static bool operand(Emu *E, const CStmt *s, int t, const char *what, const SmemDesc *sd, int rows,
                    const MmasFormat *fmt, bool neg, double *out)
{
	for (int r = 0; r < rows; r++)
		for (int k = 0; k < MMAS_K / 16; k++) {
			int64_t a;
			if (!emu_smem_desc_chunk(E, s->pos, t, MMA_OP, what, sd, r, k, &a))
				return false;
			for (int e = 0; e < 16; e++) {
				double v = emu_fdecode(E->sdata[a + e], fmt->dt);
				out[r * MMAS_K + 16 * k + e] = neg ? -v : v;
			}
		}
	return true;
}

/* The scale address x of what (A or B, rows rows): lane 0, its columns
 * allocated; the first column in *col. */
static bool scale_addr(Emu *E, int t, const CExpr *x, const char *what, int rows, int *col)
{
	int64_t v;
	if (!emu_eval_int(E, x, t, &v))
		return false;
	uint32_t a = (uint32_t)v;
	int lane = (int)(a >> 16), c = (int)(a & 0xFFFF), n = (rows + 31) / 32;
	if (lane)
		return emu_fail(E, x->at, t, "%s: the tensor-memory address 0x%08x of %s's scales names lane %d; the scale of "
		                "row r is in lane r %% 32 of each warp's quarter, so the address's lane is 0", MMA_OP, a, what,
		                lane);
	for (int i = 0; i < n; i++)
		if (c + i >= 512 || !emu_tmem_allocated(E, c + i))
			return emu_fail(E, x->at, t, "%s reads %s's scales (%d rows) from tensor-memory columns %d..%d, but column "
			                "%d is not allocated (allocated: %s)", MMA_OP, what, rows, c, c + n - 1, c + i,
			                emu_tmem_allocs_str(E));
	*col = c;
	return true;
}

/* Scale byte e: 2^(e - 127), 255 a NaN (UE8M0). */
static double ue8m0(unsigned e)
{
	return e == 255 ? NAN : ldexp(1.0, (int)e - 127);
}

/* The scales of rows 0..rows-1 of what (A or B) from column c, byte id:
 * row r's in column c + r / 32 of lane r % 32 of each 32-lane quarter, the
 * four copies equal (the ISA: "Scale factors for A and B matrices need to
 * be duplicated to all 32 lane partitions of tensor memory"). */
static bool scales(Emu *E, const CStmt *s, int t, const char *what, int c, int rows, unsigned id, double *out)
{
	for (int r = 0; r < rows; r++) {
		int col = c + r / 32;
		unsigned v = *emu_tmem_cell(E, r % 32, col) >> (8 * id) & 0xFF;
		for (int q = 0; q < 4; q++)
			if (!emu_race_tmem(E, 32 * q + r % 32, col, 1, false, s->pos, t, false))
				return false;
		for (int q = 1; q < 4; q++) {
			unsigned w = *emu_tmem_cell(E, 32 * q + r % 32, col) >> (8 * id) & 0xFF;
			if (w != v)
				return emu_fail(E, s->pos, t, "%s: the scale of %s's row %d (byte %u of column %d) is 0x%02x in lane "
				                "%d but 0x%02x in lane %d: the scales are duplicated to all four 32-lane partitions "
				                "(PTX ISA, \"Block Scaling\"; tcgen05.cp .32x128b.warpx4 copies them so)", MMA_OP, what, r,
				                id, col, v, r % 32, w, 32 * q + r % 32);
		}
		out[r] = ue8m0(v);
	}
	return true;
}

static bool mmas(Emu *E, const CStmt *s, int t)
{
	const char *op = MMA_OP;
	int64_t ta, en, id;
	EVal av, bv;
	if (!emu_eval_int(E, s->a, t, &ta) || !emu_eval(E, s->b, t, &av) || !emu_eval(E, s->n, t, &bv) ||
	    !emu_eval_int(E, s->value, t, &id) || !emu_eval_int(E, s->m, t, &en))
		return false;
	uint32_t idesc = (uint32_t)id, base = (uint32_t)ta;
	const char *why = idescs_invalid(idesc, 1);
	if (why)
		return emu_fail(E, s->value->at, t, "%s: the instruction descriptor 0x%08x %s", op, idesc, why);
	if (idescs_field(idesc, IDS_TRANS_A) || idescs_field(idesc, IDS_TRANS_B))
		return emu_fail(E, s->value->at, t, "%s: the instruction descriptor 0x%08x transposes %s (bit %d): the "
		                "emulator models K-major A and B only", op, idesc,
		                idescs_field(idesc, IDS_TRANS_A) ? "A" : "B", idescs_field(idesc, IDS_TRANS_A) ? 15 : 16);
	const MmasFormat *af = mmas_format_code(idescs_field(idesc, IDS_ATYPE));
	const MmasFormat *bf = mmas_format_code(idescs_field(idesc, IDS_BTYPE));
	if (af->dt == DT_NONE || bf->dt == DT_NONE)
		return emu_fail(E, s->value->at, t, "%s: the instruction descriptor 0x%08x has %s %s; the emulator reads 8-bit "
		                "A and B only (float8_e4m3fn, float8_e5m2): where 6- and 4-bit elements sit in shared memory "
		                "is not modelled", op, idesc, af->dt == DT_NONE ? "atype" : "btype",
		                (af->dt == DT_NONE ? af : bf)->name);
	int M = (int)idescs_field(idesc, IDS_M) << 4, N = (int)idescs_field(idesc, IDS_N) << 3;
	int lane0 = (int)(base >> 16), c0 = (int)(base & 0xFFFF);
	if (lane0)
		return emu_fail(E, s->pos, t, "%s with M = %d: the accumulator's address 0x%08x names lane %d; M = 128 fills "
		                "lanes 0..127, so the lane is 0", op, M, base, lane0);
	for (int n = 0; n < N; n++)
		if (c0 + n >= 512 || !emu_tmem_allocated(E, c0 + n))
			return emu_fail(E, s->pos, t, "%s writes tensor-memory columns %d..%d (N = %d), but column %d is not "
			                "allocated (allocated: %s)", op, c0, c0 + N - 1, N, c0 + n, emu_tmem_allocs_str(E));
	int ca, cb;
	if (!scale_addr(E, t, s->opt[0], "A", M, &ca) || !scale_addr(E, t, s->opt[1], "B", N, &cb))
		return false;
	SmemDesc sa, sb;
	if (!emu_smem_desc(E, s->b->at, t, op, (uint64_t)av.i, &sa) ||
	    !emu_smem_desc(E, s->n->at, t, op, (uint64_t)bv.i, &sb))
		return false;
	/* per call: the CTAs of a grid run on threads of their own */
	double *A = malloc(sizeof(double) * ((size_t)(M + N) * MMAS_K + (size_t)(M + N)));
	if (!A)
		return emu_fail(E, s->pos, t, "%s: out of memory", op);
	double *B = A + M * MMAS_K, *SA = B + N * MMAS_K, *SB = SA + M;
	if (!operand(E, s, t, "A", &sa, M, af, idescs_field(idesc, IDS_NEG_A), A) ||
	    !operand(E, s, t, "B", &sb, N, bf, idescs_field(idesc, IDS_NEG_B), B)) {
		free(A);
		return false;
	}
	/* the scales, read before D is written (inputs first) */
	if (!scales(E, s, t, "A", ca, M, idescs_field(idesc, IDS_A_SF_ID), SA) ||
	    !scales(E, s, t, "B", cb, N, idescs_field(idesc, IDS_B_SF_ID), SB)) {
		free(A);
		return false;
	}
	for (int m = 0; m < M; m++) {
		for (int n = 0; n < N; n++) {
			uint32_t *cell = emu_tmem_cell(E, m, c0 + n);
			if (!emu_race_tmem(E, m, c0 + n, 1, true, s->pos, t, false)) {
				free(A);
				return false;
			}
			double scale = SA[m] * SB[n];
			float acc = 0.0f;
			if (en)
				memcpy(&acc, cell, 4);
			for (int k = 0; k < MMAS_K; k++)
				acc = acc + (float)(A[m * MMAS_K + k] * B[n * MMAS_K + k] * scale);
			memcpy(cell, &acc, 4);
		}
	}
	free(A);
	return true;
}

bool emu_tcmmas(Emu *E, const CStmt *s, int t)
{
	return s->op == IN_TC_IDESC_BS ? idescs_store(E, s, t) : mmas(E, s, t);
}
