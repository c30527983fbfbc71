/* tcgen05.cp, its shared-memory matrix descriptor and tcgen05.commit, as
 * the emulator runs them (shared/reference/ptx.md, "Tensor memory and
 * tcgen05"; doc/tcgen05-cp.md has the sources of each rule).
 *
 * - T.cuda.tcgen05.encode_matrix_descriptor writes, per thread, the 64-bit
 *   descriptor: (start >> 4) & 0x3FFF in [13:0], where start is the
 *   matrix's offset in the CTA's shared memory (the emulator's shared
 *   memory starts at 0, aligned to 1024 bytes as the GPU's; it must be a
 *   multiple of 16), ldo [29:16], sdo [45:32], 0b001 [48:46], the base
 *   offset [51:49], the layout type of the swizzle [63:61] (tccp.def).
 * - tcgen05.cp is issued by each thread that runs it (it is not
 *   warp-collective). It acts at once: the emulator runs the CTA in
 *   lockstep and the tensor pipe in issue order, so a copy is done before
 *   any later tcgen05 op of its thread. Its descriptor's fixed fields must
 *   hold (smem_desc_invalid); base offset 0 only, and not swizzle mode 1
 *   (128B with 32-byte atoms), whose layouts are unverified. Source row r,
 *   16-byte chunk k of the matrix is at the shared offset
 *       no swizzle: start + (r >> 3) * SBO + (r & 7) * 16 + k * LBO
 *       swizzle:    swz(start + (r >> 3) * SBO + (r & 7) * span + 16 * k)
 *   with LBO = ldo << 4, SBO = sdo << 4 and swz the XOR of ptx.md on the
 *   absolute address (tccp.def); each chunk must lie in one shared buffer
 *   and not belong to an asynchronous copy not yet waited for
 *   (emu_pend_check). Row r's 32-bit words go, in order, to the columns
 *   from the address's column on, in the lanes tccp.def gives it from the
 *   address's lane; the column must be a multiple of 4 (128 bits), every
 *   lane below 128 and every column allocated.
 * - tcgen05.commit: the thread's earlier tcgen05 async ops are done (they
 *   acted at once), so it is one arrive on the mbarrier
 *   (.mbarrier::arrive::one), for each thread that runs it.
 * - Tx.copy_async(tmem, smem) through the tcgen05_cp variant, run as
 *   written (emu-compile.c gives it C_TCCP with op IN_COPY_ASYNC): like
 *   the tcgen05.cp it lowers to, it acts at once, for each thread that
 *   runs it, element by element as the two layouts say (element k of each
 *   region in row-major order, dimensions of extent 1 aside): the
 *   element's bytes at its shared offset (after the swizzle; not owned by
 *   an asynchronous copy not yet waited for) go to the tensor-memory cell
 *   of its TLane and of its TCol, which counts elements (slot TCol % (4 /
 *   size) of the 32-bit column TCol / (4 / size), little-endian), from the
 *   buffer's allocated address, and to every lane replica of the layout
 *   (R[...] on TLane: what a multicast shape writes); every lane below 128
 *   and every column allocated. The caller's tcgen05.commit then arrives. */
#include <string.h>

#include "emu-impl.h"

static const char *op_name(int op)
{
	return op == IN_TC_CP ? "tcgen05.cp" : op == IN_TC_COMMIT ? "tcgen05.commit" :
	       "T.cuda.tcgen05.encode_matrix_descriptor";
}

static bool encode(Emu *E, const CStmt *s, int t)
{
	const char *op = op_name(s->op);
	EVal d, a;
	int64_t f[3];
	static const char *const what[3] = { "ldo", "sdo", "base_offset" };
	if (!emu_eval(E, s->a, t, &d) || !emu_check_ptr(E, s->a->at, t, d, 8, 8, op, "descriptor's place") ||
	    !emu_eval(E, s->b, t, &a) || !emu_check_ptr(E, s->b->at, t, a, 16, 16, op, "matrix's start address"))
		return false;
	if (a.mem->space != SP_SHARED || emu_owner(E, a.mem->data) != E)
		return emu_fail(E, s->b->at, t, "%s: the matrix's start address, byte %lld of %s, is not in this CTA's shared "
		                "memory", op, (long long)a.i, emu_mem_str(a.mem));
	for (int k = 0; k < 3; k++) {
		if (!emu_eval_int(E, s->idx[k], t, &f[k]))
			return false;
		int64_t hi = k < 2 ? 0x3FFF : 7;
		if (f[k] < 0 || f[k] > hi)
			return emu_fail(E, s->idx[k]->at, t, "%s: %s is 0 to %lld, not %lld", op, what[k], (long long)hi,
			                (long long)f[k]);
	}
	if (!emu_pend_check(E, d.mem->data + d.i, 8, true, s->pos, t))
		return false;
	uint64_t start = (uint64_t)(a.mem->base + a.i);
	uint64_t desc = (start >> 4 & 0x3FFF) | (uint64_t)f[0] << 16 | (uint64_t)f[1] << 32 | (uint64_t)1 << 46 |
	                (uint64_t)f[2] << 49 | (uint64_t)s->field << 61;
	emu_store(d.mem->data + d.i, DT_UINT64, (EVal){ (int64_t)desc, NULL });
	return true;
}

