/* Asynchronous copies: T.ptx.cp_async with its groups, the cp.async kind
 * of copy_async (global -> shared, no mbar=), and the completion of TMA
 * copies (bulk groups, mbarrier transactions), as ptx.md describes them
 * for an emulator.
 *
 * Each thread keeps the copies it issued since its last commit_group (the
 * open list) and a queue of committed groups, oldest first. commit_group
 * closes the open list into a group (an empty group is fine); wait_group N
 * completes the oldest groups until at most N remain pending (copies not
 * committed yet are not waited for). A copy is performed when its group
 * completes, and the source is read then; from issue to completion its
 * destination bytes hold 0xAB (EMU_POISON), so that a read before the wait
 * shows up as wrong data. The results are visible to the issuing thread at
 * once and to the others after a barrier, which lockstep emulation gives
 * with nothing more. Copies never waited for are performed at the end of
 * the CTA, as the GPU completes them before the kernel ends.
 *
 * A cp.async is an item of its thread. A collective copy_async (warp,
 * warpgroup, CTA; a thread-scope one is per thread) is issued once per
 * group of threads and is ONE item that joins the open list of every
 * thread of the group: each thread's next commit_group commits it, and it
 * is performed the first time any of them retires it (later retirements of
 * it do nothing). Items are counted by the queues that hold them.
 *
 * TMA (emu-tma.c), and copy_async through tma: a store or reduction is an
 * item of its thread's bulk groups, a second queue per thread that
 * T.ptx.cp_async.bulk.commit_group / wait_group(N, read=) drive as above
 * (wait_group.read retires as the plain one does: the writes done too is
 * one order the GPU may give). A load does its complete_tx on the
 * mbarrier at issue, so that the phases and a wrong expect_tx behave as on
 * the GPU, and its destination is poisoned; it waits in a list (E->txl)
 * with the parity of the phase its bytes counted in, and is performed
 * (the source read then) when a wait on that mbarrier first sees that
 * phase complete (T.ptx.mbarrier.try_wait, or try_wait_parity giving 1),
 * or when a later phase has completed too, or at the end of the CTA.
 *
 * Room for what comes later: tcgen05 copies, items completed by
 * tcgen05.commit or wait::ld / wait::st. */
#include <stdlib.h>
#include <string.h>

#include "emu-impl.h"

enum { A_BYTES, A_TILE, A_TMA };

typedef struct Async {
	int kind;
	int refs;           /* the queues that hold it */
	bool done;
	/* A_BYTES: n bytes to dst: nsrc from src, then zeros */
	uint8_t *dst;
	const uint8_t *src;
	int n, nsrc;
	/* A_TILE: the regions of copy_async s starting at ds and ss, for the
	 * threads first .. first+nthr-1 (tf: the thread errors name) */
	const CStmt *s;
	int first, nthr, tf;
	bool zero;          /* its predicate= was false: zero-filled, the source not read */
	int64_t *ds, *ss;
	/* A_TMA: a bulk tensor load, store or reduction */
	TmaOp tma;
	/* the race checker's stamp: the line of the issue, and for a copy
	 * completing on an mbarrier the issuing thread and its CTA's rank */
	int rline, rt, rrank;
	int64_t starts[];
} Async;

struct AsyncQueue {
	Async **item;       /* item[head .. n-1]: the committed groups' copies,
	                     * oldest first, then the open list */
	int head, n, cap;
	int *group;         /* group[ghead .. ng-1]: the sizes of the committed
	                     * groups, oldest first */
	int ghead, ng, gcap;
	int committed;      /* the items of item[head ..] in committed groups */
};

static bool no_memory(Emu *E, Pos p, int t)
{
	return emu_fail(E, p, t, "cannot allocate memory to emulate the asynchronous copies");
}

/* Thread t's queue of cp.async groups (or of bulk groups); NULL
 * (reported) when there is no memory. */
static AsyncQueue *queue(Emu *E, Pos p, int t, bool bulk)
{
	AsyncQueue **q = bulk ? &E->bulk : &E->async;
	if (!*q && !(*q = calloc((size_t)E->nthreads, sizeof(AsyncQueue)))) {
		no_memory(E, p, t);
		return NULL;
	}
	return &(*q)[t];
}

/* Room for one more entry in v[head .. n-1] (entries of size es): moves
 * them to the front when the retired ones fill half the array, else
 * doubles it. */
