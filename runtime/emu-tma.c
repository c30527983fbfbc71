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
 * at a wait_group, or at the end of the CTA.
 *
 * im2col maps (T.tensormap_im2col; doc/tma-im2col.md has the model, its
 * sources and what the H100 must confirm): the box is rows of the map's
 * channels, one row per pixel, laid out in shared memory as a 2-D box
 * [channels, rows] is; pixel_rows() gives each row's tensor coordinates. */
#include <stdlib.h>
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

/* The rows (pixels) of an im2col load through m with wHalo halo: pixels
 * for im2col, pixels + halo for ::w, 4 groups of 32 + halo for ::w::128. */
static int64_t im2col_rows(const TensorMap *m, int64_t halo)
{
	return m->mode == TMAP_IM2COL_W ? m->pixels + halo : m->mode == TMAP_IM2COL_W128 ? 4 * (32 + halo) : m->pixels;
}

static void box_of(const TensorMap *m, const TmaOp *o, Box *b)
{
	int64_t rows = 1;
	b->n[0] = m->box[0];
	for (int i = 1; i < m->rank; i++) {
		b->n[i] = m->mode != TMAP_TILED ? 1 : (m->box[i] + m->estrides[i] - 1) / m->estrides[i];
		rows *= b->n[i];
	}
	if (m->mode != TMAP_TILED) {
		/* the halo of a store is 0: there is no ::w store */
		bool halo = m->mode != TMAP_IM2COL && o->s->op != IN_TMA_STORE && o->s->op != IN_TMA_REDUCE;
		rows = b->n[1] = im2col_rows(m, halo ? o->info[0] : 0);
	}
	b->total = b->n[0] * rows;
	b->pitch = m->swizzle ? m->swizzle : b->n[0] * m->esize;
	b->span = b->pitch * rows;
	b->bytes = b->total * m->esize;
	b->mask = m->swizzle ? m->swizzle / 16 - 1 : 0;
}

/* The tensor coordinates of the pixel of each row of an im2col copy, all
 * but the channel (px[r * rank + i], i >= 1).
 * im2col: the filter base (c_1 .. c_(rank-2)) walks the bounding box
 * [lower_d, dims_d - 1 + upper_d] W fastest, by the traversal stride of
 * each dimension, wrapping to lower_d and carrying into the next dimension,
 * from the last spatial one into N (by 1); the pixel is the base plus the
 * im2col offsets (none for a store: .im2col_no_offs).
 * ::w, ::w::128: H, D and N stay; W = c_1 + wOffset + i * stride_1 for the
 * i-th pixel, i = r (::w) or 32 g + k for row k of group g of 32 + wHalo
 * rows (::w::128), the halo pixels continuing their run. */
static void pixel_rows(const TensorMap *m, const TmaOp *o, int64_t rows, int64_t *px)
{
	int R = m->rank;
	bool offs = o->s->op == IN_TMA_LOAD || o->s->op == IN_TMA_PREFETCH;
	int64_t pos[TMAP_MAX_RANK];
	for (int i = 0; i < R; i++)
		pos[i] = o->c[i];
	for (int64_t r = 0; r < rows; r++) {
		int64_t *x = px + r * R;
		x[0] = o->c[0];
		if (m->mode == TMAP_IM2COL) {
			for (int d = 1; d < R; d++)
				x[d] = pos[d] + (d < R - 1 && offs ? o->info[d - 1] : 0);
			for (int d = 1; d < R; d++) {
				if (d == R - 1) {
					pos[d]++;
					break;
				}
				pos[d] += m->estrides[d];
				if (pos[d] <= m->dims[d] - 1 + m->upper[d - 1])
					break;
				pos[d] = m->lower[d - 1];
			}
		} else {
			int64_t halo = o->info[0], i = m->mode == TMAP_IM2COL_W128 ? r / (32 + halo) * 32 + r % (32 + halo) : r;
			for (int d = 2; d < R; d++)
				x[d] = o->c[d];
			x[1] = o->c[1] + o->info[1] + i * m->estrides[1];
		}
	}
}

/* The map's buffer parameter. */
static Mem *gmem_of(Emu *E, const TensorMap *m)
{
	for (int i = 0; i < E->f->nparams; i++)
		if (E->f->params[i] == m->buf)
			return &E->gmem[i];
	return NULL;
}

