/* TMA, the bulk tensor copies through a tensor map (T.tensormap), as
 * ../shared/reference/ptx.md "TMA (cp.async.bulk.tensor), sm_90" describes
 * them; the asynchrony is emu-async.c's.
 *
 * The box. With n_0 = box_0 (element stride 0 is ignored) and n_i =
 * ceil(box_i / estride_i), box element j (0 <= j_i < n_i) is tensor
 * element x with x_0 = c_0 + j_0 and x_i = c_i + j_i * estride_i; it is in
 * bounds when 0 <= x_i < dims_i in every dimension, and then lives at byte
 * offset * esize + sum x_i * strides_i of the map's buffer parameter. In
 * shared memory it is at logical byte L = j_0 * esize + pitch * (j_1 + n_1 *
 * (j_2 + ...)), pitch = n_0 * esize without a swizzle and the span (32, 64
 * or 128 bytes) with one, so that each row is padded to the span; the byte
 * written is swz(A) for the ABSOLUTE shared address A = the operand + L,
 * swz(A) = A ^ (((A >> 7) & m) << 4), m = 1, 3, 7 for 32, 64, 128 bytes.
 *
 * A load fills the out-of-bounds elements (zeros, or in NaN mode the
 * 16-bit pattern 0x7FF7 repeated through the element) and completes n_0 *
 * ... * n_(rank-1) * esize bytes on its mbarrier, out-of-bounds ones
 * included. A store writes the in-bounds elements from shared memory and
 * skips the others; a reduction combines them into global memory with its
 * operator in the element's dtype; a prefetch is checked and does nothing.
 *
 * The faults measured on Hopper are errors at the statement: a shared
 * operand not 128-byte aligned (misaligned address), c_0 * esize not a
 * multiple of 16 (illegal instruction); and here a box that runs past its
 * shared buffer, or an element address outside the global buffer.
 *
 * When things happen (so that a missing wait shows): a load does its
 * complete_tx at issue and poisons its box's shared bytes (EMU_POISON);
 * the data is read from global memory and written when a wait on the
 * mbarrier first sees the load's phase complete (emu-async.c), or at the
 * end of the CTA. A store or reduction joins its thread's bulk group and is
 * done (shared memory read, global memory written) when the group retires
 * at a wait_group, or at the end of the CTA. */
#include <string.h>

#include "emu-impl.h"



static const char *name(int id) { return intrins[id].path; }

/* The box of map m: the counts, the shared bytes it spans and the bytes it
 * completes on an mbarrier. */
typedef struct Box {
	int64_t n[TMAP_MAX_RANK];
	int64_t total;  /* elements */
	int64_t pitch;  /* shared bytes per row */
	int64_t span;   /* shared bytes from the first */
	int64_t bytes;  /* total * esize */
	int mask;       /* of the swizzle: 0, 1, 3, 7 */
} Box;

static void box_of(const TensorMap *m, Box *b)
{
	int64_t rows = 1;
	b->n[0] = m->box[0];
	for (int i = 1; i < m->rank; i++) {
		b->n[i] = (m->box[i] + m->estrides[i] - 1) / m->estrides[i];
		rows *= b->n[i];
	}
	b->total = b->n[0] * rows;
	b->pitch = m->swizzle ? m->swizzle : b->n[0] * m->esize;
	b->span = b->pitch * rows;
	b->bytes = b->total * m->esize;
	b->mask = m->swizzle ? m->swizzle / 16 - 1 : 0;
}

/* The map's buffer parameter. */
static Mem *gmem_of(Emu *E, const TensorMap *m)
{
	for (int i = 0; i < E->f->nparams; i++)
		if (E->f->params[i] == m->buf)
			return &E->gmem[i];
	return NULL;
}

enum { W_POISON, W_LOAD, W_STORE, W_REDUCE };