/* The shared buffer of this CTA holding the 16 bytes at offset a, or NULL. */
static const Mem *chunk_mem(Emu *E, int64_t a)
{
	for (int i = 0; i < E->p->nshared; i++) {
		const Mem *m = &E->smem[i];
		if (a >= m->base && a + 16 <= m->base + m->size)
			return m;
	}
	return NULL;
}

bool emu_smem_desc(Emu *E, Pos at, int t, const char *op, uint64_t d, SmemDesc *out)
{
	const char *why = smem_desc_invalid(d);
	if (why)
		return emu_fail(E, at, t, "%s: the shared-memory descriptor 0x%016llx %s", op, (unsigned long long)d, why);
	const SmemSwizzle *sw = smem_swizzle_layout((int)(d >> 61));
	if (!sw->pitch)
		return emu_fail(E, at, t, "%s: the descriptor 0x%016llx has swizzle mode %d (%s), which the emulator does not "
		                "model: its layout is unverified (doc/tcgen05-cp.md)", op, (unsigned long long)d, sw->layout,
		                sw->name);
	if (d >> 49 & 7)
		return emu_fail(E, at, t, "%s: the descriptor 0x%016llx has base offset %d (bits [51:49]); the emulator models "
		                "base offset 0 only (the PTX ISA's rule for a swizzle pattern that does not start at its "
		                "boundary is unverified)", op, (unsigned long long)d, (int)(d >> 49 & 7));
	*out = (SmemDesc){ d, (int64_t)(d & 0x3FFF) << 4, (int64_t)(d >> 16 & 0x3FFF) << 4,
	                   (int64_t)(d >> 32 & 0x3FFF) << 4, sw };
	return true;
}

/* The 16 bytes at shared offset a, read by op: inside a shared buffer of
 * the CTA and not owned by a pending
 * asynchronous copy. */
static bool chunk_check(Emu *E, Pos pos, int t, const char *op, const char *what, bool mn, int r, int k,
                        const SmemDesc *sd, int64_t a)
{
	if (!chunk_mem(E, a))
		return emu_fail(E, pos, t, "%s reads shared-memory bytes %lld..%lld (%s; descriptor 0x%016llx), outside every "
		                "shared buffer (the CTA has %lld bytes of shared memory)", op, (long long)a, (long long)a + 15,
		                mn ? xprintf("k %d, 16-byte chunk %d along MN of %s, MN-major", k, r, what) :
		                xprintf("row %d, 16-byte chunk %d of %s", r, k, what), (unsigned long long)sd->d,
		                (long long)E->p->smem_bytes);
	return emu_pend_check(E, E->sdata + a, 16, false, pos, t) &&
	       emu_proxy_check(E, E->sdata + a, 16, pos, t, op, what, false);
}

bool emu_smem_desc_chunk(Emu *E, Pos pos, int t, const char *op, const char *what, const SmemDesc *sd, int r, int k,
                         int64_t *out)
{
	const SmemSwizzle *sw = sd->sw;
	int64_t a = sd->start + (r >> 3) * sd->sbo + (r & 7) * sw->pitch + (sw->bbits ? 16 * k : k * sd->lbo);
	a ^= ((a >> 7) & ((1 << sw->bbits) - 1)) << sw->mshift;
	if (!chunk_check(E, pos, t, op, what, false, r, k, sd, a))
		return false;
	*out = a;
	return true;
}

bool emu_smem_desc_chunk_mn(Emu *E, Pos pos, int t, const char *op, const char *what, const SmemDesc *sd, int c, int k,
                            int64_t *out)
{
	const SmemSwizzle *sw = sd->sw;
	int64_t a;
	if (!sw->bbits) /* 8 (k) x 16-byte core matrices: SBO along MN, LBO along K */
		a = sd->start + c * sd->sbo + (k >> 3) * sd->lbo + (k & 7) * 16;
	else { /* atoms of 8 (k) rows of span bytes: LBO along MN, SBO along K */
		int per = sw->pitch / 16;
		a = sd->start + (c / per) * sd->lbo + (k >> 3) * sd->sbo + (k & 7) * sw->pitch + (c % per) * 16;
	}
	a ^= ((a >> 7) & ((1 << sw->bbits) - 1)) << sw->mshift;
	if (!chunk_check(E, pos, t, op, what, true, c, k, sd, a))
		return false;
	*out = a;
	return true;
}