static bool room(void **v, int *head, int *n, int *cap, size_t es)
{
	if (*n < *cap)
		return true;
	if (*head > 0 && *head >= *cap / 2) {
		memmove(*v, (char *)*v + (size_t)*head * es, (size_t)(*n - *head) * es);
		*n -= *head;
		*head = 0;
		return true;
	}
	int c = *cap ? 2 * *cap : 16;
	void *w = realloc(*v, (size_t)c * es);
	if (!w)
		return false;
	*v = w;
	*cap = c;
	return true;
}

static bool push(Emu *E, Pos p, int t, Async *a, bool bulk)
{
	AsyncQueue *q = queue(E, p, t, bulk);
	if (!q)
		return false;
	void *v = q->item;
	bool ok = room(&v, &q->head, &q->n, &q->cap, sizeof(Async *));
	q->item = v;
	if (!ok)
		return no_memory(E, p, t);
	q->item[q->n++] = a;
	a->refs++;
	return true;
}

static void drop(Async *a)
{
	if (--a->refs == 0)
		free(a);
}

/* ---- shared memory owned by asynchronous copies --------------------------------------- */

typedef struct Pend {
	Pos at;
	int t, rank;        /* the issuing thread, and its CTA's rank in the cluster */
	int kind;           /* PEND_* */
} Pend;

/* The CTA whose shared memory holds the n bytes at p (this one, or
 * another of its cluster: a multicast), and their offset there; NULL when
 * they are not shared memory. */
static Emu *in_smem(Emu *E, const uint8_t *p, int64_t n, int64_t *off)
{
	/* this CTA's own first (every load and store asks): the other CTAs
	 * of its cluster only for what is not */
	Emu *O = E->sdata && p >= E->sdata && p < E->sdata + E->p->smem_bytes ? E : E->cl ? emu_owner(E, p) : NULL;
	if (!O || !O->pend || !O->sdata || p < O->sdata || p + n > O->sdata + O->p->smem_bytes)
		return NULL;
	*off = p - O->sdata;
	return O;
}

void emu_pend_mark(Emu *E, const uint8_t *p, int64_t n, Pos at, int t, int kind)
{
	int64_t off;
	Emu *O = in_smem(E, p, n, &off);
	if (!O)
		return;
	int rank = E->rank;
	E = O; /* the copy is recorded where its bytes are */
	Pend *last = E->npend ? &E->pends[E->npend - 1] : NULL;
	if (!last || last->at.off != at.off || pos_src(last->at) != pos_src(at) || last->t != t || last->rank != rank ||
	    last->kind != kind) {
		if (E->npend == 0xFFFF) { /* the table is full: the last entry names them all */
			E->pends[E->npend - 1] = (Pend){ at, t, rank, kind };
		} else {
			if (E->npend == E->cappend) {
				int cap = E->cappend ? 2 * E->cappend : 64;
				Pend *v = realloc(E->pends, sizeof *v * (size_t)cap);
				if (!v)
					return; /* not tracked: the poison still shows a missing wait */
				E->pends = v, E->cappend = cap;
			}
			E->pends[E->npend++] = (Pend){ at, t, rank, kind };
		}
	}
	for (int64_t k = 0; k < n; k++) {
		E->npending += !E->pend[off + k];
		E->pend[off + k] = (uint16_t)E->npend;
	}
}

void emu_pend_clear(Emu *E, const uint8_t *p, int64_t n)
{
	int64_t off;
	Emu *O = in_smem(E, p, n, &off);
	for (int64_t k = 0; O && O->npending && k < n; k++) {
		O->npending -= O->pend[off + k] != 0;
		O->pend[off + k] = 0;
	}
}

