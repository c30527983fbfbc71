/* Tile copies and byte copies.
 *
 * Tx[.scope].copy(dst, src) moves the src region into the dst region
 * element by element, the k-th element of each region in its own
 * row-major order paired (the two hold as many elements). A thread-scope copy is done by each
 * active thread; a collective copy once per warp, warpgroup or CTA, which
 * must be wholly active and agree on the regions (the CTAs run one after
 * another: a register layout's cbx, cby and cbz name the CTA of the cluster
 * that holds an element, and only the running CTA's are there). A copy_async of the cp.async kind is issued the
 * same way: checked, its destination poisoned, and the copy itself left to
 * emu-async.c, which does it with emu_copy_region when a wait retires it.
 *
 * Registers: element (i, j) of a local buffer lives in the thread(s) its
 * layout's thread axes name, relative to the group doing the copy (laneid
 * is the lane in the warp, tid_in_wg the thread in the warpgroup, tx the
 * thread in the CTA, ...), at the storage offset of its m coordinate. An
 * axis the layout does not use leaves that part of the thread free: every
 * such thread holds a copy (written to all, read from the first), as does
 * every replica R[...]. */
#include <string.h>

#include "emu-impl.h"

/* ---- one element of a region ---------------------------------------------------------- */

typedef struct Side {
	const Region *r;
	int64_t idx[EMU_MAX_DIMS];
} Side;

/* Replica r of the element at s->idx for the group first .. first+n-1:
 * how many places (at most max) and their bytes, and when who is not NULL
 * the thread holding each (-1: memory, not registers); -1 after an error. */
static int places_who(Emu *E, const Side *s, int first, int n, int64_t r, int tf, uint8_t **out, int *who, int max)
{
	const Acc *a = s->r->acc;
	int64_t c[AX_COUNT], m;
	if (a->simple && r == 0) {
		if (!emu_offset(a, s->idx, &m))
			goto overflow;
		c[AX_M] = m;
	} else {
		if (!emu_coord(a, s->idx, c))
			goto overflow;
		if (r)
			layout_replica(a->l, r, c);
	}
	m = c[AX_M];
	if (m < 0 || m >= a->storage) {
		emu_fail(E, s->r->pos, tf, "element %s of '%s' is at storage offset %lld, outside the %lld elements of '%s'",
		         emu_idx_str(s->idx, a->b->ndim), a->b->name, (long long)m, (long long)a->storage, a->root->name);
		return -1;
	}
	if (a->space != SP_LOCAL) {
		out[0] = emu_mem(E, a, 0)->data + m * a->esize;
		if (who)
			who[0] = -1;
		return 1;
	}
	int own[1024];
	int k = emu_owners(a, c, E->cb, first, n, E->nthreads, own, max < 1024 ? max : 1024);
	for (int i = 0; i < k; i++) {
		out[i] = emu_mem(E, a, own[i])->data + m * a->esize;
		if (who)
			who[i] = own[i];
	}
	return k;
overflow:
	emu_fail(E, s->r->pos, tf, "the storage offset of element %s of '%s' overflows", emu_idx_str(s->idx, a->b->ndim),
	         a->b->name);
	return -1;
}

int emu_places(Emu *E, const Region *r, const int64_t *idx, int first, int n, int64_t rep, int tf, uint8_t **out,
               int *who, int max)
{
	Side s = { r, { 0 } };
	memcpy(s.idx, idx, sizeof(int64_t) * (size_t)r->ndim);
	return places_who(E, &s, first, n, rep, tf, out, who, max);
}

static const char *group_name(int es, int first)
{
	if (es >= ES_CTA)
		return "the CTA";
	return xprintf("%s %lld", exec_scope_names[es], (long long)(first / level_threads(es, 0)));
}

static bool unheld(Emu *E, const Side *x, int es, int first, int tf)
{
	const Acc *a = x->r->acc;
	const char *idx = emu_idx_str(x->idx, a->b->ndim);
	if (es == ES_THREAD)
		return emu_fail(E, x->r->pos, tf, "register element %s of '%s' is not held by this thread", idx, a->b->name);
	return emu_fail(E, x->r->pos, tf, "register element %s of '%s' is held by no thread of %s", idx, a->b->name,
	                group_name(es, first));
}

void emu_fill(uint8_t *p, int n, int fill)
{
	if (fill == EMU_FILL_NAN)
		for (int k = 0; k < n; k++)
			p[k] = k % 2 ? 0x7F : 0xF7;
	else
		memset(p, fill, (size_t)n);
}