enum { W_POISON, W_LOAD, W_STORE, W_REDUCE, W_MARK };

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
	const TensorMap *m = &o->map;
	Box b;
	box_of(m, o, &b);
	const Mem *sm = o->sm;
	bool issue = mode == W_POISON || mode == W_MARK;
	Mem *g = o->g;
	int es = m->esize, dt = o->dt;
	int64_t j[TMAP_MAX_RANK] = { 0 }, x[TMAP_MAX_RANK], *px = NULL;
	if (m->mode != TMAP_TILED && !issue) {
		px = malloc(sizeof *px * (size_t)(b.n[1] * m->rank));
		if (!px)
			return emu_fail(E, s->pos, o->t, "%s: out of memory", name(s->op));
		pixel_rows(m, o, b.n[1], px);
	}
	for (int64_t k = 0; k < b.total; k++) {
		int64_t row = 0;
		for (int i = m->rank - 1; i >= 1; i--)
			row = row * b.n[i] + j[i];
		int64_t a = sm->base + o->soff + j[0] * es + b.pitch * row;
		a ^= ((a >> 7) & b.mask) << 4;
		uint8_t *sp = sm->data + (a - sm->base);
		if (mode == W_POISON) { /* a load's issue: the box is the copy's until it is done */
			memset(sp, EMU_POISON, (size_t)es);
			emu_pend_mark(E, sp, es, s->pos, o->t, PEND_MBAR);
		} else if (mode == W_MARK) { /* a store's issue: its source is read until it is done */
			/* by the async proxy: generic stores into it need their fence */
			if (!emu_proxy_check(E, sp, es, s->pos, o->t, name(s->op), "the source", true))
				return false;
			emu_pend_mark(E, sp, es, s->pos, o->t, PEND_STORE_SRC);
		} else {
			emu_pend_clear(E, sp, es);
			if (mode == W_LOAD) {
				emu_proxy_clear(E, sp, es);
				emu_race_async(E, sp, es);
			}
			bool in = true;
			int64_t off = o->gbase;
			for (int i = 0; i < m->rank; i++) {
				x[i] = !px ? o->c[i] + j[i] * (i ? m->estrides[i] : 1) : i ? px[j[1] * m->rank + i] : o->c[0] + j[0];
				in &= x[i] >= 0 && x[i] < m->dims[i];
				off += x[i] * m->strides[i];
			}
			if (in && (off < 0 || off > g->size - es)) {
				free(px);
				return emu_fail(E, s->pos, o->t, "%s: element %s of tensor map '%s' is at byte %lld of %s (%lld bytes), "
				                "outside it", name(s->op), emu_idx_str(x, m->rank), m->name, (long long)off, emu_mem_str(g),
				                (long long)g->size);
			}
			uint8_t *gp = in ? g->data + off : NULL;
			if (mode == W_LOAD && in)
				memmove(sp, gp, (size_t)es);
			else if (mode == W_LOAD)
				emu_fill(sp, es, m->nan_fill ? EMU_FILL_NAN : EMU_FILL_ZERO);
			else if (mode == W_STORE && in)
				memmove(gp, sp, (size_t)es);
			else if (mode == W_REDUCE && in)
				emu_store(gp, dt, emu_reduce(s->red, dt, emu_load(gp, dt), emu_load(sp, dt)));
		}
		for (int i = 0; i < m->rank && ++j[i] == b.n[i]; i++)
			j[i] = 0;
	}
	free(px);
	return true;
}

/* ---- tensor maps in memory ------------------------------------------------------
 *
 * The hardware's 128-byte tensor map is opaque, so the emulator keeps its
 * own encoding of the fields in those 128 bytes (TMENC_* in ir/ir.h): the
 * magic "txcTMAP1", elemtype, rank - 1, interleave, swizzle and fill modes,
 * the L2 promotion, the global address as (the emulator's number of the
 * parameter it points into, byte offset), the dims, the byte strides of
 * dimensions 1 to 4, the box and the element strides. T.cuda.copy_tensormap
 * writes it from a parameter map; the program moves it as bytes (loads,
 * stores, cp_fenceproxy); tensormap.replace edits it; a bulk tensor copy
 * through a global map reads it and checks every encoding rule then. 128
 * bytes without the magic are no map: an error wherever a map is read. */

