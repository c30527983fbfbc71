/* Tensor memory (sm_100a, shared/reference/ptx.md "Tensor memory and
 * tcgen05"): per CTA 128 lanes x 512 columns of 32 bits, an address being
 * lane << 16 | column.
 *
 * - tcgen05.alloc (warp-collective) takes the lowest free range of n_cols
 *   columns aligned to n_cols (lane 0), the choice of the hardware's
 *   allocator in practice (the PTX ISA promises only some free range), and
 *   writes its address to the shared word. When there is none, the GPU
 *   would block until another warp frees enough columns; the emulator runs
 *   in lockstep and cannot wait, so it is an error. An alloc after the
 *   CTA's relinquish_alloc_permit is an error. cta_group is not modelled
 *   (cta_group=2 allocates in this CTA only).
 * - tcgen05.dealloc frees exactly one allocation: its first column and its
 *   size; a double free, a free of what was never allocated or another
 *   size is an error. Columns still allocated when the CTA ends are an
 *   error.
 * - tcgen05.ld / st (warp-collective, the 32 threads of a warp active and
 *   agreeing on the address): the address is
 *       taddr + ((row + 32 * (warp % 4)) << 16) + col
 *   (issue 11: the IR's row is relative to the warp's lane quarter, which
 *   the backend adds, the hardware's rule); register r of thread t (lane
 *   t % 32) is the cell of ptx.md's table; .pack::16b / .unpack::16b put
 *   the register's halves in the low 16 bits of columns 2v and 2v+1 (an
 *   unpacking st writes them zero-extended: the PTX ISA leaves the high
 *   halves open). Every lane must be in the warp's quarter (32 * (warp %
 *   4) .. + 31) and every column in an allocation.
 * - Asynchrony: ld acts at once, but its destination registers hold
 *   EMU_POISON until the thread's tcgen05.wait.ld, and a generic access of
 *   them before that is an error (emu_tmem_reg_check). A st writes at once,
 *   and a tcgen05.ld of a cell with a st not yet past its thread's
 *   tcgen05.wait.st is an error (the data is not visible to tcgen05 ops).
 * - The contents start as 0xABABABAB in every CTA (undefined on the GPU).
 * - The tile op (the last section): Tx.wg.copy_async between tensor memory
 *   and registers (the tcgen05_ldst variant's copy, completing on wait.ld /
 *   wait.st), with the meaning its lowering must keep. The whole warpgroup
 *   runs it on the same regions (emu_copy); the k-th elements of the two
 *   regions in row-major order are paired, as in every tile copy. The
 *   tensor-memory element is at its layout's TLane and TCol (emu_coord,
 *   offsets included: datapath F sub-slab 1 is +16 lanes) plus the
 *   buffer's allocated_addr= (the same in every thread of the warpgroup):
 *       lane   = (addr >> 16) + TLane
 *       column = (addr & 0xFFFF) + TCol * bits / 32
 *   (rows [0:64] of datapath D against a 64-row .16x*b fragment are, by
 *   TVM's convention that the variant follows, its low half-slab: TLane r
 *   is lane 32 (r / 16) + r % 16; tcgen05_half_slab says when)
 *   and, 16 bits wide, the half TCol % 2 of that 32-bit column (bits
 *   [15:0] for an even TCol, as the .b32 ld/st pack elements 2c and 2c+1);
 *   a layout with TCol stride 2 (the .pack::16b form) thus puts each
 *   element in the low half of its own column and leaves the high half.
 *   The register element is in every thread that holds it (emu_places:
 *   the layout's thread axes, replicas; a st reads the first), and each of
 *   them must be in a warp whose lane quarter holds the lane (lane / 32 ==
 *   warp % 4); the lane must be below 128 and the column allocated. An ld
 *   poisons the register bytes until the holder's wait.ld and refuses
 *   cells with a st not yet waited for; a st writes at once and its cells
 *   are pending for the thread it read from until that thread's wait.st:
 *   the rules of the builtins above. Every other use of tensor memory (a
 *   sync copy, an element access, another copy_async) stays an error. */
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