bool emu_pend_check_slow(Emu *E, const uint8_t *p, int64_t n, bool write, Pos pos, int t)
{
	int64_t off;
	Emu *O;
	if (E->tm && !E->unchecked_async && !emu_tmem_reg_check(E, p, n, write, pos, t))
		return false;
	if (E->performing || E->unchecked_async || !(O = in_smem(E, p, n, &off)))
		return true;
	if (write && O != E) /* a generic store into another CTA's shared memory */
		emu_proxy_wrote(O, off, n, E, t);
	for (int64_t k = 0; k < n; k++) {
		int i = O->pend[off + k];
		if (!i)
			continue;
		const Pend *c = &O->pends[i - 1];
		if (c->kind == PEND_STORE_SRC && !write)
			continue; /* reading a TMA store's source is fine */
		const Mem *m = NULL;
		for (int b = 0; b < O->p->nshared; b++)
			if (p + k >= O->smem[b].data && p + k < O->smem[b].data + O->smem[b].size)
				m = &O->smem[b];
		const char *where = m ? xprintf("byte %lld of %s", (long long)(p + k - m->data), emu_mem_str(m))
		                      : xprintf("shared byte %lld", (long long)(off + k));
		const char *file = c->at.place ? pos_name(c->at) : NULL;
		const char *src = file ? xprintf("%s:%d", file, c->at.line) : xprintf("line %d", c->at.line);
		if (O != E)
			where = xprintf("%s of cta rank %d", where, O->rank);
		const char *who = E->cl ? xprintf("thread %d of cta rank %d", c->t, c->rank) : xprintf("thread %d", c->t);
		if (c->kind == PEND_STORE_SRC)
			return emu_fail(E, pos, t, "this writes %s, the source of the TMA store at %s (%s), which may not "
			                "have read it yet: wait with T.ptx.cp_async.bulk.wait_group(N, read=True) first", where, src,
			                who);
		return emu_fail(E, pos, t, "this %s %s, which the asynchronous copy at %s (%s) has not written yet: "
		                "%s", write ? "writes" : "reads", where, src, who,
		                c->kind == PEND_CP ? "wait for it first with cp.async.wait_group (the issuing thread), then a "
		                "barrier for the others" : "wait for its mbarrier's phase first");
	}
	return true;
}

void emu_proxy_clear(Emu *E, const uint8_t *p, int64_t n)
{
	int64_t off;
	Emu *O = in_smem(E, p, n, &off);
	if (O)
		memset(O->gw + off, 0, (size_t)n * sizeof(uint16_t));
}

_Atomic uint32_t emu_fence_seq;

bool emu_proxy_check(Emu *E, const uint8_t *p, int64_t n, Pos pos, int t, const char *op, const char *what,
                     bool by_issuer)
{
	int64_t off;
	Emu *O;
	if (E->unchecked_async || !(O = in_smem(E, p, n, &off)))
		return true;
	for (int64_t k = 0; k < n; k++) {
		int id = O->gw[off + k];
		if (!id)
			continue;
		int wr = (id - 1) / 1024, wt = (id - 1) % 1024;
		const Emu *W = O->cl && wr < O->cl->n ? &O->cl->cta[wr] : O;
		if (W->fences[wt] > O->gep[off + k] || (by_issuer && E->fences[t] > O->gep[off + k]))
			continue; /* fenced since */
		const Mem *m = NULL;
		for (int b = 0; b < O->p->nshared; b++)
			if (p + k >= O->smem[b].data && p + k < O->smem[b].data + O->smem[b].size)
				m = &O->smem[b];
		const char *where = m ? xprintf("byte %lld of %s (shared byte %lld)", (long long)(p + k - m->data),
		                                emu_mem_str(m), (long long)(off + k))
		                      : xprintf("shared byte %lld", (long long)(off + k));
		if (O != E)
			where = xprintf("%s of cta rank %d", where, O->rank);
		const char *who = O->cl ? xprintf("thread %d of cta rank %d", wt, wr) : xprintf("thread %d", wt);
		return emu_fail(E, pos, t, "missing fence.proxy.async: %s reads %s at %s, which %s wrote with a generic "
		                "store and has not fenced since: the async proxy may not see the write "
		                "(T.ptx.fence.proxy_async() in the writing threads, after the writes and before the barrier)",
		                op, what, where, who);
	}
	return true;
}

static bool perform(Emu *E, Async *a)
{
	if (a->done)
		return true;
	a->done = true;
	bool was = E->performing, ok = true;
	E->performing = true;
	if (a->kind == A_TILE)
		ok = emu_copy_region(E, a->s, a->first, a->nthr, a->tf, a->ds, a->ss, a->zero ? 0 : -1);
	else if (a->kind == A_TMA)
		ok = emu_tma_perform(E, &a->tma);
	else {
		if (a->nsrc)
			memmove(a->dst, a->src, (size_t)a->nsrc);
		memset(a->dst + a->nsrc, 0, (size_t)(a->n - a->nsrc));
		emu_race_async(E, a->dst, a->n);
		emu_pend_clear(E, a->dst, a->n);
		emu_proxy_clear(E, a->dst, a->n);
	}
	E->performing = was;
	return ok;
}