static const char magic[8] = "txcTMAP1";

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put(uint8_t *p, int n, uint64_t v)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* The dtype and size of a CUtensorMapDataType (0 to 12). */
static int elem_dtype(int code)
{
	static const int dt[] = { DT_UINT8, DT_UINT16, DT_UINT32, DT_INT32, DT_UINT64, DT_INT64, DT_FLOAT16,
	                          DT_FLOAT32, DT_FLOAT64, DT_BFLOAT16, DT_FLOAT32, DT_FLOAT32, DT_FLOAT32 };
	return code >= 0 && code < (int)(sizeof dt / sizeof dt[0]) ? dt[code] : DT_NONE;
}

/* The 128 bytes at address operand x (in memory of space `space`, or
 * shared or global when space < 0) for thread t, aligned to `align`
 * (absolute). NULL after an error. */
static uint8_t *map_bytes(Emu *E, const CExpr *x, int t, int space, int64_t align, const char *op, const char *what,
                          EVal *out)
{
	EVal a;
	if (!emu_eval(E, x, t, &a))
		return NULL;
	if (!a.mem) {
		emu_fail(E, x->at, t, "%s: the %s is not an address the emulator can follow", op, what);
		return NULL;
	}
	bool ok = space >= 0 ? a.mem->space == space : a.mem->space == SP_SHARED || a.mem->space == SP_GLOBAL;
	if (!ok) {
		emu_fail(E, x->at, t, "%s: the %s, byte %lld of %s, is not in %s memory", op, what, (long long)a.i,
		         emu_mem_str(a.mem), space == SP_GLOBAL ? "global" : space == SP_SHARED ? "shared" : "shared or global");
		return NULL;
	}
	if (a.i < 0 || a.i > a.mem->size - TMENC_BYTES) {
		emu_fail(E, x->at, t, "%s: the %s, 128 bytes from byte %lld of %s (%lld bytes), runs outside it", op, what,
		         (long long)a.i, emu_mem_str(a.mem), (long long)a.mem->size);
		return NULL;
	}
	if ((a.mem->base + a.i) % align) {
		emu_fail(E, x->at, t, "%s: the %s, byte %lld of %s, is not aligned to %lld bytes", op, what, (long long)a.i,
		         emu_mem_str(a.mem), (long long)align);
		return NULL;
	}
	if (out)
		*out = a;
	return a.mem->data + a.i;
}

/* A tensor map is 128-byte aligned in shared memory, 64 in global. */
static int64_t map_align(const Mem *m) { return m->space == SP_SHARED ? 128 : 64; }

/* A write of the map at (m, off): every thread must acquire it again. */
static void map_written(Emu *E, const Mem *m, int64_t off)
{
	for (int t = 0; t < E->nthreads; t++) {
		int n = E->nacq[t], k = 0;
		for (int i = 0; i < n; i++)
			if (!(E->acq_mem[t * EMU_TMACQ + i] == m && E->acq_off[t * EMU_TMACQ + i] == off)) {
				E->acq_mem[t * EMU_TMACQ + k] = E->acq_mem[t * EMU_TMACQ + i];
				E->acq_off[t * EMU_TMACQ + k++] = E->acq_off[t * EMU_TMACQ + i];
			}
		E->nacq[t] = k;
	}
}

/* The global memory number of mem (1 + the parameter), 0: none. */
static uint32_t mem_number(Emu *E, const Mem *m)
{
	for (int i = 0; i < E->f->nparams; i++)
		if (&E->gmem[i] == m)
			return (uint32_t)i + 1;
	return 0;
}