enum { TM_LANES = 128, TM_COLS = 512, TM_WORDS = TM_LANES * TM_COLS };

typedef struct TmAlloc {
	int col, n;
	Pos at, freed;   /* where it was allocated, and freed (line 0: live) */
	int warp;        /* the warp that allocated it */
	bool live;
} TmAlloc;

typedef struct TmLd {  /* register bytes a tcgen05.ld will write at wait.ld */
	uint8_t *p;
	uint32_t v;           /* the value: its first n bytes (little-endian, as emu_store) */
	Pos at;
	int n;                /* 4, or an element's 2 (the tile op) */
	bool tile;            /* from the tile op (Tx.wg.copy_async), not T.ptx.tcgen05.ld */
} TmLd;

typedef struct Tmem {
	uint32_t w[TM_WORDS];
	int32_t stpend[TM_WORDS]; /* 0, or 1 + the thread whose st wrote it, not yet waited */
	Pos *stpos;               /* per thread: its last st */
	int64_t *nst;             /* per thread: cells its st wrote since its wait.st */
	int owner[TM_COLS];       /* 0, or 1 + the allocation holding the column */
	TmAlloc *al;
	int nal;
	bool relinquished;
	TmLd **ld;                /* per thread: pending ld destinations */
	int *nld, *capld;
} Tmem;

static const char *pos_str(Pos at)
{
	const char *file = at.place ? pos_name(at) : NULL;
	return file ? xprintf("%s:%d", file, at.line) : xprintf("line %d", at.line);
}

static Tmem *tmem(Emu *E) { return E->tm; }

/* The CTA's tensor memory, at its first tcgen05 builtin (malloc'd: a grid
 * of CTAs makes and frees one each). */
static bool make_tmem(Emu *E, Pos pos)
{
	size_t n = (size_t)E->nthreads;
	Tmem *m = calloc(1, sizeof *m);
	if (m) {
		m->stpos = calloc(n, sizeof(Pos));
		m->nst = calloc(n, sizeof(int64_t));
		m->ld = calloc(n, sizeof(TmLd *));
		m->nld = calloc(n, sizeof(int));
		m->capld = calloc(n, sizeof(int));
	}
	E->tm = m;
	if (!m || !m->stpos || !m->nst || !m->ld || !m->nld || !m->capld) {
		emu_tmem_free(E);
		return emu_fail(E, pos, -1, "cannot allocate memory to emulate tensor memory");
	}
	memset(m->w, 0xAB, sizeof m->w);
	return true;
}

void emu_tmem_free(Emu *E)
{
	Tmem *m = E->tm;
	if (!m)
		return;
	for (int t = 0; m->ld && t < E->nthreads; t++)
		free(m->ld[t]);
	free(m->ld);
	free(m->nld);
	free(m->capld);
	free(m->stpos);
	free(m->nst);
	free(m->al);
	free(m);
	E->tm = NULL;
}

bool emu_tmem_end(Emu *E, bool ok)
{
	Tmem *m = E->tm;
	if (!m)
		return true;
	bool good = true;
	for (int i = 0; ok && good && i < m->nal; i++)
		if (m->al[i].live)
			good = emu_fail(E, E->f->stmt->pos, -1,
			                "tensor memory not freed at exit: columns %d..%d allocated by warp %d (threads %d-%d) "
			                "at %s (free them with T.ptx.tcgen05.dealloc before the kernel ends)",
			                m->al[i].col, m->al[i].col + m->al[i].n - 1, m->al[i].warp, 32 * m->al[i].warp,
			                32 * m->al[i].warp + 31, pos_str(m->al[i].at));
	emu_tmem_free(E); /* the next CTA starts afresh */
	return good;
}