/* perform, the writes stamped (thread wt, clock wc; wt -1: not stamped)
 * for the race checker. */
static bool perform_as(Emu *E, Async *a, int wt, uint32_t wc)
{
	int pt = E->race_wt, pl = E->race_wline;
	uint32_t pc = E->race_wc;
	E->race_wt = wt;
	E->race_wc = wc;
	E->race_wline = a->rline;
	bool ok = perform(E, a);
	E->race_wt = pt;
	E->race_wc = pc;
	E->race_wline = pl;
	return ok;
}

/* ---- cp.async ------------------------------------------------------------------------ */

/* The constant -1 of an optional operand: none. */
static bool none(const CExpr *x) { return x->kind == X_CONST && !dt_float(x->dtype) && x->k.i == -1; }

bool emu_cp_async(Emu *E, const CStmt *s, int t)
{
	const char *op = "T.ptx.cp_async";
	EVal d, src, v;
	int64_t n, size;
	if (!emu_eval(E, s->a, t, &d) || !emu_eval(E, s->b, t, &src) || !emu_eval_int(E, s->n, t, &n))
		return false;
	/* sema checked the size (4, 8, 16), the cache operator and the L2
	 * prefetch size (a constant: no effect on the data) */
	const CExpr *x = s->opt[CP_POLICY];
	if (x && !emu_eval(E, x, t, &v)) /* an L2 hint: no effect on the data */
		return false;
	size = n;
	if ((x = s->opt[CP_SRC_SIZE]) && !none(x)) {
		if (!emu_eval_int(E, x, t, &size))
			return false;
		if (size < 0 || size > n)
			return emu_fail(E, x->at, t, "%s of %lld bytes: the source size is %lld, not from 0 to %lld (-1: all)", op,
			                (long long)n, (long long)size, (long long)n);
	}
	if ((x = s->opt[CP_PRED]) && !none(x)) {
		if (!emu_eval(E, x, t, &v))
			return false;
		if (!emu_conv(v, x->dtype, DT_BOOL).i)
			size = 0; /* copies nothing and zero-fills */
	}
	if (!d.mem)
		return emu_fail(E, s->a->at, t, "%s: the destination is not an address", op);
	if (!src.mem)
		return emu_fail(E, s->b->at, t, "%s: the source is not an address", op);
	if (d.mem->space != SP_SHARED)
		return emu_fail(E, s->a->at, t, "%s: the destination, byte %lld of %s, is not in shared memory (cp.async copies global -> shared)",
		                op, (long long)d.i, emu_mem_str(d.mem));
	if (src.mem->space != SP_GLOBAL)
		return emu_fail(E, s->b->at, t, "%s: the source, byte %lld of %s, is not in global memory (cp.async copies global -> shared)",
		                op, (long long)src.i, emu_mem_str(src.mem));
	/* the source is checked over the bytes read: none when the predicate
	 * is false, which is what lets a masked copy point anywhere */
	if (!emu_check_ptr(E, s->a->at, t, d, n, n, op, "destination") ||
	    !emu_check_ptr(E, s->b->at, t, src, size, n, op, "source"))
		return false;
	Async *a = calloc(1, sizeof *a);
	if (!a)
		return no_memory(E, s->pos, t);
	a->kind = A_BYTES;
	a->dst = d.mem->data + d.i;
	a->src = size ? src.mem->data + src.i : NULL;
	a->n = (int)n;
	a->nsrc = (int)size;
	a->rline = s->pos.line;
	memset(a->dst, EMU_POISON, (size_t)n);
	emu_pend_mark(E, a->dst, n, s->pos, t, PEND_CP);
	if (!push(E, s->pos, t, a, false)) {
		free(a);
		return false;
	}
	return true;
}

/* ---- cp.async.bulk into another CTA of the cluster (dsmem) ------------------------- */

static bool track(Emu *E, Pos p, int t, Async *a, const uint8_t *bar, int parity, bool flipped);