/* Writes the encoding of parameter map m. */
static void encode(Emu *E, uint8_t *p, const TensorMap *m)
{
	memset(p, 0, TMENC_BYTES);
	memcpy(p + TMENC_MAGIC, magic, 8);
	p[TMENC_ELEMTYPE] = (uint8_t)tmap_data_type(m->buf->dtype);
	p[TMENC_RANK] = (uint8_t)(m->rank - 1);
	p[TMENC_SWIZZLE] = (uint8_t)tmap_swizzle_mode(m->swizzle);
	p[TMENC_FILL] = m->nan_fill;
	p[TMENC_L2] = (uint8_t)(m->l2 == 0 ? 0 : m->l2 == 64 ? 1 : m->l2 == 128 ? 2 : 3);
	Mem *g = gmem_of(E, m);
	put(p + TMENC_ADDR_MEM, 4, g ? mem_number(E, g) : 0);
	put(p + TMENC_ADDR_OFF, 8, (uint64_t)(m->offset * m->esize));
	for (int i = 0; i < m->rank; i++) {
		put(p + TMENC_DIMS + 4 * i, 4, (uint64_t)m->dims[i]);
		if (i)
			put(p + TMENC_STRIDES + 8 * (i - 1), 8, (uint64_t)m->strides[i]);
		put(p + TMENC_BOX + 2 * i, 2, (uint64_t)m->box[i]);
		p[TMENC_ESTRIDES + i] = (uint8_t)m->estrides[i];
	}
}

/* Reads the map at p (named `what` in errors) into o: every encoding rule
 * of ptx.md's "TMA" section, checked now. */
static bool decode(Emu *E, const CStmt *s, int t, const uint8_t *p, const char *what, TmaOp *o)
{
	const char *op = name(s->op);
	Pos at = s->m ? s->m->at : s->pos;
#define BAD(...) return emu_fail(E, at, t, "%s: the tensor map %s %s", op, what, xprintf(__VA_ARGS__))
	if (memcmp(p + TMENC_MAGIC, magic, 8))
		BAD("holds no tensor map (the emulator knows the maps T.cuda.copy_tensormap wrote, and copies of them)");
	TensorMap *m = &o->map;
	memset(m, 0, sizeof *m);
	m->rank = p[TMENC_RANK] + 1;
	int code = p[TMENC_ELEMTYPE];
	o->dt = elem_dtype(code);
	if (m->rank > TMAP_MAX_RANK)
		BAD("has rank %d; a tensor map has rank 1 to 5", m->rank);
	if (o->dt == DT_NONE)
		BAD("has elemtype %d; the types are 0 to 12", code);
	if (p[TMENC_INTERLEAVE])
		BAD("is interleaved (interleave_layout %d), which the emulator does not model", p[TMENC_INTERLEAVE]);
	if (p[TMENC_SWIZZLE] > 3)
		BAD("has swizzle_mode %d; the modes are 0 to 3", p[TMENC_SWIZZLE]);
	if (p[TMENC_FILL] > 1)
		BAD("has fill_mode %d; the modes are 0 and 1", p[TMENC_FILL]);
	if (p[TMENC_FILL] && !dt_float(o->dt))
		BAD("fills with NaN (fill_mode 1), but its elements are %s", dtypes[o->dt].name);
	if (s->rank != m->rank)
		BAD("has rank %d; the copy names rank %d", m->rank, s->rank);
	m->esize = dtypes[o->dt].bits / 8;
	m->swizzle = tmap_swizzle_bytes(p[TMENC_SWIZZLE]);
	m->nan_fill = p[TMENC_FILL];
	uint32_t mem = (uint32_t)get(p + TMENC_ADDR_MEM, 4);
	int64_t off = (int64_t)get(p + TMENC_ADDR_OFF, 8);
	if (mem < 1 || (int)mem > E->f->nparams)
		BAD("has no global_address the emulator can follow");
	o->g = &E->gmem[mem - 1];
	o->gbase = off;
	if ((o->g->base + off) % 16)
		BAD("has global_address byte %lld of %s, not 16-byte aligned", (long long)off, emu_mem_str(o->g));
	m->strides[0] = m->esize;
	for (int i = 0; i < m->rank; i++) {
		m->dims[i] = (int64_t)get(p + TMENC_DIMS + 4 * i, 4);
		m->box[i] = (int64_t)get(p + TMENC_BOX + 2 * i, 2);
		m->estrides[i] = p[TMENC_ESTRIDES + i];
		if (i)
			m->strides[i] = (int64_t)get(p + TMENC_STRIDES + 8 * (i - 1), 8);
		if (m->dims[i] < 1)
			BAD("has global_dim %lld in dimension %d; it is 1 or more", (long long)m->dims[i], i);
		if (m->box[i] < 1 || m->box[i] > 256)
			BAD("has box_dim %lld in dimension %d; it is 1 to 256", (long long)m->box[i], i);
		if (m->estrides[i] < 1 || m->estrides[i] > 8)
			BAD("has element_stride %lld in dimension %d; it is 1 to 8", (long long)m->estrides[i], i);
		if (i && (m->strides[i] % 16 || m->strides[i] < 16 || m->strides[i] >= (int64_t)1 << 40))
			BAD("has global_stride %lld bytes for dimension %d; it is a multiple of 16 below 2^40",
			    (long long)m->strides[i], i);
	}
	if (m->box[0] * m->esize % 16)
		BAD("has a box row of %lld bytes (box_dim %lld of %d-byte elements), not a multiple of 16",
		    (long long)(m->box[0] * m->esize), (long long)m->box[0], m->esize);
	if (m->swizzle && m->box[0] * m->esize > m->swizzle)
		BAD("has a box row of %lld bytes, wider than its %d-byte swizzle", (long long)(m->box[0] * m->esize),
		    m->swizzle);
#undef BAD
	return true;
}