bool emu_tmem_reg_check(Emu *E, const uint8_t *p, int64_t n, bool write, Pos pos, int t)
{
	Tmem *m = E->tm;
	if (t < 0 || t >= E->nthreads || !m->nld[t])
		return true;
	for (int i = 0; i < m->nld[t]; i++) {
		const TmLd *l = &m->ld[t][i];
		if (p < l->p + l->n && l->p < p + n)
			return emu_fail(E, pos, t, "this %s a register that the %s at %s has not written yet: wait "
			                "with T.ptx.tcgen05.wait.ld() first", write ? "writes" : "reads",
			                l->tile ? "copy_async from tensor memory" : "tcgen05.ld", pos_str(l->at));
	}
	return true;
}

/* ---- the lane/column table (ptx.md) ------------------------------------------------------- */

/* Register r of lane t: the lane and the 32-bit column (relative to the
 * address), before .pack::16b doubles the column. */
static void cell(int shape, int t, int r, int *lane, int *col)
{
	switch (shape) {
	case TC_32X32B:
		*lane = t;
		*col = r;
		break;
	case TC_16X64B:
		*lane = (t >> 2) + 8 * (t & 1);
		*col = ((t >> 1) & 1) + 2 * r;
		break;
	case TC_16X128B:
		*lane = (t >> 2) + 8 * (r & 1);
		*col = (t & 3) + 4 * (r >> 1);
		break;
	default: /* TC_16X256B */
		*lane = (t >> 2) + 8 * ((r >> 1) & 1);
		*col = 2 * (t & 3) + (r & 1) + 8 * (r >> 2);
		break;
	}
}

/* ---- the builtins ------------------------------------------------------------------------ */

static const char *op_name(int op)
{
	switch (op) {
	case IN_TC_ALLOC: return "tcgen05.alloc";
	case IN_TC_DEALLOC: return "tcgen05.dealloc";
	case IN_TC_RELINQ: return "tcgen05.relinquish_alloc_permit";
	case IN_TC_LD: return "tcgen05.ld";
	case IN_TC_ST: return "tcgen05.st";
	case IN_TC_WAIT_LD: return "tcgen05.wait.ld";
	default: return "tcgen05.wait.st";
	}
}

/* A 32-bit operand, the same in the 32 threads of the warp from act[i]. */
static bool uniform(Emu *E, const CStmt *s, const CExpr *x, const int *act, int i, const char *what, uint32_t *out)
{
	int64_t v0 = 0;
	for (int k = i; k < i + 32; k++) {
		int64_t v;
		if (!emu_eval_int(E, x, act[k], &v))
			return false;
		if (k == i)
			v0 = v;
		else if (v != v0)
			return emu_fail(E, x->at, act[k], "%s: the %s differs within warp %d (%lld in thread %d, %lld here): "
			                "the instruction is .sync.aligned", op_name(s->op), what, act[i] / 32, (long long)v0,
			                act[i], (long long)v);
	}
	*out = (uint32_t)v0;
	return true;
}

static const char *cols_str(int c, int n) { return xprintf("columns %d..%d", c, c + n - 1); }