bool emu_bulk_s2c(Emu *E, const CStmt *s, int t)
{
	const char *op = "T.ptx.cp_async.bulk.s2c";
	EVal d, src;
	int64_t n, r;
	if (!emu_eval(E, s->a, t, &d) || !emu_eval(E, s->m, t, &src) || !emu_eval_int(E, s->n, t, &n) ||
	    !emu_eval_int(E, s->value, t, &r))
		return false;
	if (!d.mem || d.mem->space != SP_SHARED || d.mem < E->smem || d.mem >= E->smem + E->p->nshared)
		return emu_fail(E, s->a->at, t, "%s: the destination is not in one of the CTA's shared buffers", op);
	if (!src.mem || src.mem->space != SP_SHARED)
		return emu_fail(E, s->m->at, t, "%s: the source is not in shared memory", op);
	int ncta = E->cl ? E->cl->n : 1;
	if (r < 0 || r >= ncta)
		return emu_fail(E, s->value->at, t, "%s: CTA rank %lld is not in the cluster of %d CTA%s", op, (long long)r, ncta,
		                ncta == 1 ? "" : "s");
	if (n <= 0 || n % 16)
		return emu_fail(E, s->n->at, t, "%s: %lld bytes, not a positive multiple of 16", op, (long long)n);
	if (!emu_check_ptr(E, s->a->at, t, d, n, 16, op, "destination") || !emu_check_ptr(E, s->m->at, t, src, n, 16, op, "source"))
		return false;
	/* the async proxy reads the source: a generic write of it needs its fence */
	if (!emu_proxy_check(E, src.mem->data + src.i, n, s->pos, t, op, "the source", true))
		return false;
	uint8_t *bar = emu_mbar_at(E, s->b, t, op);
	if (!bar)
		return false;
	if (emu_owner(E, bar) != E)
		return emu_fail(E, s->b->at, t, "%s: the mbarrier is named by its address in this CTA (the remote one is at "
		                "the same place), not in another CTA's shared memory", op);
	Emu *P = emu_peer(E, (int)r);
	uint8_t *pbar = P->sdata + (bar - E->sdata);
	/* the source as it is now: the copy may read it any time before its
	 * bytes complete, and reading it at once is one of those times */
	Async *a = calloc(1, sizeof *a + (size_t)n);
	if (!a)
		return no_memory(E, s->pos, t);
	uint8_t *snap = (uint8_t *)a->starts;
	memcpy(snap, src.mem->data + src.i, (size_t)n);
	a->kind = A_BYTES;
	a->dst = P->smem[d.mem - E->smem].data + d.i;
	a->src = snap;
	a->n = a->nsrc = (int)n;
	a->rline = s->pos.line;
	memset(a->dst, EMU_POISON, (size_t)n);
	emu_pend_mark(P, a->dst, n, s->pos, t, PEND_MBAR);
	int parity;
	bool flipped;
	if (!emu_mbar_complete_tx(E, s->b, s->pos, t, pbar, n, P == E ? op : xprintf("%s (into cta rank %lld)", op,
	                                                                               (long long)r),
	                          &parity, &flipped)) {
		free(a);
		return false;
	}
	a->refs = 1;
	bool ok = track(E, s->pos, t, a, pbar, parity, flipped);
	drop(a);
	return ok;
}

bool emu_cp_commit(Emu *E, const CStmt *s, int t)
{
	AsyncQueue *q = queue(E, s->pos, t, s->kind == C_BULK_COMMIT);
	if (!q)
		return false;
	void *v = q->group;
	bool ok = room(&v, &q->ghead, &q->ng, &q->gcap, sizeof(int));
	q->group = v;
	if (!ok)
		return no_memory(E, s->pos, t);
	int open = q->n - q->head - q->committed;
	q->group[q->ng++] = open;
	q->committed += open;
	return true;
}

bool emu_cp_wait(Emu *E, const CStmt *s, int t)
{
	/* N from 0 to 63: sema checked it. A bulk wait_group.read (the
	 * sources read) retires its groups as the plain one does (the writes
	 * done too), which is one of the orders the GPU may give. */
	AsyncQueue *q = queue(E, s->pos, t, s->kind == C_BULK_WAIT);
	if (!q)
		return false;
	while (q->ng - q->ghead > s->wait) {
		int k = q->group[q->ghead++];
		for (int i = 0; i < k; i++) {
			Async *a = q->item[q->head++];
			q->committed--;
			/* the copies land as the waiting thread's writes */
			bool ok = perform_as(E, a, t, emu_race_clock(E, t));
			drop(a);
			if (!ok)
				return false;
		}
	}
	return true;
}

/* ---- loads completed on an mbarrier ---------------------------------------------------- */

/* A TMA load (or a copy_async through tma) waiting for a wait on its
 * mbarrier: its complete_tx counted in the phase of parity `parity`, and
 * the mbarrier has completed `flips` phases since (1: that one). */