/* One element from src (NULL with a fill) to dst, as fill says; the
 * shared bytes an asynchronous copy owns are marked at its issue, cleared
 * when it is done, and checked on every other access (emu_pend_*). */
static bool move(Emu *E, const CStmt *s, const Acc *da, const Acc *sa, uint8_t *dst, const uint8_t *src, int fill,
                 int tf)
{
	if (fill >= 0) {
		emu_fill(dst, da->esize, fill);
		if (fill == EMU_POISON)
			emu_pend_mark(E, dst, da->esize, s->pos, tf, s->done == DONE_MBAR_TX ? PEND_MBAR : PEND_CP);
		else if (E->performing) {
			emu_race_async(E, dst, da->esize);
			emu_pend_clear(E, dst, da->esize);
			emu_proxy_clear(E, dst, da->esize);
		}
		else if (!emu_pend_check(E, dst, da->esize, true, s->pos, tf))
			return false;
		return true;
	}
	if (E->performing) {
		emu_race_async(E, dst, da->esize);
		emu_pend_clear(E, dst, da->esize);
		emu_pend_clear(E, src, sa->esize);
		emu_proxy_clear(E, dst, da->esize);
	} else if (!emu_pend_check(E, src, sa->esize, false, s->pos, tf) ||
	           !emu_pend_check(E, dst, da->esize, true, s->pos, tf)) {
		return false;
	}
	if (s->kind == C_COPY_ASYNC && s->red) /* reduce=: combined into the destination */
		emu_store(dst, da->dtype, emu_reduce(s->red - 1, da->dtype, emu_load(dst, da->dtype), emu_load(src, sa->dtype)));
	else
		memmove(dst, src, (size_t)da->esize);
	return true;
}

static bool copy_element(Emu *E, const CStmt *s, Side *D, Side *S, int first, int n, int tf, int fill)
{
	const Acc *da = D->r->acc, *sa = S->r->acc;
	uint8_t *src = NULL, *dst[1024];
	int swho = -1, dwho[1024];
	bool reads = fill < 0 || fill == EMU_MARK_SRC;
	for (int64_t r = 0; r < sa->nrep && !src && reads; r++) {
		int k = places_who(E, S, first, n, r, tf, &src, &swho, 1);
		if (k < 0)
			return false;
	}
	if (!src && reads)
		return unheld(E, S, s->scope, first, tf);
	if (fill == EMU_MARK_SRC) { /* a TMA store's issue: its source is now read asynchronously */
		/* by the async proxy: generic stores into it need their fence */
		if (!emu_proxy_check(E, src, sa->esize, s->pos, tf, "copy_async (a TMA store)", "the source", true))
			return false;
		emu_pend_mark(E, src, sa->esize, s->pos, tf, PEND_STORE_SRC);
		return true;
	}
	int written = 0;
	for (int64_t r = 0; r < da->nrep; r++) {
		int k = places_who(E, D, first, n, r, tf, dst, dwho, 1024);
		if (k < 0)
			return false;
		for (int i = 0; i < k; i++) {
			/* registers <-> shared memory: the thread holding the
			 * registers is the one that touches the shared bytes */
			int pt = E->race_thr, reg = dwho[i] >= 0 ? dwho[i] : swho;
			if (reg >= 0)
				E->race_thr = reg;
			bool ok = move(E, s, da, sa, dst[i], src, fill, tf);
			E->race_thr = pt;
			if (!ok)
				return false;
		}
		written += k;
	}
	if (!written)
		return unheld(E, D, s->scope, first, tf);
	return true;
}

/* ---- tile copies ------------------------------------------------------------------------- */

/* A buffer of symbolic extent (Buffer.dyn): a region may hang past its
 * run-time end, and past the bound its static checks used (the last tile
 * of T.ceildiv(m, 64) under T.assume(m <= 1000): sema checks its end);
 * the elements past the end read as zeros and are not written. */
static const Buffer *dyn_root(const Region *r)
{
	const Buffer *b = r->acc->root;
	return b && b->dyn ? b : NULL;
}

static bool in_bounds(Emu *E, const Region *r, const int64_t *start, int tf)
{
	const Buffer *b = r->acc->b, *dyn = dyn_root(r);
	for (int d = 0; d < r->ndim; d++)
		if (start[d] < 0 || (!(d == 0 && dyn) && start[d] > b->shape[d] - r->extents[d]))
			return emu_fail(E, r->pos, tf,
			                "region %s is out of bounds: dimension %d covers %lld:%lld but '%s' has extent %lld",
			                r->text, d, (long long)start[d], (long long)(start[d] + r->extents[d]), b->name,
			                (long long)b->shape[d]);
	return true;
}