/* A bulk tensor copy through the map in global memory at s->m: acquired
 * by thread t, then decoded into o. */
static bool map_in_memory(Emu *E, const CStmt *s, int t, TmaOp *o)
{
	const char *op = name(s->op);
	EVal a;
	const uint8_t *p = map_bytes(E, s->m, t, SP_GLOBAL, 64, op, "tensor map", &a);
	if (!p)
		return false;
	const char *what = xprintf("at byte %lld of %s", (long long)a.i, emu_mem_str(a.mem));
	bool acq = false;
	for (int i = 0; i < E->nacq[t] && !acq; i++)
		acq = E->acq_mem[t * EMU_TMACQ + i] == a.mem && E->acq_off[t * EMU_TMACQ + i] == a.i;
	if (!acq)
		return emu_fail(E, s->m->at, t, "%s: missing fence.proxy.tensormap: the tensor map at byte %lld of %s was not "
		                "acquired by this thread (T.ptx.fence.proxy_tensormap) since it was last written", op,
		                (long long)a.i, emu_mem_str(a.mem));
	if (!decode(E, s, t, p, what, o))
		return false;
	/* in the messages of the copy: the buffer and byte it lives at */
	o->map.name = xprintf("%s@%lld", a.mem->buf ? a.mem->buf->name : "?", (long long)a.i);
	return true;
}

/* tensormap.replace of field f (ord, value) in the map at p. */
static bool replace(Emu *E, const CStmt *s, int t, uint8_t *p, const char *what)
{
	const char *op = name(s->op);
	const TmField *fd = &tm_fields[s->field];
	if (memcmp(p + TMENC_MAGIC, magic, 8))
		return emu_fail(E, s->a->at, t, "%s: the tensor map %s holds no tensor map (the emulator knows the maps "
		                "T.cuda.copy_tensormap wrote, and copies of them)", op, what);
	int64_t ord = 0;
	if (fd->ord && !emu_eval_int(E, s->n, t, &ord))
		return false;
	if (ord < 0 || ord > (s->field == TMF_STRIDE ? TMAP_MAX_RANK - 2 : TMAP_MAX_RANK - 1))
		return emu_fail(E, s->n->at, t, "%s: ord %lld of \"%s\" is out of range", op, (long long)ord, fd->name);
	EVal v;
	if (!emu_eval(E, s->value, t, &v))
		return false;
	uint64_t u = (uint64_t)v.i;
	switch (s->field) {
	case TMF_ADDRESS: {
		uint32_t mem = v.mem ? mem_number(E, v.mem) : 0;
		if (!mem)
			return emu_fail(E, s->value->at, t, "%s: global_address: the value is not an address in a global buffer "
			                "parameter (the emulator follows T.address_of(X[...]) and buffers)", op);
		put(p + TMENC_ADDR_MEM, 4, mem);
		put(p + TMENC_ADDR_OFF, 8, (uint64_t)v.i);
		return true;
	}
	case TMF_RANK: p[TMENC_RANK] = (uint8_t)(u > 255 ? 255 : u); return true;
	case TMF_BOX_DIM: put(p + TMENC_BOX + 2 * ord, 2, u > 65535 ? 65535 : u); return true;
	case TMF_GLOBAL_DIM: put(p + TMENC_DIMS + 4 * ord, 4, (uint32_t)u); return true;
	case TMF_STRIDE: put(p + TMENC_STRIDES + 8 * ord, 8, u); return true;
	case TMF_ESTRIDE: p[TMENC_ESTRIDES + ord] = (uint8_t)(u > 255 ? 255 : u); return true;
	case TMF_ELEMTYPE: p[TMENC_ELEMTYPE] = (uint8_t)u; return true;
	case TMF_INTERLEAVE: p[TMENC_INTERLEAVE] = (uint8_t)u; return true;
	case TMF_SWIZZLE: p[TMENC_SWIZZLE] = (uint8_t)u; return true;
	case TMF_FILL: p[TMENC_FILL] = (uint8_t)u; return true;
	}
	return true;
}