static bool do_alloc(Emu *E, const CStmt *s, const int *act, int i)
{
	Tmem *m = tmem(E);
	int t = act[i];
	uint32_t n;
	if (!uniform(E, s, s->n, act, i, "n_cols", &n))
		return false;
	if (n < 32 || n > 512 || (n & (n - 1)))
		return emu_fail(E, s->n->at, t, "tcgen05.alloc of %u columns: n_cols must be a power of two from 32 to 512", n);
	if (m->relinquished)
		return emu_fail(E, s->pos, t, "tcgen05.alloc after tcgen05.relinquish_alloc_permit: this CTA gave up the right "
		                "to allocate");
	EVal a;
	if (!emu_eval(E, s->a, t, &a) || !emu_check_ptr(E, s->a->at, t, a, 4, 4, "tcgen05.alloc", "address"))
		return false;
	if (a.mem->space != SP_SHARED)
		return emu_fail(E, s->a->at, t, "tcgen05.alloc: the address, byte %lld of %s, is not in shared memory",
		                (long long)a.i, emu_mem_str(a.mem));
	int c = 0, free_cols = 0;
	for (int k = 0; k < TM_COLS; k++)
		free_cols += !m->owner[k];
	for (; c + (int)n <= TM_COLS; c += (int)n) {
		int k = 0;
		while (k < (int)n && !m->owner[c + k])
			k++;
		if (k == (int)n)
			break;
	}
	if (c + (int)n > TM_COLS)
		return emu_fail(E, s->pos, t, "tcgen05.alloc of %u columns: %d of the 512 columns are free, no %u of them "
		                "together (aligned to %u); on the GPU the alloc would block until a dealloc frees them, which "
		                "the emulator (lockstep) cannot wait for", n, free_cols, n, n);
	uint8_t *p = a.mem->data + a.i;
	if (!emu_pend_check(E, p, 4, true, s->pos, t))
		return false;
	TmAlloc *al = realloc(m->al, sizeof(TmAlloc) * (size_t)(m->nal + 1));
	if (!al)
		return emu_fail(E, s->pos, t, "cannot allocate memory to emulate tensor memory");
	m->al = al;
	m->al[m->nal++] = (TmAlloc){ .col = c, .n = (int)n, .at = s->pos, .warp = t / 32, .live = true };
	for (int k = 0; k < (int)n; k++)
		m->owner[c + k] = m->nal;
	emu_store(p, DT_UINT32, (EVal){ c, NULL });
	return true;
}

static bool do_dealloc(Emu *E, const CStmt *s, const int *act, int i)
{
	Tmem *m = tmem(E);
	int t = act[i];
	uint32_t a, n;
	if (!uniform(E, s, s->a, act, i, "address", &a) || !uniform(E, s, s->n, act, i, "n_cols", &n))
		return false;
	int lane = (int)(a >> 16), c = (int)(a & 0xFFFF);
	TmAlloc *hit = NULL, *old = NULL;
	for (int k = 0; k < m->nal; k++)
		if (m->al[k].col == c && lane == 0) {
			if (m->al[k].live)
				hit = &m->al[k];
			else
				old = &m->al[k];
		}
	if (!hit && old)
		return emu_fail(E, s->pos, t, "tcgen05.dealloc of %s: double free: the allocation at %s was freed at %s",
		                cols_str(c, (int)n), pos_str(old->at), pos_str(old->freed));
	if (!hit)
		return emu_fail(E, s->pos, t, "tcgen05.dealloc of address 0x%08x (lane %d, column %d): no allocation starts "
		                "there", a, lane, c);
	if ((int)n != hit->n)
		return emu_fail(E, s->pos, t, "tcgen05.dealloc of %u columns at column %d: the allocation there (at %s) has "
		                "%d columns", n, c, pos_str(hit->at), hit->n);
	if (E->tmem_out && !E->cta[0] && !E->cta[1] && !E->cta[2]) {
		for (int l = 0; l < TM_LANES; l++)
			memcpy(&E->tmem_out[l * TM_COLS + c], &m->w[l * TM_COLS + c], sizeof(uint32_t) * (size_t)hit->n);
		if (E->tmem_taken)
			*E->tmem_taken = true;
	}
	hit->live = false;
	hit->freed = s->pos;
	for (int k = 0; k < hit->n; k++)
		m->owner[c + k] = 0;
	return true;
}

/* A st value: the 32-bit word at an element's address, or a value's bits. */
static bool st_word(Emu *E, const CStmt *s, const CExpr *x, int t, uint32_t *out)
{
	EVal v;
	if (!emu_eval(E, x, t, &v))
		return false;
	if (x->kind == X_ADDR) {
		if (!emu_check_ptr(E, x->at, t, v, 4, 4, op_name(s->op), "register") ||
		    !emu_pend_check(E, v.mem->data + v.i, 4, false, s->pos, t))
			return false;
		*out = (uint32_t)emu_load(v.mem->data + v.i, DT_UINT32).i;
	} else if (dt_float(x->dtype)) {
		*out = (uint32_t)emu_conv(v, x->dtype, DT_FLOAT32).i;
	} else {
		*out = (uint32_t)emu_conv(v, x->dtype, DT_UINT32).i;
	}
	return true;
}