typedef struct TxLoad {
	Async *a;
	const uint8_t *bar;
	int parity, flips;
} TxLoad;

static bool track(Emu *E, Pos p, int t, Async *a, const uint8_t *bar, int parity, bool flipped)
{
	Emu *I = E;
	E = emu_owner(E, bar); /* the load waits in the CTA of its mbarrier */
	a->rt = t;
	a->rrank = I->rank;
	a->rline = p.line;
	void *v = E->txl;
	int head = 0;
	bool ok = room(&v, &head, &E->ntxl, &E->captxl, sizeof(TxLoad));
	E->txl = v;
	if (!ok)
		return no_memory(I, p, t);
	E->txl[E->ntxl++] = (TxLoad){ a, bar, parity, flipped };
	a->refs++;
	return true;
}

void emu_mbar_flipped(Emu *E, const uint8_t *bar)
{
	E = emu_owner(E, bar);
	emu_race_flip(E, bar);
	for (int i = 0; i < E->ntxl; i++)
		if (E->txl[i].bar == bar && E->txl[i].flips < 2)
			E->txl[i].flips++;
}

/* A wait for parity p has seen its phase complete: the loads of that phase
 * (or of an earlier one) get their data, in the order they were issued. */
bool emu_mbar_waited(Emu *E, const uint8_t *bar, int parity)
{
	E = emu_owner(E, bar);
	bool ok = true;
	int k = 0;
	for (int i = 0; i < E->ntxl; i++) {
		TxLoad *l = &E->txl[i];
		if (l->bar == bar && (l->flips >= 2 || (l->flips == 1 && l->parity == parity))) {
			/* the copy's writes: its issuing thread's, at the clock its
			 * complete_tx gave the phase (ordered for the phase's waiters) */
			Async *a = l->a;
			bool mine = a->rrank == E->rank;
			if (ok)
				ok = perform_as(E, a, mine ? a->rt : -1, mine ? emu_race_phase_clock(E, bar, l->parity, a->rt) : 0);
			drop(l->a);
		} else {
			E->txl[k++] = *l;
		}
	}
	E->ntxl = k;
	return ok;
}

/* ---- copy_async ---------------------------------------------------------------------- */

/* copy_async s issued into CTA E (with cta_mask=, one of the CTAs of the
 * mask; I the issuing one, whose thread tf reports errors; bar its
 * mbarrier, the one in E at the same offset used). */
static bool async_tile(Emu *I, Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss,
                       bool zero, uint8_t *bar, const char *op)
{
	/* a TMA store is not poisoned (its destination is global memory, which
	 * other CTAs may read); its regions are checked at issue all the same */
	if (s->done == DONE_BULK_GROUP ? !emu_regions_check(E, s, tf, ds, ss) ||
	                                     !emu_copy_region(E, s, first, n, tf, ds, ss, EMU_MARK_SRC)
	                               : !emu_copy_region(E, s, first, n, tf, ds, ss, EMU_POISON))
		return false;
	int parity = 0;
	bool flipped = false;
	if (bar) {
		/* a TMA load: its bytes complete on the mbarrier at issue */
		int64_t bytes = s->dst.acc->esize;
		for (int d = 0; d < s->dst.ndim; d++)
			bytes *= s->dst.extents[d];
		if (E != I)
			bar = E->sdata + (bar - I->sdata);
		if (!emu_mbar_complete_tx(I, s->b, s->pos, tf, bar, bytes, op, &parity, &flipped))
			return false;
	}
	int nd = s->dst.ndim, ns = s->src.ndim;
	Async *a = calloc(1, sizeof *a + sizeof(int64_t) * (size_t)(nd + ns));
	if (!a)
		return no_memory(I, s->pos, tf);
	a->kind = A_TILE;
	a->zero = zero;
	a->s = s;
	a->first = first;
	a->nthr = n;
	a->tf = tf;
	a->rline = s->pos.line;
	a->ds = a->starts;
	a->ss = a->starts + nd;
	memcpy(a->ds, ds, sizeof(int64_t) * (size_t)nd);
	memcpy(a->ss, ss, sizeof(int64_t) * (size_t)ns);
	a->refs = 1; /* held here until every thread has it */
	bool ok = true;
	if (bar)
		ok = track(I, s->pos, tf, a, bar, parity, flipped);
	else
		for (int t = first; ok && t < first + n; t++)
			ok = push(E, s->pos, t, a, s->done == DONE_BULK_GROUP);
	drop(a);
	return ok;
}