/* a red b in dtype dt (sema and emu_tma checked that red suits dt). */
EVal emu_reduce(int red, int dt, EVal a, EVal b)
{
	EVal r = a;
	int bits = dtypes[dt].bits;
	uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	uint64_t ua = (uint64_t)a.i & mask, ub = (uint64_t)b.i & mask;
	switch (red) {
	case TMA_RED_ADD: emu_binop(OP_ADD, dt, a, b, &r); break;
	case TMA_RED_MIN: r = emu_minmax(false, dt, a, b); break;
	case TMA_RED_MAX: r = emu_minmax(true, dt, a, b); break;
	case TMA_RED_AND: emu_binop(OP_BITAND, dt, a, b, &r); break;
	case TMA_RED_OR: emu_binop(OP_BITOR, dt, a, b, &r); break;
	case TMA_RED_XOR: emu_binop(OP_BITXOR, dt, a, b, &r); break;
	/* PTX's, on the unsigned bits: inc wraps to 0 at the source value,
	 * dec to it at 0 and above it */
	case TMA_RED_INC: r.i = emu_wrap((int64_t)(ua >= ub ? 0 : ua + 1), dt); break;
	case TMA_RED_DEC: r.i = emu_wrap((int64_t)(ua == 0 || ua > ub ? ub : ua - 1), dt); break;
	default: break;
	}
	return r;
}

/* Runs over the box of o: poisons its shared bytes, or moves the data. */
static bool walk(Emu *E, const TmaOp *o, int mode)
{
	const CStmt *s = o->s;
	const TensorMap *m = s->tmap;
	Box b;
	box_of(m, &b);
	const Mem *sm = o->sm;
	Mem *g = mode == W_POISON ? NULL : gmem_of(E, m);
	if (mode != W_POISON && !g)
		return emu_fail(E, s->pos, o->t, "%s: tensor map '%s' is over '%s', which is not a parameter of the kernel",
		                name(s->op), m->name, m->buf->name);
	int es = m->esize, dt = m->buf->dtype;
	int64_t j[TMAP_MAX_RANK] = { 0 }, x[TMAP_MAX_RANK];
	for (int64_t k = 0; k < b.total; k++) {
		int64_t row = 0;
		for (int i = m->rank - 1; i >= 1; i--)
			row = row * b.n[i] + j[i];
		int64_t a = sm->base + o->soff + j[0] * es + b.pitch * row;
		a ^= ((a >> 7) & b.mask) << 4;
		uint8_t *sp = sm->data + (a - sm->base);
		if (mode == W_POISON) {
			memset(sp, EMU_POISON, (size_t)es);
		} else {
			bool in = true;
			int64_t off = m->offset * es;
			for (int i = 0; i < m->rank; i++) {
				x[i] = o->c[i] + j[i] * (i ? m->estrides[i] : 1);
				in &= x[i] >= 0 && x[i] < m->dims[i];
				off += x[i] * m->strides[i];
			}
			if (in && (off < 0 || off > g->size - es))
				return emu_fail(E, s->pos, o->t, "%s: element %s of tensor map '%s' is at byte %lld of %s (%lld bytes), "
				                "outside it", name(s->op), emu_idx_str(x, m->rank), m->name, (long long)off, emu_mem_str(g),
				                (long long)g->size);
			uint8_t *gp = in ? g->data + off : NULL;
			if (mode == W_LOAD && in)
				memmove(sp, gp, (size_t)es);
			else if (mode == W_LOAD)
				for (int k2 = 0; k2 < es; k2++)
					sp[k2] = !m->nan_fill ? 0 : k2 % 2 ? 0x7F : 0xF7;
			else if (mode == W_STORE && in)
				memmove(gp, sp, (size_t)es);
			else if (mode == W_REDUCE && in)
				emu_store(gp, dt, emu_reduce(s->red, dt, emu_load(gp, dt), emu_load(sp, dt)));
		}
		for (int i = 0; i < m->rank && ++j[i] == b.n[i]; i++)
			j[i] = 0;
	}
	return true;
}

bool emu_tma_perform(Emu *E, const TmaOp *o)
{
	int op = o->s->op;
	return walk(E, o, op == IN_TMA_LOAD ? W_LOAD : op == IN_TMA_STORE ? W_STORE : W_REDUCE);
}