bool emu_tmap(Emu *E, const CStmt *s, const int *act, int nact)
{
	const char *op = name(s->op);
	int first, have, need, w;
	/* .sync.aligned: every thread of the warp, together */
	if (s->op == IN_TMAP_CP_FENCE && (w = emu_partial_warp(E, act, nact, &first, &have, &need)) >= 0)
		return emu_fail(E, s->pos, first, "%s is .sync.aligned: all %d threads of warp %d execute it together; %d do "
		                "here", op, need, w, have);
	for (int i = 0; i < nact; i++) {
		int t = act[i];
		EVal a;
		uint8_t *p;
		switch (s->op) {
		case IN_TMAP_COPY:
			if (!(p = map_bytes(E, s->a, t, -1, 1, op, "destination", &a)))
				return false;
			if ((a.mem->base + a.i) % map_align(a.mem))
				return emu_fail(E, s->a->at, t, "%s: the destination, byte %lld of %s, is not aligned to %lld bytes", op,
				                (long long)a.i, emu_mem_str(a.mem), (long long)map_align(a.mem));
			encode(E, p, s->tmap);
			map_written(E, a.mem, a.i);
			break;
		case IN_TMAP_REPLACE:
			if (!(p = map_bytes(E, s->a, t, -1, 1, op, "tensor map", &a)))
				return false;
			if ((a.mem->base + a.i) % map_align(a.mem))
				return emu_fail(E, s->a->at, t, "%s: the tensor map, byte %lld of %s, is not aligned to %lld bytes", op,
				                (long long)a.i, emu_mem_str(a.mem), (long long)map_align(a.mem));
			if (!replace(E, s, t, p, xprintf("at byte %lld of %s", (long long)a.i, emu_mem_str(a.mem))))
				return false;
			map_written(E, a.mem, a.i);
			break;
		case IN_TMAP_CP_FENCE: {
			EVal src;
			const uint8_t *q = map_bytes(E, s->b, t, SP_SHARED, 128, op, "source", &src);
			if (!q || !(p = map_bytes(E, s->a, t, SP_GLOBAL, 64, op, "destination", &a)))
				return false;
			memmove(p, q, TMENC_BYTES);
			map_written(E, a.mem, a.i);
			break;
		}
		case IN_FENCE_TMAP:
			if (!map_bytes(E, s->a, t, SP_GLOBAL, 64, op, "tensor map", &a))
				return false;
			bool have = false;
			for (int k = 0; k < E->nacq[t] && !have; k++)
				have = E->acq_mem[t * EMU_TMACQ + k] == a.mem && E->acq_off[t * EMU_TMACQ + k] == a.i;
			if (have)
				break;
			if (E->nacq[t] == EMU_TMACQ)
				return emu_fail(E, s->pos, t, "%s: a thread holds at most %d acquired tensor maps in the emulator", op,
				                EMU_TMACQ);
			E->acq_mem[t * EMU_TMACQ + E->nacq[t]] = a.mem;
			E->acq_off[t * EMU_TMACQ + E->nacq[t]++] = a.i;
			break;
		}
	}
	return true;
}

bool emu_tma_perform(Emu *E, const TmaOp *o)
{
	int op = o->s->op;
	return walk(E, o, op == IN_TMA_LOAD ? W_LOAD : op == IN_TMA_STORE ? W_STORE : W_REDUCE);
}

/* The im2col operands of o (after its coordinates), as 16-bit values, and
 * the rules of PTX's im2col modes on them and on the coordinates. */