bool emu_async_tile(Emu *E, const CStmt *s, int first, int n, int tf, const int64_t *ds, const int64_t *ss)
{
	/* TVM's predicate= (with fill_mode="zero"; thread scope only, sema
	 * checked): where it is false the region is zero-filled */
	EVal pv = { 0 };
	const CExpr *pred = s->opt[CP_PRED];
	if (pred && !emu_eval(E, pred, tf, &pv))
		return false;
	bool zero = pred && !emu_conv(pv, pred->dtype, DT_BOOL).i;
	uint8_t *bar = NULL;
	if (s->done == DONE_MBAR_TX && !(bar = emu_mbar_at(E, s->b, tf, "copy_async")))
		return false;
	if (!s->mask)
		return async_tile(E, E, s, first, n, tf, ds, ss, zero, bar, "copy_async");
	/* cta_mask=: the same region and mbarrier offset in every CTA of the mask */
	int64_t mask = emu_cta_mask(E, s->mask, tf, "copy_async");
	if (mask < 0)
		return false;
	if (emu_owner(E, bar) != E)
		return emu_fail(E, s->b->at, tf, "copy_async with cta_mask=: the mbarrier is not in this CTA's shared memory");
	for (int r = 0; r < 16; r++)
		if (mask >> r & 1) {
			Emu *P = emu_peer(E, r);
			const char *op = P == E ? "copy_async" : xprintf("copy_async (multicast to cta rank %d)", r);
			if (!async_tile(E, P, s, first, n, tf, ds, ss, zero, bar, op))
				return false;
		}
	return true;
}

/* ---- TMA ---------------------------------------------------------------------------- */

static Async *tma_item(Emu *E, const TmaOp *o)
{
	Async *a = calloc(1, sizeof *a);
	if (!a) {
		no_memory(E, o->s->pos, o->t);
		return NULL;
	}
	a->kind = A_TMA;
	a->tma = *o;
	a->rline = o->s->pos.line;
	return a;
}

bool emu_bulk_tma(Emu *E, const TmaOp *o)
{
	Async *a = tma_item(E, o);
	if (!a)
		return false;
	if (!push(E, o->s->pos, o->t, a, true)) {
		free(a);
		return false;
	}
	return true;
}

bool emu_tx_load_tma(Emu *E, const TmaOp *o, uint8_t *bar, int parity, bool flipped)
{
	Async *a = tma_item(E, o);
	if (!a)
		return false;
	a->refs = 1;
	bool ok = track(E, o->s->pos, o->t, a, bar, parity, flipped);
	drop(a);
	return ok;
}

/* ---- the end of a CTA ----------------------------------------------------------------- */

static bool end_queues(Emu *E, AsyncQueue *qs, bool perform_them, bool ok)
{
	for (int t = 0; qs && t < E->nthreads; t++) {
		AsyncQueue *q = &qs[t];
		for (int i = q->head; i < q->n; i++) {
			if (perform_them && ok)
				ok = perform_as(E, q->item[i], -1, 0);
			drop(q->item[i]);
		}
		q->head = q->n = q->ghead = q->ng = q->committed = 0;
	}
	return ok;
}

bool emu_async_end(Emu *E, bool perform_them)
{
	/* the loads waiting for their mbarrier, the cp.async groups, then the
	 * bulk groups (a store issued after a load reads what it delivered) */
	bool ok = true;
	for (int i = 0; i < E->ntxl; i++) {
		if (perform_them && ok)
			ok = perform_as(E, E->txl[i].a, -1, 0);
		drop(E->txl[i].a);
	}
	E->ntxl = 0;
	ok = end_queues(E, E->async, perform_them, ok);
	return end_queues(E, E->bulk, perform_them, ok);
}

void emu_async_free(Emu *E)
{
	emu_async_end(E, false);
	AsyncQueue *qs[2] = { E->async, E->bulk };
	for (int k = 0; k < 2; k++) {
		for (int t = 0; qs[k] && t < E->nthreads; t++) {
			free(qs[k][t].item);
			free(qs[k][t].group);
		}
		free(qs[k]);
	}
	E->async = E->bulk = NULL;
	free(E->txl);
	E->txl = NULL;
	E->ntxl = E->captxl = 0;
}