static bool cp(Emu *E, const CStmt *s, int t)
{
	const char *op = op_name(s->op);
	const TccpShape *sh = &tccp_shapes[s->tc_shape];
	int64_t ta, row, col;
	EVal dv;
	if (!emu_eval_int(E, s->a, t, &ta) || !emu_eval_int(E, s->b, t, &row) || !emu_eval_int(E, s->n, t, &col) ||
	    !emu_eval(E, s->value, t, &dv))
		return false;
	uint32_t base = (uint32_t)ta + ((uint32_t)row << 16) + (uint32_t)col;
	uint64_t d = (uint64_t)dv.i;
	int lane0 = (int)(base >> 16), c0 = (int)(base & 0xFFFF), words = sh->bits / 32;
	SmemDesc sd;
	if (!emu_smem_desc(E, s->value->at, t, op, d, &sd))
		return false;
	if (c0 % 4)
		return emu_fail(E, s->pos, t, "%s: the tensor-memory address 0x%08x (lane %d, column %d) is not 128-bit "
		                "aligned: its column must be a multiple of 4", op, base, lane0, c0);
	int last = lane0 + tccp_lane(sh, sh->rows - 1, sh->replicas - 1);
	for (int r = 0; r < sh->rows; r++)
		for (int j = 0; j < sh->replicas; j++)
			if (lane0 + tccp_lane(sh, r, j) > last)
				last = lane0 + tccp_lane(sh, r, j);
	if (last >= 128)
		return emu_fail(E, s->pos, t, "%s .%s%s%s at address 0x%08x (lane %d) writes lanes up to %d; tensor memory has "
		                "lanes 0..127", op, sh->shape, *sh->multicast ? "." : "", sh->multicast, base, lane0, last);
	for (int k = 0; k < words; k++)
		if (!emu_tmem_allocated(E, c0 + k))
			return emu_fail(E, s->pos, t, "%s writes tensor-memory columns %d..%d, but column %d is not allocated "
			                "(allocated: %s)", op, c0, c0 + words - 1, c0 + k, emu_tmem_allocs_str(E));
	/* the source rows, read before anything is written */
	uint32_t data[128 * 8];
	for (int r = 0; r < sh->rows; r++)
		for (int k = 0; k < sh->bits / 128; k++) {
			int64_t a;
			if (!emu_smem_desc_chunk(E, s->pos, t, op, "the source", &sd, r, k, &a))
				return false;
			memcpy(&data[r * 8 + 4 * k], E->sdata + a, 16); /* little-endian hosts, as emu_load */
		}
	for (int r = 0; r < sh->rows; r++)
		for (int j = 0; j < sh->replicas; j++) {
			if (!emu_race_tmem(E, lane0 + tccp_lane(sh, r, j), c0, words, true, s->pos, t, false))
				return false;
			memcpy(emu_tmem_cell(E, lane0 + tccp_lane(sh, r, j), c0), &data[r * 8], 4 * (size_t)words);
		}
	return true;
}