/* The n register bytes at p of thread t get v at its wait.ld; poisoned
 * until then (tile: from the tile op, for the error's wording). */
static bool pend_ld(Emu *E, Pos at, int t, uint8_t *p, uint32_t v, int n, bool tile)
{
	Tmem *m = tmem(E);
	if (m->nld[t] == m->capld[t]) {
		int cap = m->capld[t] ? 2 * m->capld[t] : 16;
		TmLd *nl = realloc(m->ld[t], sizeof(TmLd) * (size_t)cap);
		if (!nl)
			return emu_fail(E, at, t, "cannot allocate memory to emulate tensor memory");
		m->ld[t] = nl;
		m->capld[t] = cap;
	}
	m->ld[t][m->nld[t]++] = (TmLd){ p, v, at, n, tile };
	memset(p, EMU_POISON, (size_t)n);
	return true;
}

static bool do_ldst(Emu *E, const CStmt *s, const int *act, int i)
{
	Tmem *m = tmem(E);
	bool ld = s->op == IN_TC_LD;
	const char *op = op_name(s->op);
	const Tcgen05Shape *sh = &tcgen05_shapes[s->tc_shape];
	int t0 = act[i], w = t0 / 32, q = w % 4;
	uint32_t a, row, col;
	if (!uniform(E, s, s->a, act, i, "address", &a) || !uniform(E, s, s->b, act, i, "row", &row) ||
	    !uniform(E, s, s->n, act, i, "column", &col))
		return false;
	uint32_t base = a + ((row + 32u * (uint32_t)q) << 16) + col;
	int lane0 = (int)(base >> 16), c0 = (int)(base & 0xFFFF);
	int ncols = s->tc_num * sh->cols * (s->tc_pack ? 2 : 1);
	if (lane0 < 32 * q || lane0 + sh->lanes > 32 * q + 32)
		return emu_fail(E, s->pos, t0, "%s: warp %d accesses tensor-memory lanes %d..%d, outside its lane quarter "
		                "%d..%d (warp %% 4 = %d; address 0x%08x, row %u, column %u)", op, w, lane0,
		                lane0 + sh->lanes - 1, 32 * q, 32 * q + 31, q, a, row, col);
	for (int k = 0; k < ncols; k++)
		if (c0 + k >= TM_COLS || !m->owner[c0 + k]) {
			Buf b = { 0 };
			bputs(&b, "");
			for (int j = 0; j < m->nal; j++)
				if (m->al[j].live)
					bprintf(&b, "%s%s", b.n ? ", " : "", cols_str(m->al[j].col, m->al[j].n));
			return emu_fail(E, s->pos, t0, "%s: warp %d accesses tensor-memory %s, but column %d is not allocated "
			                "(allocated: %s)", op, w, cols_str(c0, ncols), c0 + k, b.n ? b.s : "none");
		}
	for (int k = i; k < i + 32; k++) {
		int t = act[k], l = t % 32;
		for (int r = 0; r < s->nregs; r++) {
			int dl, dc;
			cell(s->tc_shape, l, r, &dl, &dc);
			int lane = lane0 + dl, c = c0 + (s->tc_pack ? 2 * dc : dc);
			uint32_t *cw = &m->w[lane * TM_COLS + c];
			int32_t *sp = &m->stpend[lane * TM_COLS + c];
			if (!emu_race_tmem(E, lane, c, 1 + s->tc_pack, !ld, s->pos, t, true))
				return false;
			if (ld) {
				for (int h = 0; h <= s->tc_pack; h++)
					if (sp[h])
						return emu_fail(E, s->pos, t, "tcgen05.ld reads tensor-memory lane %d column %d, which the "
						                "tcgen05.st at %s (thread %d) wrote without a tcgen05.wait.st since: the data "
						                "is not visible to tcgen05 ops yet", lane, c + h, pos_str(m->stpos[sp[h] - 1]),
						                sp[h] - 1);
				uint32_t v = s->tc_pack ? (cw[0] & 0xFFFF) | (cw[1] << 16) : cw[0];
				EVal d;
				if (!emu_eval(E, s->idx[r], t, &d) || !emu_check_ptr(E, s->idx[r]->at, t, d, 4, 4, op, "register") ||
				    !emu_pend_check(E, d.mem->data + d.i, 4, true, s->pos, t))
					return false;
				if (!pend_ld(E, s->pos, t, d.mem->data + d.i, v, 4, false))
					return false;
			} else {
				uint32_t v;
				if (!st_word(E, s, s->idx[r], t, &v))
					return false;
				if (s->tc_pack) {
					cw[0] = v & 0xFFFF;
					cw[1] = v >> 16;
				} else {
					cw[0] = v;
				}
				for (int h = 0; h <= s->tc_pack; h++) {
					m->nst[t] += !sp[h] || sp[h] != t + 1;
					sp[h] = t + 1;
				}
				m->stpos[t] = s->pos;
			}
		}
	}
	return true;
}