/* Whether the source element at idx lies inside its tensor. */
static bool inside(const Region *r, const int64_t *idx)
{
	const Buffer *b = r->acc->b;
	for (int d = 0; d < r->ndim; d++)
		if (idx[d] < 0 || idx[d] >= b->shape[d])
			return false;
	return true;
}

static bool src_in_bounds(Emu *E, const CStmt *s, const int64_t *ss, int tf)
{
	return (s->kind == C_COPY_ASYNC && s->oob >= 0) || in_bounds(E, &s->src, ss, tf);
}

bool emu_regions_check(Emu *E, const CStmt *s, int tf, const int64_t *ds, const int64_t *ss)
{
	return in_bounds(E, &s->dst, ds, tf) && src_in_bounds(E, s, ss, tf);
}

static bool copy_region(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss,
                        int fill);

/* For the race checker, a collective copy's accesses of shared memory are
 * the group's (stamped with its first thread tf and its size), except
 * where registers say which thread moves the element (copy_element). */
bool emu_copy_region(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss,
                     int fill)
{
	int pg = E->race_gn, pt = E->race_thr;
	E->race_gn = n > 1 ? n : 1;
	E->race_thr = -1;
	bool ok = copy_region(E, s, first, n, tf, ds, ss, fill);
	E->race_gn = pg;
	E->race_thr = pt;
	return ok;
}

/* The walk over the elements of a copy's two regions: each side runs over
 * its own dimensions of extent > 1 in row-major order, the k-th element
 * of one paired with the k-th of the other. */
typedef struct Pairs {
	Side D, S;
	const int64_t *ds, *ss;
	int fd[EMU_MAX_DIMS], fs[EMU_MAX_DIMS], nd, ns;
	int64_t n;          /* the elements of the destination (0: the sides differ) */
} Pairs;

static void pairs_start(Pairs *p, const CStmt *s, const int64_t *ds, const int64_t *ss)
{
	p->D = (Side){ &s->dst, { 0 } };
	p->S = (Side){ &s->src, { 0 } };
	p->ds = ds, p->ss = ss;
	p->nd = p->ns = 0;
	int64_t dn = 1, sn = 1;
	for (int d = 0; d < p->D.r->ndim; d++) {
		p->D.idx[d] = ds[d];
		dn *= p->D.r->extents[d];
		if (p->D.r->extents[d] > 1)
			p->fd[p->nd++] = d;
	}
	for (int d = 0; d < p->S.r->ndim; d++) {
		p->S.idx[d] = ss[d];
		sn *= p->S.r->extents[d];
		if (p->S.r->extents[d] > 1)
			p->fs[p->ns++] = d;
	}
	p->n = dn == sn ? dn : 0;
}

/* To the next pair; false after the last. */
static bool pairs_next(Pairs *p)
{
	int k = p->ns - 1;
	for (; k >= 0; k--) {
		int b = p->fs[k];
		if (++p->S.idx[b] < p->ss[b] + p->S.r->extents[b])
			break;
		p->S.idx[b] = p->ss[b];
	}
	for (k = p->nd - 1; k >= 0; k--) {
		int a = p->fd[k];
		if (++p->D.idx[a] < p->ds[a] + p->D.r->extents[a])
			break;
		p->D.idx[a] = p->ds[a];
	}
	return k >= 0;
}

static bool copy_region(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss,
                        int fill)
{
	Pairs p;
	pairs_start(&p, s, ds, ss);
	if (!in_bounds(E, p.D.r, ds, tf) || !src_in_bounds(E, s, ss, tf))
		return false;
	bool hangs = s->kind == C_COPY_ASYNC && s->oob >= 0 && fill < 0;
	if (!p.n)
		return emu_fail(E, s->pos, tf, "the regions of this copy do not match");
	const Acc *da = p.D.r->acc, *sa = p.S.r->acc;
	bool fast = da->simple && sa->simple && fill != EMU_MARK_SRC;
	uint8_t *dbase = fast ? emu_mem(E, da, 0)->data : NULL, *sbase = fast ? emu_mem(E, sa, 0)->data : NULL;
	const Buffer *ddyn = dyn_root(p.D.r), *sdyn = dyn_root(p.S.r);
	for (;;) {
		if (ddyn && p.D.idx[0] >= ddyn->shape[0]) {
			/* past the destination's end: not written */
		} else if (sdyn && p.S.idx[0] >= sdyn->shape[0] && fill != EMU_MARK_SRC) {
			if (!copy_element(E, s, &p.D, &p.S, first, n, tf, fill >= 0 ? fill : 0))
				return false;
		} else if (sdyn && p.S.idx[0] >= sdyn->shape[0]) {
			/* a TMA store's issue: nothing past the end is read */
		} else if (hangs && !inside(p.S.r, p.S.idx)) {
			if (!copy_element(E, s, &p.D, &p.S, first, n, tf, s->oob))
				return false;
		} else if (fast) {
			int64_t dm, sm;
			if (emu_offset(da, p.D.idx, &dm) && emu_offset(sa, p.S.idx, &sm) && dm >= 0 && dm < da->storage && sm >= 0 &&
			    sm < sa->storage) {
				if (!move(E, s, da, sa, dbase + dm * da->esize, sbase + sm * sa->esize, fill, tf))
					return false;
			} else if (!copy_element(E, s, &p.D, &p.S, first, n, tf, fill)) { /* reports the problem */
				return false;
			}
		} else if (!copy_element(E, s, &p.D, &p.S, first, n, tf, fill)) {
			return false;
		}
		if (!pairs_next(&p))
			return true;
	}
}