static bool tile(Emu *E, const CStmt *s, int t)
{
	const Acc *sa = s->src.acc;
	const Buffer *tb = s->dst.acc->b;
	const Region *dr = &s->dst, *sr = &s->src;
	if (sa->why)
		return emu_fail(E, s->pos, t, "%s", sa->why);
	int esz = sa->esize;
	if (sa->space != SP_SHARED || (esz != 1 && esz != 2 && esz != 4) || dtype_bytes(tb->dtype) != esz ||
	    dr->ndim > EMU_MAX_DIMS || sr->ndim > EMU_MAX_DIMS)
		return emu_fail(E, s->pos, t, "copy_async through tcgen05_cp: the emulator runs a shared region of 8-, 16- "
		                "or 32-bit elements into tensor memory of the same dtype");
	/* the regions: the same extents, dimensions of extent 1 aside; element
	 * k of each in row-major order */
	int64_t ta, ds[EMU_MAX_DIMS], ss[EMU_MAX_DIMS], n = 1, m = 1;
	if (!emu_eval_int(E, s->a, t, &ta))
		return false;
	for (int d = 0; d < dr->ndim; d++) {
		if (!emu_eval_int(E, dr->starts[d], t, &ds[d]))
			return false;
		n *= dr->extents[d];
	}
	for (int d = 0; d < sr->ndim; d++) {
		if (!emu_eval_int(E, sr->starts[d], t, &ss[d]))
			return false;
		m *= sr->extents[d];
	}
	{
		int a = 0, b = 0;
		bool same = n == m;
		while (same) {
			while (a < dr->ndim && dr->extents[a] == 1)
				a++;
			while (b < sr->ndim && sr->extents[b] == 1)
				b++;
			if (a == dr->ndim || b == sr->ndim) {
				same = a == dr->ndim && b == sr->ndim;
				break;
			}
			same = dr->extents[a++] == sr->extents[b++];
		}
		if (!same)
			return emu_fail(E, s->pos, t, "copy_async through tcgen05_cp: the regions differ in shape");
	}
	const Mem *mem = &E->smem[sa->mem];
	const Layout *lt = buffer_layout(tb);
	int64_t nrep = layout_nreplicas(lt);
	int lane0 = (int)((uint32_t)ta >> 16), c0 = (int)(ta & 0xFFFF), epw = 4 / esz;
	for (int64_t k = 0; k < n; k++) {
		int64_t si[EMU_MAX_DIMS], di[EMU_MAX_DIMS], off, c[AX_COUNT], q = k;
		for (int d = dr->ndim - 1; d >= 0; d--) {
			di[d] = ds[d] + q % dr->extents[d];
			q /= dr->extents[d];
		}
		q = k;
		for (int d = sr->ndim - 1; d >= 0; d--) {
			si[d] = ss[d] + q % sr->extents[d];
			q /= sr->extents[d];
		}
		if (!emu_offset(sa, si, &off) || !layout_apply_coord(lt, tb->shape, tb->ndim, di, c))
			return emu_fail(E, s->pos, t, "copy_async through tcgen05_cp: an element's place overflows");
		int64_t a = mem->base + off * esz;
		if (off < 0 || (off + 1) * esz > mem->size)
			return emu_fail(E, s->pos, t, "copy_async through tcgen05_cp reads byte %lld of %s, outside it",
			                (long long)(off * esz), emu_mem_str(mem));
		if (!emu_pend_check(E, E->sdata + a, esz, false, s->pos, t) ||
		    !emu_proxy_check(E, E->sdata + a, esz, s->pos, t, "copy_async through tcgen05_cp", "the source", false))
			return false;
		/* the element's TCol counts elements: slot TCol % epw of 32-bit column TCol / epw */
		for (int64_t r = 0; r < nrep; r++) {
			int64_t rc[AX_COUNT];
			memset(rc, 0, sizeof rc);
			layout_replica(lt, r, rc);
			int64_t lane = lane0 + c[AX_TLANE] + rc[AX_TLANE], tc = c[AX_TCOL] + rc[AX_TCOL];
			int64_t col = tc < 0 ? -1 : c0 + tc / epw;
			if (lane < 0 || lane >= 128 || col < 0 || col >= 512 || !emu_tmem_allocated(E, (int)col))
				return emu_fail(E, s->pos, t, "copy_async through tcgen05_cp writes tensor-memory lane %lld, column "
				                "%lld, which is %s", (long long)lane, (long long)col,
				                lane < 0 || lane >= 128 || col < 0 || col >= 512 ? "outside tensor memory" :
				                xprintf("not allocated (allocated: %s)", emu_tmem_allocs_str(E)));
			if (!emu_race_tmem(E, (int)lane, (int)col, 1, true, s->pos, t, false))
				return false;
			memcpy((uint8_t *)emu_tmem_cell(E, (int)lane, (int)col) + (tc % epw) * esz, E->sdata + a, (size_t)esz);
		}
	}
	return true;
}

bool emu_tccp(Emu *E, const CStmt *s, const int *act, int nact)
{
	if (!emu_tmem_ready(E, s->pos))
		return false;
	for (int i = 0; i < nact; i++) {
		int t = act[i];
		bool ok;
		if (s->op == IN_TC_SMEM_DESC) {
			ok = encode(E, s, t);
		} else if (s->op == IN_TC_CP) {
			ok = cp(E, s, t);
		} else if (s->op == IN_COPY_ASYNC) {
			ok = tile(E, s, t);
		} else {
			uint8_t *bar = emu_mbar_at(E, s->a, t, op_name(s->op));
			ok = bar && emu_mbar_arrive(E, s->a, s->pos, t, bar, op_name(s->op));
		}
		if (!ok)
			return false;
	}
	return true;
}