static void wait_ld(Emu *E, int t)
{
	Tmem *m = tmem(E);
	for (int i = 0; i < m->nld[t]; i++)
		memcpy(m->ld[t][i].p, &m->ld[t][i].v, (size_t)m->ld[t][i].n); /* little-endian hosts, as emu_store */
	m->nld[t] = 0;
}

static void wait_st(Emu *E, int t)
{
	Tmem *m = tmem(E);
	if (!m->nst[t])
		return;
	for (int k = 0; k < TM_WORDS; k++)
		if (m->stpend[k] == t + 1)
			m->stpend[k] = 0;
	m->nst[t] = 0;
}

bool emu_tcgen05(Emu *E, const CStmt *s, const int *act, int nact)
{
	if (!E->tm && !make_tmem(E, s->pos))
		return false;
	if (s->op == IN_TC_WAIT_LD || s->op == IN_TC_WAIT_ST) {
		for (int i = 0; i < nact; i++)
			(s->op == IN_TC_WAIT_LD ? wait_ld : wait_st)(E, act[i]);
		return true;
	}
	/* the rest is warp-collective: whole warps */
	for (int i = 0; i < nact;) {
		int w = act[i] / 32, j = i;
		while (j < nact && act[j] / 32 == w)
			j++;
		if (j - i != 32)
			return emu_fail(E, s->pos, act[i], "%s is warp-collective: %d of the 32 threads of warp %d are active",
			                op_name(s->op), j - i, w);
		bool ok;
		switch (s->op) {
		case IN_TC_ALLOC:
			/* .sync.aligned: the warp's lanes read the address it wrote
			 * with no barrier of their own (doc/txc-run.md, races) */
			ok = do_alloc(E, s, act, i);
			emu_race_join(E, act + i, 32);
			break;
		case IN_TC_DEALLOC: ok = do_dealloc(E, s, act, i); break;
		case IN_TC_RELINQ: tmem(E)->relinquished = true; ok = true; break;
		default: ok = do_ldst(E, s, act, i); break;
		}
		if (!ok)
			return false;
		i = j;
	}
	return true;
}

/* ---- accessors for tcgen05.cp ---- */

bool emu_tmem_ready(Emu *E, Pos pos) { return E->tm || make_tmem(E, pos); }

bool emu_tmem_allocated(Emu *E, int col) { return col >= 0 && col < TM_COLS && tmem(E)->owner[col]; }

const char *emu_tmem_allocs_str(Emu *E)
{
	Tmem *m = tmem(E);
	Buf b = { 0 };
	bputs(&b, "");
	for (int j = 0; j < m->nal; j++)
		if (m->al[j].live)
			bprintf(&b, "%s%s", b.n ? ", " : "", cols_str(m->al[j].col, m->al[j].n));
	return b.n ? b.s : "none";
}

uint32_t *emu_tmem_cell(Emu *E, int lane, int col) { return &tmem(E)->w[lane * TM_COLS + col]; }