bool emu_tma(Emu *E, const CStmt *s, int t)
{
	const TensorMap *m = s->tmap;
	const char *op = name(s->op);
	TmaOp o = { .s = s, .t = t };
	for (int i = 0; i < m->rank; i++) {
		EVal v;
		if (!emu_eval(E, s->idx[i], t, &v))
			return false;
		o.c[i] = (int32_t)(uint32_t)v.i; /* .b32, signed */
	}
	Box b;
	box_of(m, &b);
	if (((int64_t)o.c[0] * m->esize) % 16)
		return emu_fail(E, s->idx[0]->at, t, "%s: the innermost coordinate %d times the element size %d is %lld bytes, "
		                "not a multiple of 16 (an illegal-instruction fault on the GPU)", op, (int)o.c[0], m->esize,
		                (long long)o.c[0] * m->esize);
	if (s->op == IN_TMA_REDUCE && s->red >= TMA_RED_INC && !(dtypes[m->buf->dtype].kind == DK_INT ||
	                                                   dtypes[m->buf->dtype].kind == DK_UINT))
		return emu_fail(E, s->pos, t, "%s: red_op \"%s\" combines integers; tensor map '%s' holds %s", op,
		                tma_red_ops[s->red], m->name, dtypes[m->buf->dtype].name);
	if (s->op == IN_TMA_PREFETCH)
		return true; /* into L2: nothing to see */
	const char *what = s->op == IN_TMA_LOAD ? "destination" : "source";
	EVal a;
	if (!emu_eval(E, s->a, t, &a))
		return false;
	if (!a.mem)
		return emu_fail(E, s->a->at, t, "%s: the %s is not an address", op, what);
	if (a.mem->space != SP_SHARED)
		return emu_fail(E, s->a->at, t, "%s: the %s, byte %lld of %s, is not in shared memory", op, what,
		                (long long)a.i, emu_mem_str(a.mem));
	if ((a.mem->base + a.i) % 128)
		return emu_fail(E, s->a->at, t, "%s: the %s, byte %lld of %s (shared byte %lld), is not aligned to 128 bytes "
		                "(a misaligned-address fault on the GPU)", op, what, (long long)a.i, emu_mem_str(a.mem),
		                (long long)(a.mem->base + a.i));
	if (a.i < 0 || a.i > a.mem->size - b.span)
		return emu_fail(E, s->a->at, t, "%s: the box of tensor map '%s' takes %lld bytes of shared memory; from byte "
		                "%lld they run outside %s (%lld bytes)", op, m->name, (long long)b.span, (long long)a.i,
		                emu_mem_str(a.mem), (long long)a.mem->size);
	o.sm = a.mem;
	o.soff = a.i;
	if (s->op != IN_TMA_LOAD)
		return emu_bulk_tma(E, &o);
	uint8_t *bar = emu_mbar_at(E, s->b, t, op);
	int parity;
	bool flipped;
	if (!bar)
		return false;
	if (!s->mask)
		return walk(E, &o, W_POISON) && emu_mbar_complete_tx(E, s->b, s->pos, t, bar, b.bytes, op, &parity, &flipped) &&
		       emu_tx_load_tma(E, &o, bar, parity, flipped);
	/* .multicast::cluster: the box at the same offset of the same shared
	 * buffer, and complete_tx on the mbarrier at the same offset, in every
	 * CTA of the mask */
	int64_t mask = emu_cta_mask(E, s->mask, t, op);
	if (mask < 0)
		return false;
	if (emu_owner(E, bar) != E || a.mem < E->smem || a.mem >= E->smem + E->p->nshared)
		return emu_fail(E, s->pos, t, "%s: a multicast load takes a destination and an mbarrier in the CTA's own shared "
		                "memory", op);
	for (int r = 0; r < 16; r++) {
		if (!(mask >> r & 1))
			continue;
		Emu *P = emu_peer(E, r);
		TmaOp po = o;
		po.sm = &P->smem[a.mem - E->smem];
		uint8_t *pbar = P->sdata + (bar - E->sdata);
		const char *pop = P == E ? op : xprintf("%s (multicast to cta rank %d)", op, r);
		if (!walk(E, &po, W_POISON) ||
		    !emu_mbar_complete_tx(E, s->b, s->pos, t, pbar, b.bytes, pop, &parity, &flipped) ||
		    !emu_tx_load_tma(E, &po, pbar, parity, flipped))
			return false;
	}
	return true;
}