static bool starts(Emu *E, const Region *r, int t, int64_t *out)
{
	for (int d = 0; d < r->ndim; d++)
		if (!emu_eval_int(E, r->starts[d], t, &out[d]))
			return false;
	return true;
}

static bool same_starts(Emu *E, const Region *r, const int64_t *a, int ta, int tb, int es, int first)
{
	int64_t b[EMU_MAX_DIMS];
	if (!starts(E, r, tb, b))
		return false;
	for (int d = 0; d < r->ndim; d++)
		if (a[d] != b[d])
			return emu_fail(E, r->pos, tb,
			                "the threads of %s disagree on region %s: dimension %d starts at %lld in thread %d, at %lld here",
			                group_name(es, first), r->text, d, (long long)a[d], ta, (long long)b[d]);
	return true;
}

bool emu_copy(Emu *E, const CStmt *s, const int *act, int nact)
{
	const Acc *sides[2] = { s->dst.acc, s->src.acc };
	bool tm = emu_tmem_tile_op(s); /* tensor memory <-> registers: its side of tensor memory is emu-tmem.c's */
	for (int i = 0; i < 2; i++)
		if (sides[i]->why && !(tm && sides[i]->space == SP_TMEM))
			return emu_fail(E, s->pos, act[0], "%s", sides[i]->why);
	int size = (int)level_threads(s->scope, E->nthreads);
	int64_t ds[EMU_MAX_DIMS], ss[EMU_MAX_DIMS];
	for (int i = 0; i < nact;) {
		int t = act[i], first = t / size * size;
		int n = E->nthreads - first < size ? E->nthreads - first : size;
		int j = i;
		while (j < nact && act[j] < first + n)
			j++;
		if (j - i != n)
			return emu_fail(E, s->pos, t, "collective copy with inactive threads: %d of the %d threads of %s are active",
			                j - i, n, group_name(s->scope, first));
		if (!starts(E, &s->dst, t, ds) || !starts(E, &s->src, t, ss))
			return false;
		for (int k = i + 1; k < j; k++)
			if (!same_starts(E, &s->dst, ds, t, act[k], s->scope, first) ||
			    !same_starts(E, &s->src, ss, t, act[k], s->scope, first))
				return false;
		if (tm ? !emu_tmem_tile(E, s, first, n, t, ds, ss)
		       : s->kind == C_COPY_ASYNC ? !emu_async_tile(E, s, first, n, t, ds, ss)
		                                 : !emu_copy_region(E, s, first, n, t, ds, ss, -1))
			return false;
		i = j;
	}
	return true;
}

/* ---- copy_bytes ------------------------------------------------------------------------- */

const char *emu_mem_str(const Mem *m)
{
	if (m->thread >= 0)
		return xprintf("the registers '%s' of thread %d", m->buf->name, m->thread);
	return xprintf("%s buffer '%s'", scopes[m->buf->scope].name, m->buf->name);
}

/* n bytes are touched (0: none, only the alignment counts), align is the
 * size of the access. */
bool emu_check_ptr(Emu *E, Pos p, int t, EVal v, int64_t n, int64_t align, const char *op, const char *what)
{
	const Mem *m = v.mem;
	if (!m)
		return emu_fail(E, p, t, "%s: the %s is not an address", op, what);
	if (n && (v.i < 0 || v.i > m->size - n))
		return emu_fail(E, p, t, "%s of %lld bytes: the %s, byte %lld of %s (%lld bytes), is out of bounds", op,
		                (long long)align, what, (long long)v.i, emu_mem_str(m), (long long)m->size);
	if ((m->base + v.i) % align)
		return emu_fail(E, p, t, "%s of %lld bytes: the %s, byte %lld of %s%s, is not aligned to %lld bytes", op,
		                (long long)align, what, (long long)v.i, emu_mem_str(m),
		                m->space == SP_SHARED ? xprintf(" (shared byte %lld)", (long long)(m->base + v.i)) : "",
		                (long long)align);
	return true;
}