/* ---- the tile op: Tx.wg.copy_async between tensor memory and registers ---- */

/* Element k, in row-major order, of region r starting at st. */
static void nth(const Region *r, const int64_t *st, int64_t k, int64_t *idx)
{
	for (int d = r->ndim - 1; d >= 0; d--) {
		idx[d] = st[d] + k % r->extents[d];
		k /= r->extents[d];
	}
}

bool emu_tmem_tile(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss)
{
	bool ld = s->done == DONE_TC_WAIT_LD;
	const Region *tr = ld ? &s->src : &s->dst, *rr = ld ? &s->dst : &s->src;
	const int64_t *ts = ld ? ss : ds, *rs = ld ? ds : ss;
	const Acc *ta = tr->acc, *ra = rr->acc;
	const char *tn = ta->b->name, *rn = ra->b->name;
	const char *op = ld ? "copy_async from tensor memory to registers" : "copy_async from registers to tensor memory";
	int wg = first / 128, es = ta->esize;
	Tmem *m = tmem(E);
	if (!m)
		return emu_fail(E, s->pos, tf, "%s: the CTA has no tensor memory: no T.ptx.tcgen05.alloc ran before this "
		                "copy", op);
	if (!emu_regions_check(E, s, tf, ds, ss))
		return false;
	if (ra->space != SP_LOCAL)
		return emu_fail(E, s->pos, tf, "%s: '%s' is not registers", op, rn);
	if (es != ra->esize)
		return emu_fail(E, s->pos, tf, "%s: '%s' is %s and '%s' %s: the copy moves elements bit for bit", op, tn,
		                dtypes[ta->dtype].name, rn, dtypes[ra->dtype].name);
	if (es != 1 && es != 2 && es != 4)
		return emu_fail(E, s->pos, tf, "%s: %s elements are not 8, 16 or 32 bits wide (a 32-bit column of tensor "
		                "memory holds one, two or four)", op, dtypes[ta->dtype].name);
	const Layout *l = ta->l;
	for (int i = 0; i < l->nshard + l->nrep; i++) {
		const Iter *it = i < l->nshard ? &l->shard[i] : &l->rep[i - l->nshard];
		if (it->extent > 1 && (i >= l->nshard || (it->axis != AX_TLANE && it->axis != AX_TCOL)))
			return emu_fail(E, s->pos, tf, "%s: the layout of the tensor memory '%s' %s: its elements are placed by "
			                "TLane and TCol alone", op, tn, i >= l->nshard ? "has replicas" :
			                xprintf("uses the axis %s", axes[it->axis].name));
	}
	/* the tensor memory's address, the same in the whole warpgroup */
	uint32_t addr = 0;
	for (int t = first; t < first + n; t++) {
		int64_t v;
		if (!emu_eval_int(E, s->a, t, &v))
			return false;
		if (t == first)
			addr = (uint32_t)v;
		else if ((uint32_t)v != addr)
			return emu_fail(E, s->pos, t, "%s: the allocated_addr= of '%s' differs within warpgroup %d (0x%08x in "
			                "thread %d, 0x%08x here): the warpgroup's tcgen05.ld/st take one address", op, tn, wg, addr,
			                first, (uint32_t)v);
	}
	int64_t count = 1, rcount = 1;
	for (int d = 0; d < tr->ndim; d++)
		count *= tr->extents[d];
	for (int d = 0; d < rr->ndim; d++)
		rcount *= rr->extents[d];
	if (count != rcount)
		return emu_fail(E, s->pos, tf, "the regions of this copy do not match");
	int64_t ti[EMU_MAX_DIMS], ri[EMU_MAX_DIMS], c[AX_COUNT];
	uint8_t *pl[1024];
	int who[1024];
	for (int64_t k = 0; k < count; k++) {
		nth(tr, ts, k, ti);
		nth(rr, rs, k, ri);
		const char *te = emu_idx_str(ti, ta->b->ndim);
		if (!emu_coord(ta, ti, c))
			return emu_fail(E, s->pos, tf, "%s: the place of element %s of '%s' in tensor memory overflows", op, te, tn);
		/* lane, 32-bit column and byte in it: TCol counts elements; rows
		 * [0:64] of D as the low half-slab: row r in lane 32 (r / 16) + r % 16 */
		int64_t tl = s->tc_half ? 32 * (c[AX_TLANE] / 16) + c[AX_TLANE] % 16 : c[AX_TLANE];
		int64_t lane = (int64_t)(addr >> 16) + tl;
		int64_t byte = (int64_t)(addr & 0xFFFF) * 4 + c[AX_TCOL] * es;
		int64_t col = byte >= 0 ? byte / 4 : -1;
		if (lane < 0 || lane >= TM_LANES)
			return emu_fail(E, s->pos, tf, "%s: element %s of '%s' is at tensor-memory lane %lld (allocated_addr= "
			                "0x%08x, TLane %lld), outside lanes 0..127", op, te, tn, (long long)lane, addr,
			                (long long)c[AX_TLANE]);
		if (col < 0 || col >= TM_COLS || !m->owner[col])
			return emu_fail(E, s->pos, tf, "%s: element %s of '%s' is at tensor-memory lane %lld column %lld "
			                "(allocated_addr= 0x%08x, TCol %lld), which is not allocated (allocated: %s)", op, te, tn,
			                (long long)lane, (long long)col, addr, (long long)c[AX_TCOL], emu_tmem_allocs_str(E));
		/* the registers: every holder (replicas too); the warp's quarter */
		int nh = 0;
		for (int64_t r = 0; r < ra->nrep && nh < 1024; r++) {
			int got = emu_places(E, rr, ri, first, n, r, tf, pl + nh, who + nh, 1024 - nh);
			if (got < 0)
				return false;
			nh += got;
		}
		const char *re = emu_idx_str(ri, ra->b->ndim);
		if (!nh)
			return emu_fail(E, rr->pos, tf, "register element %s of '%s' is held by no thread of warpgroup %d", re, rn,
			                wg);
		for (int h = 0; h < nh; h++) {
			int w = who[h] / 32, q = w % 4;
			if (lane / 32 != q)
				return emu_fail(E, s->pos, who[h], "%s: register element %s of '%s' is held by thread %d of warp %d, "
				                "which reaches only tensor-memory lanes %d..%d (its lane quarter, warp %% 4 = %d), but "
				                "its element %s of '%s' is at lane %lld", op, re, rn, who[h], w, 32 * q, 32 * q + 31, q,
				                te, tn, (long long)lane);
		}
		uint8_t *cell = (uint8_t *)&m->w[lane * TM_COLS + col] + byte % 4; /* little-endian, as emu_store */
		int32_t *sp = &m->stpend[lane * TM_COLS + col];
		if (!emu_race_tmem(E, (int)lane, (int)col, 1, !ld, s->pos, who[0], true))
			return false;
		if (ld) {
			if (*sp)
				return emu_fail(E, s->pos, tf, "%s reads tensor-memory lane %lld column %lld, which the st at %s (thread "
				                "%d) wrote without a tcgen05.wait.st since: the data is not visible to tcgen05 ops yet", op,
				                (long long)lane, (long long)col, pos_str(m->stpos[*sp - 1]), *sp - 1);
			uint32_t v = 0;
			memcpy(&v, cell, (size_t)es);
			for (int h = 0; h < nh; h++)
				if (!emu_pend_check(E, pl[h], es, true, s->pos, who[h]) ||
				    !pend_ld(E, s->pos, who[h], pl[h], v, es, true))
					return false;
		} else {
			int t = who[0]; /* read from the first holder */
			if (!emu_pend_check(E, pl[0], es, false, s->pos, t))
				return false;
			memcpy(cell, pl[0], (size_t)es);
			m->nst[t] += *sp != t + 1;
			*sp = t + 1;
			m->stpos[t] = s->pos;
		}
	}
	return true;
}