static bool im2col_operands(Emu *E, const CStmt *s, int t, TmaOp *o)
{
	const TensorMap *m = &o->map;
	const char *op = name(s->op);
	if (m->mode == TMAP_TILED)
		return true;
	int R = m->rank, n = s->op == IN_TMA_LOAD || s->op == IN_TMA_PREFETCH ? tmap_info_count(m) : 0;
	for (int k = 0; k < n; k++) {
		EVal v;
		if (!emu_eval(E, s->idx[R + k], t, &v))
			return false;
		o->info[k] = (int32_t)(uint16_t)v.i; /* .b16 */
		if (v.i < 0 || v.i > tmap_info_max(m, k))
			return emu_fail(E, s->idx[R + k]->at, t, "%s: %s is %lld; through %s map '%s' (rank %d) it is 0 to %lld", op,
			                tmap_info_name(m, k), (long long)v.i, tmap_modes[m->mode].name, m->name, R,
			                (long long)tmap_info_max(m, k));
	}
	if (m->mode == TMAP_IM2COL && n) {
		for (int d = 1; d < R - 1; d++) {
			int64_t lo = m->lower[d - 1], hi = m->dims[d] - 1 + m->upper[d - 1];
			if (o->c[d] < lo || o->c[d] > hi)
				return emu_fail(E, s->idx[d]->at, t, "%s: the filter base %d in dimension %d is outside the bounding box "
				                "of im2col map '%s', %lld to %lld", op, (int)o->c[d], d, m->name, (long long)lo,
				                (long long)hi);
		}
	} else if (m->mode == TMAP_IM2COL) {
		for (int i = 0; i < R; i++)
			if (o->c[i] < 0)
				return emu_fail(E, s->idx[i]->at, t, "%s: coordinate %d is %d; an .im2col_no_offs copy starts at "
				                "non-negative coordinates", op, i, (int)o->c[i]);
	} else if (o->c[1] > m->dims[1] - 1 + m->upper[0]) {
		return emu_fail(E, s->idx[1]->at, t, "%s: W coordinate %d is right of the bounding box of %s map '%s', which "
		                "ends at %lld", op, (int)o->c[1], tmap_modes[m->mode].name, m->name,
		                (long long)(m->dims[1] - 1 + m->upper[0]));
	}
	return true;
}

bool emu_tma(Emu *E, const CStmt *s, int t)
{
	const char *op = name(s->op);
	TmaOp o = { .s = s, .t = t };
	if (s->tmap) {
		o.map = *s->tmap;
		o.g = gmem_of(E, s->tmap);
		if (!o.g)
			return emu_fail(E, s->pos, t, "%s: tensor map '%s' is over '%s', which is not a parameter of the kernel", op,
			                s->tmap->name, s->tmap->buf->name);
		o.gbase = s->tmap->offset * s->tmap->esize;
		o.dt = s->tmap->buf->dtype;
	} else if (!map_in_memory(E, s, t, &o)) {
		return false;
	}
	const TensorMap *m = &o.map;
	for (int i = 0; i < m->rank; i++) {
		EVal v;
		if (!emu_eval(E, s->idx[i], t, &v))
			return false;
		o.c[i] = (int32_t)(uint32_t)v.i; /* .b32, signed */
	}
	if (!im2col_operands(E, s, t, &o))
		return false;
	Box b;
	box_of(m, &o, &b);
	if (((int64_t)o.c[0] * m->esize) % 16)
		return emu_fail(E, s->idx[0]->at, t, "%s: the innermost coordinate %d times the element size %d is %lld bytes, "
		                "not a multiple of 16 (an illegal-instruction fault on the GPU)", op, (int)o.c[0], m->esize,
		                (long long)o.c[0] * m->esize);
	if (s->op == IN_TMA_REDUCE && s->red >= TMA_RED_INC && !(dtypes[o.dt].kind == DK_INT ||
	                                                   dtypes[o.dt].kind == DK_UINT))
		return emu_fail(E, s->pos, t, "%s: red_op \"%s\" combines integers; tensor map '%s' holds %s", op,
		                tma_red_ops[s->red], m->name, dtypes[o.dt].name);
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
		return walk(E, &o, W_MARK) && emu_bulk_tma(E, &o);
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