bool emu_copy_bytes(Emu *E, const CStmt *s, int t)
{
	EVal d, src;
	int64_t n;
	if (!emu_eval(E, s->a, t, &d) || !emu_eval(E, s->b, t, &src) || !emu_eval_int(E, s->n, t, &n))
		return false;
	/* n is 1, 2, 4, 8 or 16: sema checked it */
	const char *op = "T.cuda.copy_bytes";
	if (!emu_check_ptr(E, s->a->at, t, d, n, n, op, "destination") || !emu_check_ptr(E, s->b->at, t, src, n, n, op, "source"))
		return false;
	if (!emu_pend_check(E, src.mem->data + src.i, n, false, s->pos, t) ||
	    !emu_pend_check(E, d.mem->data + d.i, n, true, s->pos, t))
		return false;
	memmove(d.mem->data + d.i, src.mem->data + src.i, (size_t)n);
	return true;
}

/* T.cuda.zero_bytes: n zero bytes at a shared or local address */
bool emu_zero_bytes(Emu *E, const CStmt *s, int t)
{
	EVal d;
	int64_t n;
	if (!emu_eval(E, s->a, t, &d) || !emu_eval_int(E, s->n, t, &n))
		return false;
	if (!emu_check_ptr(E, s->a->at, t, d, n, n, "T.cuda.zero_bytes", "destination") ||
	    !emu_pend_check(E, d.mem->data + d.i, n, true, s->pos, t))
		return false;
	memset(d.mem->data + d.i, 0, (size_t)n);
	return true;
}

/* ---- dsmem: a region of this CTA's shared memory into another CTA's ----------------------- */

bool emu_dsmem(Emu *E, const CStmt *s, int t)
{
	const char *op = "copy_async (dsmem)";
	int64_t r, ds[EMU_MAX_DIMS], ss[EMU_MAX_DIMS];
	if (!emu_eval_int(E, s->value, t, &r) || !starts(E, &s->dst, t, ds) || !starts(E, &s->src, t, ss))
		return false;
	int ncta = E->cl ? E->cl->n : 1;
	if (r < 0 || r >= ncta)
		return emu_fail(E, s->value->at, t, "%s: remote_cta_id %lld is not in the cluster of %d CTA%s", op, (long long)r,
		                ncta, ncta == 1 ? "" : "s");
	if (!in_bounds(E, &s->dst, ds, t) || !in_bounds(E, &s->src, ss, t))
		return false;
	uint8_t *bar = emu_mbar_at(E, s->b, t, op);
	if (!bar)
		return false;
	if (emu_owner(E, bar) != E)
		return emu_fail(E, s->b->at, t, "%s: mbar= is named by its address in this CTA (the remote one is at the same "
		                "place), not in another CTA's shared memory", op);
	Emu *P = emu_peer(E, (int)r);
	uint8_t *pbar = P->sdata + (bar - E->sdata);
	/* the bytes land at once (one schedule the hardware may take) */
	Pairs p;
	pairs_start(&p, s, ds, ss);
	if (!p.n)
		return emu_fail(E, s->pos, t, "the regions of this copy do not match");
	int es = p.D.r->acc->esize;
	do {
		uint8_t *dp = NULL, *sp = NULL;
		if (emu_places(P, p.D.r, p.D.idx, t, 1, 0, t, &dp, NULL, 1) != 1 ||
		    emu_places(E, p.S.r, p.S.idx, t, 1, 0, t, &sp, NULL, 1) != 1)
			return emu_fail(E, s->pos, t, "%s: an element of the regions has no place in shared memory", op);
		if (!emu_proxy_check(E, sp, es, s->pos, t, op, "the source", true) || !emu_pend_check(E, sp, es, false, s->pos, t) ||
		    !emu_pend_check(P, dp, es, true, s->pos, t))
			return false;
		memmove(dp, sp, (size_t)es);
		emu_race_async(P, dp, es);
		emu_proxy_clear(P, dp, es);
	} while (pairs_next(&p));
	int parity;
	bool flipped;
	return emu_mbar_complete_tx(E, s->b, s->pos, t, pbar, p.n * es, P == E ? op : xprintf("%s (into cta rank %lld)", op,
	                                                                                    (long long)r),
	                            &parity, &flipped);
}
